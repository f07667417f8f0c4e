"""RFC-0004 §5: the MCP mapping, through the official SDK's client over stdio."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from venom_mcp.conformance._kit import TIMEOUT, Daemon, not_applicable, request_line
from venom_mcp.conformance._model import LOCAL, TRANSPORT, TargetModel, finite, mcp_name

pytestmark = pytest.mark.anyio
#: The checks that replay RFC-0004 §5's worked example (venom-echo's verbs) byte for byte.
echo_trace = pytest.mark.uses_verbs("echo", "echo.repeat", "echo.types", "echo.fail")

#: RFC-0004 §5, verbatim.
RFC_ECHO_ENTRY = json.loads(
    """{
  "name": "echo",
  "description": "Return the supplied text",
  "inputSchema": {
    "type": "object",
    "properties": {
      "text": {"type":"string","description":"Text to return"},
      "style": {"type":"string","enum":["plain","upper"],"description":"Output casing",
                "default":"plain"}
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
}"""
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@asynccontextmanager
async def session(d: Daemon, *extra: str) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=d.target.cli[0], args=[*d.target.cli[1:], "mcp", *extra], env=d.env
    )
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write) as s,
    ):
        with anyio.fail_after(TIMEOUT):
            await s.initialize()
        yield s


async def tools(s: ClientSession) -> dict[str, dict[str, Any]]:
    with anyio.fail_after(TIMEOUT):
        listed = await s.list_tools()
    return {t.name: t.model_dump(by_alias=True, exclude_none=True) for t in listed.tools}


async def call(s: ClientSession, name: str, args: dict[str, Any]) -> dict[str, Any]:
    with anyio.fail_after(TIMEOUT):
        result = await s.call_tool(name, args)
    return result.model_dump(by_alias=True, exclude_none=True)


@echo_trace
@pytest.mark.rfc("RFC-0004 §5")
async def test_echo_catalog_entry_is_the_rfcs(daemon: Daemon) -> None:
    """RFC-0004 §5: the generated catalog entry for echo is exactly the RFC's."""
    async with session(daemon) as s:
        entry = (await tools(s))["echo"]
    entry.pop("annotations", None)
    entry.pop("title", None)
    assert entry == RFC_ECHO_ENTRY


@pytest.mark.rfc("RFC-0004 §5")
async def test_names_are_encoded_and_local_and_transport_verbs_hidden(
    daemon: Daemon, model: TargetModel
) -> None:
    """RFC-0004 §5/§7: `.` -> `_d`, `_` -> `__`; local and transport verbs are not tools."""
    async with session(daemon) as s:
        names = set(await tools(s))
    hidden = [v["name"] for v in model.raw["verbs"] if model.dispatch(v) in (LOCAL, TRANSPORT)]
    assert {"hello", "cancel"} <= set(hidden)  # every daemon has RFC-0002's transport verbs
    assert not names & {*hidden, *(mcp_name(n) for n in hidden)}
    assert mcp_name("ping") in names
    assert {mcp_name(v["name"]) for v in model.mcp_verbs()} == names
    assert not any("." in n for n in names)


@pytest.mark.rfc("RFC-0004 §5")
async def test_successful_call_has_structured_and_text_wrapper(daemon: Daemon) -> None:
    """RFC-0004 §5: {"result": ok} as structuredContent and as one compact text block (ping,
    which every daemon has)."""
    async with session(daemon) as s:
        out = await call(s, mcp_name("ping"), {})
    assert out["isError"] is False
    assert out["structuredContent"] == {"result": {}}
    assert out["content"] == [{"type": "text", "text": '{"result":{}}'}]


@echo_trace
@pytest.mark.rfc("RFC-0004 §5")
async def test_adapter_inserts_defaults(daemon: Daemon) -> None:
    """RFC-0004 §5: the adapter inserts defaults itself (echo.types)."""
    async with session(daemon) as s:
        out = await call(s, "echo_dtypes", {})
    assert out["structuredContent"]["result"] == {
        "count": 1, "ratio": 0.5, "flag": False, "tags": None, "nested": None, "mode": None
    }  # fmt: skip


@echo_trace
@pytest.mark.rfc("RFC-0004 §5")
async def test_failure_is_error_result_with_code_and_data_verbatim(daemon: Daemon) -> None:
    """RFC-0004 §5: failures return isError with the {"error":...} text, no structuredContent."""
    async with session(daemon) as s:
        missing = await call(s, "echo", {})
        failed = await call(s, "echo_dfail", {"code": "conflict.echo_busy"})
    for out in (missing, failed):
        assert out["isError"] is True
        assert "structuredContent" not in out
    error = json.loads(missing["content"][0]["text"])["error"]
    assert isinstance(error.pop("message"), str)
    assert error == {"code": "invalid_params.missing", "data": {"param": "text"}}
    err = json.loads(failed["content"][0]["text"])["error"]
    assert err["code"] == "conflict.echo_busy"
    assert err["data"] == {"retry_after_ms": 100}


@pytest.mark.rfc("RFC-0004 §5")
async def test_failure_is_error_result_with_the_venom_error(daemon: Daemon) -> None:
    """RFC-0004 §5: a failed call is isError with the {"error":...} text and no
    structuredContent (an unknown argument to ping: invalid_params.unknown, any daemon)."""
    async with session(daemon) as s:
        out = await call(s, mcp_name("ping"), {"zz_unknown": 1})
    assert out["isError"] is True
    assert "structuredContent" not in out
    [block] = out["content"]
    error = json.loads(block["text"])["error"]
    assert error["code"] == "invalid_params.unknown"
    assert error["data"] == {"param": "zz_unknown"}
    assert isinstance(error["message"], str)


@pytest.mark.rfc("RFC-0004 §5")
async def test_stream_is_buffered_into_items_and_result(daemon: Daemon, model: TargetModel) -> None:
    """RFC-0004 §5: a streaming verb's output is {"items": [...], "result": ok}, the items the
    daemon streams for the same call, in order."""

    verb, params = finite(model)
    with daemon.connect() as c:
        c.send_lines(daemon.owner_hello(), request_line(1, verb, params))
        c.until_id(0)
        wire = c.until_id(1)
    if "error" in wire[-1]:
        not_applicable(f"the model's finite stream {verb} failed on the socket (--stream)")
    async with session(daemon) as s:
        out = await call(s, mcp_name(verb), params)
    assert out["isError"] is False, out
    assert out["structuredContent"] == {
        "items": [m["item"] for m in wire[:-1]],
        "result": wire[-1]["ok"],
    }


@pytest.mark.rfc("RFC-0004 §5")
async def test_unknown_tool_is_json_rpc_invalid_params(daemon: Daemon) -> None:
    """RFC-0004 §5: an unknown tool is JSON-RPC error -32602."""
    async with session(daemon) as s:
        with pytest.raises(MCPError) as info:
            await call(s, "no_such_tool", {})
    assert info.value.error.code == -32602


@echo_trace
@pytest.mark.rfc("RFC-0004 §5")
async def test_streaming_call_is_buffered_into_items_and_result(daemon: Daemon) -> None:
    """RFC-0004 §5: streaming output is {"items": [...], "result": ok}."""
    async with session(daemon) as s:
        out = await call(s, "echo_drepeat", {"text": "a", "count": 2})
    assert out["structuredContent"] == {
        "items": [{"index": 0, "text": "a"}, {"index": 1, "text": "a"}],
        "result": {"count": 2},
    }


@echo_trace
@pytest.mark.rfc("RFC-0004 §5")
async def test_stream_over_1024_items_is_stream_limit_not_truncated(daemon: Daemon) -> None:
    """RFC-0004 §5: crossing 1024 items returns unsupported.stream_limit, never a truncation."""
    async with session(daemon) as s:
        out = await call(s, "echo_drepeat", {"text": "a", "count": 1025})
        listed = await tools(s)
    assert out["isError"] is True
    assert "structuredContent" not in out
    assert json.loads(out["content"][0]["text"])["error"]["code"] == "unsupported.stream_limit"
    description = listed["echo_drepeat"]["description"]
    assert "1024" in description
    assert "MiB" in description


@echo_trace
@pytest.mark.rfc("RFC-0004 §5")
async def test_stream_over_one_mib_is_stream_limit(daemon: Daemon) -> None:
    """RFC-0004 §5: crossing 1 MiB of compact item JSON is unsupported.stream_limit."""
    async with session(daemon) as s:
        out = await call(s, "echo_drepeat", {"text": "x" * 2000, "count": 600})
    assert out["isError"] is True
    assert json.loads(out["content"][0]["text"])["error"]["code"] == "unsupported.stream_limit"


@pytest.mark.rfc("RFC-0004 §2")
async def test_max_grant_read_hides_and_refuses_write_tools(
    daemon: Daemon, model: TargetModel
) -> None:
    """RFC-0004 §2 / rfcs 0005 §5: --max-grant read hides tools above read; calling one is
    -32602, like an unknown tool."""
    above = [v for v in model.mcp_verbs() if v["grant"] not in ("none", "read")]
    if not above:
        not_applicable("the model declares no daemon verb above the read grant")
    async with session(daemon, "--max-grant", "read") as s:
        names = set(await tools(s))
        with pytest.raises(MCPError) as info:
            await call(s, mcp_name(above[0]["name"]), {})
    assert not names & {mcp_name(v["name"]) for v in above}
    assert mcp_name("ping") in names
    assert info.value.error.code == -32602


@pytest.mark.rfc("RFC-0004 §5")
async def test_daemon_not_running_is_unavailable_and_adapter_stays_up(fresh: Daemon) -> None:
    """RFC-0004 §5: with no daemon, calls fail with unavailable.not_running; then recover."""
    async with session(fresh) as s:
        out = await call(s, "ping", {})
        assert json.loads(out["content"][0]["text"])["error"]["code"] == "unavailable.not_running"
        fresh.start()
        again = await call(s, "ping", {})
    assert again["structuredContent"] == {"result": {}}
