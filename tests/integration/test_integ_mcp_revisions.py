"""`venom-echo mcp` at each MCP revision it serves, and its progress (rfcs/0004 D-S70..D-S74).

The SDK client's revisions come from the ``mcp_session`` fixture (2025-11-25, 2026-07-28);
2025-06-18, which the client no longer offers, is driven here with raw JSON-RPC lines.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from integration_kit import Daemon
from integration_mcp import Mcp

from venom_gen.testing import McpPeer


@pytest.fixture
def raw_peer(daemon: Daemon) -> Iterator[McpPeer]:
    """``venom-echo mcp`` initialized at 2025-06-18 with raw JSON-RPC."""
    with McpPeer(
        [daemon.command[0], "mcp"], env=daemon.env, log=daemon.root / "mcp-raw.err"
    ) as peer:
        assert peer.init["result"]["protocolVersion"] == "2025-06-18"
        yield peer


@pytest.mark.covers("mcp", "echo")
def test_the_catalog_and_results_are_the_same_at_2025_06_18(
    raw_peer: McpPeer, mcp_session: Mcp
) -> None:
    """The same tools in the same order, the same success and error results, as the SDK
    client sees at its revision."""
    listed = raw_peer.call("tools/list", {})["result"]
    assert list(listed) == ["tools"]
    sdk = [t.model_dump(by_alias=True, exclude_none=True) for t in mcp_session.list_tools()]
    assert listed["tools"] == sdk
    ok = raw_peer.tool("echo", {"text": "hi"})
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


def _progress_call(peer: McpPeer, arguments: dict[str, Any]) -> tuple[list[Any], Any]:
    """``echo_drepeat`` with a progressToken: the notifications before the reply, the reply."""
    params = {"name": "echo_drepeat", "arguments": arguments, "_meta": {"progressToken": 7}}
    peer.send({"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": params})
    notes = []
    while (message := json.loads(peer.line())).get("id") != 99:
        assert message["method"] == "notifications/progress", message
        notes.append(message["params"])
    return notes, message


@pytest.mark.covers("mcp", "echo.repeat")
def test_progress_per_item_at_2025_06_18(raw_peer: McpPeer) -> None:
    """One notification per item, total = count (venom-echo's item_totals), all before the
    result, which still holds every item."""
    notes, reply = _progress_call(raw_peer, {"text": "x", "count": 3, "interval_ms": 200})
    assert reply["result"]["structuredContent"]["result"] == {"count": 3}
    assert len(reply["result"]["structuredContent"]["items"]) == 3
    values = [n["progress"] for n in notes]
    assert values == sorted(set(values))
    assert values[-1] == 3
    assert all(n["progressToken"] == 7 and n["total"] == 3 for n in notes)
    assert raw_peer.call("ping", {})["result"] == {}  # nothing came after the result


@pytest.mark.covers("mcp", "echo.repeat")
def test_the_sdk_client_sees_progress_with_the_total(mcp_session: Mcp) -> None:
    """The official client's progress callback gets the items so far and count as total."""
    seen: list[tuple[float, float | None]] = []
    arguments = {"text": "x", "count": 3, "interval_ms": 200}
    result = mcp_session.call_tool("echo_drepeat", arguments, progress=seen)
    assert result.is_error is False
    values = [value for value, _ in seen]
    assert values == sorted(set(values))
    assert values[-1] == 3
    assert {total for _, total in seen} == {3}
