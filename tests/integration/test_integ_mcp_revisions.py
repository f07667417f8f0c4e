"""`venom-echo mcp` at each MCP revision it serves, and its progress (rfcs/0004 D-S70..D-S74).

The SDK client's revisions come from the ``mcp_session`` fixture (2025-11-25, 2026-07-28);
raw JSON-RPC lines (`venom_gen.testing.McpPeer`) drive all three, 2025-06-18 included, which
the client no longer offers.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from integration_kit import Daemon
from integration_mcp import Mcp

from venom_gen.testing import McpPeer

REVISIONS = ("2025-06-18", "2025-11-25", "2026-07-28")
#: What a 2026-07-28 result adds to every result; tools/list adds the cache hint too.
STATELESS_MEMBERS = {"resultType", "_meta"}


@pytest.fixture(params=REVISIONS)
def raw_peer(daemon: Daemon, request: pytest.FixtureRequest) -> Iterator[McpPeer]:
    """``venom-echo mcp`` with raw JSON-RPC at each revision."""
    revision: str = request.param
    log = daemon.root / "mcp-raw.err"
    with McpPeer([daemon.command[0], "mcp"], env=daemon.env, log=log, revision=revision) as peer:
        if revision == "2026-07-28":
            assert "2026-07-28" in peer.init["result"]["supportedVersions"]
        else:
            assert peer.init["result"]["protocolVersion"] == revision
        yield peer


def _core(result: dict[str, Any]) -> dict[str, Any]:
    """``result`` without the members only 2026-07-28 adds."""
    return {k: v for k, v in result.items() if k not in STATELESS_MEMBERS}


@pytest.mark.covers("mcp", "echo")
def test_the_catalog_and_results_are_the_same_at_every_revision(
    raw_peer: McpPeer, mcp_session: Mcp
) -> None:
    """The same tools in the same order, the same success and error results, as the SDK
    client sees at its revisions."""
    listed = raw_peer.call("tools/list", {})["result"]
    if raw_peer.revision == "2026-07-28":
        assert set(listed) == {"tools", "ttlMs", "cacheScope", *STATELESS_MEMBERS}
    else:
        assert list(listed) == ["tools"]
    sdk = [t.model_dump(by_alias=True, exclude_none=True) for t in mcp_session.list_tools()]
    assert listed["tools"] == sdk
    ok = _core(raw_peer.tool("echo", {"text": "hi"}))
    assert ok == {
        "content": [{"type": "text", "text": '{"result":{"text":"hi"}}'}],
        "structuredContent": {"result": {"text": "hi"}},
        "isError": False,
    }
    assert ok["structuredContent"] == mcp_session.ok("echo", {"text": "hi"})
    bad = raw_peer.tool("echo", {})
    assert bad["isError"] is True
    assert json.loads(bad["content"][0]["text"])["error"] == mcp_session.error("echo", {})
    unknown = raw_peer.call("tools/call", {"name": "no_such_tool", "arguments": {}})
    assert unknown["error"]["code"] == -32602


STATELESS_ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


def _progress_call(peer: McpPeer, arguments: dict[str, Any]) -> tuple[list[Any], Any]:
    """``echo_drepeat`` with a progressToken: the notifications before the reply, the reply."""
    params: dict[str, Any] = {"name": "echo_drepeat", "arguments": arguments}
    meta: dict[str, Any] = {"progressToken": 7}
    if peer.revision == "2026-07-28":
        meta.update(STATELESS_ENVELOPE)
    params["_meta"] = meta
    peer.send({"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": params})
    notes = []
    while (message := json.loads(peer.line())).get("id") != 99:
        assert message["method"] == "notifications/progress", message
        notes.append(message["params"])
    return notes, message


@pytest.mark.covers("mcp", "echo.repeat")
def test_progress_per_item(raw_peer: McpPeer) -> None:
    """One notification per item, total = count (venom-echo's item_totals), all before the
    result, which still holds every item."""
    notes, reply = _progress_call(raw_peer, {"text": "x", "count": 3, "interval_ms": 200})
    assert reply["result"]["structuredContent"]["result"] == {"count": 3}
    assert len(reply["result"]["structuredContent"]["items"]) == 3
    values = [n["progress"] for n in notes]
    assert values == sorted(set(values))
    assert all(n["progressToken"] == 7 for n in notes)
    # Item notifications (whole numbers; a heartbeat, were the machine slow, is fractional).
    items = [n for n in notes if n["progress"] == int(n["progress"])]
    assert items[-1]["progress"] == 3
    assert all(n["total"] == 3 for n in items)
    # Nothing came after the result: the next line is the answer to a new request.
    raw_peer.send({"jsonrpc": "2.0", "id": 100, "method": "ping", "params": {}})
    assert json.loads(raw_peer.line())["id"] == 100


@pytest.mark.covers("mcp", "echo.repeat")
def test_the_sdk_client_sees_progress_with_the_total(mcp_session: Mcp) -> None:
    """The official client's progress callback gets the items so far and count as total."""
    seen: list[tuple[float, float | None]] = []
    arguments = {"text": "x", "count": 3, "interval_ms": 200}
    result = mcp_session.call_tool("echo_drepeat", arguments, progress=seen)
    assert result.is_error is False
    values = [value for value, _ in seen]
    assert values == sorted(set(values))
    items = [(value, total) for value, total in seen if value == int(value)]
    assert items[-1] == (3.0, 3.0)
    assert {total for _, total in items} == {3}
