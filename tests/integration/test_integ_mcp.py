"""`venom-echo mcp` driven by the official MCP SDK client (RFC-0004 §5; rfcs/0001 §3, 0005 §5)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from integration_kit import ECHO_VERSION, Daemon, exposed_verbs, load_model
from integration_kit import mcp_tool_name as tool_name
from integration_mcp import Mcp
from mcp import MCPError

#: RFC-0004 §5, the generated catalog entry for the echo manifest, copied verbatim.
RFC_ECHO_ENTRY = """
{
  "name": "echo",
  "description": "Return the supplied text",
  "inputSchema": {
    "type": "object",
    "properties": {
      "text": {"type":"string","description":"Text to return"},
      "style": {"type":"string","enum":["plain","upper"],"description":"Output casing","default":"plain"}
    },
    "required": ["text"],
    "additionalProperties": false
  },
  "outputSchema": {
    "type": "object",
    "properties": {
      "result": {
        "type":"object",
        "properties":{"text":{"type":"string","description":"Returned text"}},
        "required":["text"],
        "additionalProperties":false
      }
    },
    "required":["result"],
    "additionalProperties":false
  }
}
"""  # noqa: E501 (the RFC's lines, kept verbatim)


@pytest.mark.covers("cli", "mcp")
def test_initialize_names_the_server(mcp_session: Mcp) -> None:
    """RFC-0004 §5: `<tool> mcp` is a stdio MCP server offering tools."""
    info = mcp_session.server_info
    assert (info.name, info.version) == ("venom-echo", ECHO_VERSION)
    assert mcp_session.init.capabilities.tools is not None


@pytest.mark.covers("cli", "mcp")
def test_tools_list_is_every_daemon_verb(mcp_session: Mcp) -> None:
    """RFC-0004 §5, §7: one tool per daemon verb, escaped names; no hello/cancel/serve/mcp."""
    names = {t.name for t in mcp_session.list_tools()}
    assert names == {tool_name(v) for v in exposed_verbs(load_model())["mcp"]}
    assert {"echo_drepeat", "config_dget", "skill_dinstall"} <= names


def test_tools_list_echo_entry_matches_rfc(mcp_session: Mcp) -> None:
    """RFC-0004 §5: the echo catalog entry is exactly the RFC's, compared as parsed JSON."""
    (echo,) = [t for t in mcp_session.list_tools() if t.name == "echo"]
    dumped = echo.model_dump(by_alias=True, exclude_none=True)
    rfc = json.loads(RFC_ECHO_ENTRY)
    # Every member the RFC lists, exactly; the rest are rfcs/0004 D-S36's title and annotations.
    assert {member: dumped[member] for member in rfc} == rfc
    assert set(dumped) - set(rfc) == {"title", "annotations"}


def test_streaming_tools_state_the_limits(mcp_session: Mcp) -> None:
    """RFC-0004 §5: the buffering limits MUST appear in streaming tool descriptions."""
    tools = {t.name: t for t in mcp_session.list_tools()}
    for name in ("echo_drepeat", "events"):
        description = tools[name].description or ""
        assert "1024" in description, description
        assert "MiB" in description, description
        output = tools[name].output_schema or {}
        assert output.get("required") == ["items", "result"]


@pytest.mark.covers("mcp", "echo")
def test_echo_call_matches_rfc_example(mcp_session: Mcp) -> None:
    """RFC-0004 §5: text block {"result":{"text":"hi"}} and the same structuredContent."""
    result = mcp_session.call("echo", {"text": "hi"})
    assert not result.is_error
    assert result.structured_content == {"result": {"text": "hi"}}
    assert [json.loads(getattr(b, "text", "null")) for b in result.content] == [
        {"result": {"text": "hi"}}
    ]
    assert mcp_session.ok("echo", {"text": "hi", "style": "upper"}) == {"result": {"text": "HI"}}


@pytest.mark.covers("mcp", "echo.repeat")
@pytest.mark.parametrize("count", [0, 1, 3])
def test_repeat_is_buffered_items_and_result(mcp_session: Mcp, count: int) -> None:
    """RFC-0004 §5: streaming output is {"items": [...], "result": <final ok>}."""
    got = mcp_session.ok("echo.repeat", {"text": "m", "count": count})
    assert got == {
        "items": [{"index": i, "text": "m"} for i in range(count)],
        "result": {"count": count},
    }


@pytest.mark.covers("mcp", "echo.repeat")
def test_repeat_over_the_item_limit_fails(mcp_session: Mcp) -> None:
    """RFC-0004 §5: more than 1024 items is unsupported.stream_limit, never a truncated success."""
    err = mcp_session.error("echo.repeat", {"text": "m", "count": 1025})
    assert err["code"] == "unsupported.stream_limit"


@pytest.mark.covers("mcp", "echo.exit")
def test_exit_status_is_ordinary_data(mcp_session: Mcp) -> None:
    """RFC-0004 §3: MCP returns the status as result data, not an error."""
    assert mcp_session.ok("echo.exit", {"status": 7}) == {"result": {"status": 7}}


@pytest.mark.covers("mcp", "echo.fail")
@pytest.mark.parametrize(
    ("code", "data"),
    [
        ("failed.echo", {"reason": "asked to fail"}),
        ("not_found.echo", {"what": "text"}),
        ("conflict.echo_busy", {"retry_after_ms": 100}),
        ("timeout.echo", {"waited_ms": 0, "hint": None}),
    ],
)
def test_fail_is_error_result_with_wrapper(
    mcp_session: Mcp, code: str, data: dict[str, Any]
) -> None:
    """RFC-0004 §5: isError; text {"error":...} keeps code and data; no structuredContent."""
    err = mcp_session.error("echo.fail", {"code": code})
    assert (err["code"], err["data"]) == (code, data)


@pytest.mark.covers("mcp", "echo")
def test_invalid_params_is_error_result(mcp_session: Mcp) -> None:
    """RFC-0004 §5: validation failures of a known tool are isError results, not JSON-RPC errors."""
    err = mcp_session.error("echo", {})
    assert err == {
        "code": "invalid_params.missing",
        "message": "missing required param 'text'",
        "data": {"param": "text"},
    }
    assert mcp_session.error("echo", {"text": 1})["code"] == "invalid_params.type"


def test_unknown_tool_is_jsonrpc_invalid_params(mcp_session: Mcp) -> None:
    """RFC-0004 §5: an unknown tool is JSON-RPC error -32602."""
    with pytest.raises(MCPError) as info:
        mcp_session.call_tool("no_such_tool", {})
    assert info.value.code == -32602


@pytest.mark.covers("mcp", "echo.types")
def test_types_defaults_inserted_by_adapter(mcp_session: Mcp) -> None:
    """RFC-0004 §5: the adapter inserts defaults itself, nested ones included."""
    got = mcp_session.ok("echo.types", {"nested": {}, "tags": [4]})
    assert got == {
        "result": {
            "count": 1,
            "ratio": 0.5,
            "flag": False,
            "tags": [4],
            "nested": {"name": "anon", "level": 0},
            "mode": None,
        }
    }


@pytest.mark.covers("mcp", "ping", "doctor", "skill", "config.get", "config.check")
def test_read_verbs(mcp_session: Mcp, daemon: Daemon) -> None:
    """rfcs/0001: ping {}, doctor healthy, skill content, config.get/check on defaults."""
    assert mcp_session.ok("ping", {}) == {"result": {}}
    doctor = mcp_session.ok("doctor", {})["result"]
    assert (doctor["status"], doctor["exit"]) == ("ok", 0)
    content = mcp_session.ok("skill", {})["result"]["content"]
    assert content.startswith("---\nname: venom-echo\n")
    assert mcp_session.ok("config.get", {"key": "log_level"}) == {
        "result": {"key": "log_level", "value": '"info"'}
    }
    assert mcp_session.ok("config.check", {}) == {
        "result": {"path": str(daemon.config_file), "valid": True, "exit": 0, "errors": []}
    }


@pytest.mark.covers("mcp", "config.schema")
def test_config_schema(mcp_session: Mcp) -> None:
    """rfcs/0001 §6: JSON Schema 2020-12 of the configuration as compact JSON text."""
    schema = json.loads(mcp_session.ok("config.schema", {})["result"]["schema"])
    assert schema["properties"]["log_level"]["enum"] == ["debug", "info", "warning", "error"]
    assert schema["additionalProperties"] is False


@pytest.mark.covers("mcp", "events", "echo")
def test_events_buffered_replay(mcp_session: Mcp) -> None:
    """rfcs/0003 §4: with follow=false the replay comes back as items and {"last": n}."""
    mcp_session.ok("echo", {"text": "mcp-event"})
    got = mcp_session.ok("events", {"cursor": 0, "types": ["echo.echoed"], "follow": False})
    items = got["items"]
    assert {"text": "mcp-event"} in [json.loads(i["data"]) for i in items]
    assert got["result"] == {"last": items[-1]["seq"]}


@pytest.mark.covers("mcp", "skill.install", "skill")
def test_skill_install_through_adapter(mcp_session: Mcp, tmp_path: Path) -> None:
    """rfcs/0005 §2: the adapter presents the owner token, so files-grant verbs run."""
    path = str(tmp_path / "SKILL.md")
    assert mcp_session.ok("skill.install", {"dir": str(tmp_path)}) == {
        "result": {"path": path, "written": True}
    }
    assert mcp_session.ok("skill.install", {"dir": str(tmp_path)})["result"]["written"] is False
    content = mcp_session.ok("skill", {})["result"]["content"]
    assert (tmp_path / "SKILL.md").read_text(encoding="utf-8") == content
    err = mcp_session.error("skill.install", {"dir": "relative"})
    assert err["code"] == "invalid_params.relative_path"


@pytest.mark.covers("mcp", "config.set", "config.reload", "config.get", "config.check")
@pytest.mark.covers("cli", "mcp")
def test_config_set_and_reload_through_adapter(own_daemon: Daemon) -> None:
    """rfcs/0001 §6: set applies; a broken file fails check and reload (old value kept);
    a fixed file reloads and reports the changed keys."""
    m = Mcp(own_daemon)
    try:
        assert m.ok("config.set", {"key": "greeting", "value": "from-mcp"}) == {
            "result": {"key": "greeting", "value": '"from-mcp"'}
        }
        assert m.ok("config.get", {"key": "greeting"})["result"]["value"] == '"from-mcp"'
        own_daemon.config_file.write_text("greeting = [1]\n", encoding="utf-8")
        check = m.ok("config.check", {})["result"]  # exit 1 is data over MCP (RFC-0004 §3)
        assert (check["valid"], check["exit"]) == (False, 1)
        assert [e["key"] for e in check["errors"]] == ["greeting"]
        refused = m.error("config.reload", {})
        assert refused["code"] == "failed.config_invalid"
        assert refused["data"]["path"] == str(own_daemon.config_file)
        assert m.ok("config.get", {"key": "greeting"})["result"]["value"] == '"from-mcp"'
        own_daemon.config_file.write_text('greeting = "edited"\n', encoding="utf-8")
        assert m.ok("config.reload", {}) == {
            "result": {"path": str(own_daemon.config_file), "changed": ["greeting"]}
        }
    finally:
        m.close()


@pytest.mark.covers("cli", "mcp")
def test_max_grant_read_hides_privileged_tools(daemon: Daemon) -> None:
    """rfcs/0005 §5: --max-grant read lists only none/read verbs; hidden tools are unknown."""
    m = Mcp(daemon, "--max-grant", "read")
    try:
        names = {t.name for t in m.list_tools()}
        assert names.isdisjoint({"config_dset", "config_dreload", "skill_dinstall"})
        assert {"echo", "ping", "skill", "config_dget"} <= names
        assert m.ok("echo", {"text": "still here"}) == {"result": {"text": "still here"}}
    finally:
        m.close()


@pytest.mark.covers("cli", "mcp")
def test_max_grant_hidden_tool_is_refused_like_unknown(daemon: Daemon) -> None:
    """rfcs/0005 §5: a call to a hidden tool is refused like an unknown tool (RFC-0004 §5)."""
    m = Mcp(daemon, "--max-grant", "read")
    try:
        with pytest.raises(MCPError) as info:
            m.call_tool("config_dset", {"key": "greeting", "value": "x"})
        assert info.value.code == -32602
    finally:
        m.close()


@pytest.mark.covers("cli", "mcp")
@pytest.mark.covers("mcp", "ping")
def test_daemon_down_fails_the_call_not_the_adapter(own_daemon: Daemon) -> None:
    """rfcs/0001 §3: with no daemon each tool call fails with unavailable.not_running."""
    own_daemon.stop()
    m = Mcp(own_daemon)
    try:
        assert m.error("ping", {})["code"] == "unavailable.not_running"
        assert len(m.list_tools()) > 0
    finally:
        m.close()
