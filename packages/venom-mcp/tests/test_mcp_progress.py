"""Progress for long calls (issue 26, rfcs/0004 D-S74): notifications/progress on a token.

In memory against a fake upstream, at every revision: one notification per stream item,
heartbeats while a call runs, none without a token and none after the result. Then the real
adapter process with the official SDK client, whose progress callback is the only thing that
keeps a short idle timeout from ending the call (what the TypeScript SDK's client and the
hosts on it do with ``resetTimeoutOnProgress``).
"""

from __future__ import annotations

import os
import sys
from typing import Any

import anyio
import pytest
from mcp import ClientSession, types
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_testkit import MODEL_PATH, TESTS, WAIT, Daemon, RawPeer, raw_session
from test_mcp_adapter import FakeUpstream, _server

from venom_schema.model import Model

pytestmark = pytest.mark.anyio


async def _call_with_progress(
    peer: RawPeer, name: str, arguments: dict[str, Any], token: str | None = "tok"
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Send ``tools/call`` (with ``token`` as progressToken) and read up to its response:
    the progress notifications' params in order, and the response."""
    params: dict[str, Any] = {"name": name, "arguments": arguments}
    if token is not None:
        params["_meta"] = {"progressToken": token}
    await peer.send(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": peer.params(params)}
    )
    notes: list[dict[str, Any]] = []
    while True:
        message = await peer.receive()
        if message.get("id") == 1:
            return notes, message
        assert message["method"] == "notifications/progress", message
        notes.append(message["params"])


async def _nothing_pending(peer: RawPeer) -> None:
    """The next message is the answer to a new request: no notification followed the result."""
    await peer.request("tools/list")  # RawPeer.request fails on any other message first


def _rising(notes: list[dict[str, Any]]) -> list[float]:
    values = [note["progress"] for note in notes]
    assert values == sorted(set(values)), values  # MCP: progress increases with each one
    assert all(note["progressToken"] == "tok" for note in notes)
    return values


async def test_one_notification_per_item_with_the_total(model: Model, revision: str) -> None:
    """A streaming call reports the items so far, with the total its params fix."""
    upstream = FakeUpstream()
    upstream.between_items = lambda: anyio.sleep(0.1)  # type: ignore[method-assign]
    server = _server(model, upstream, item_totals={"repeat": "count"}, heartbeat=3600)
    async with raw_session(server, revision) as peer:
        notes, reply = await _call_with_progress(peer, "repeat", {"count": 3})
        await _nothing_pending(peer)
    assert reply["result"]["structuredContent"]["result"] == {"count": 3}
    assert _rising(notes) == [1, 2, 3]
    assert [note.get("total") for note in notes] == [3, 3, 3]
    # Items stay in the result (RFC-0004 §5): a notification carries no item data.
    assert all(set(note) <= {"progressToken", "progress", "total"} for note in notes)


async def test_no_total_unless_the_params_fix_it(model: Model) -> None:
    upstream = FakeUpstream()
    upstream.between_items = lambda: anyio.sleep(0.1)  # type: ignore[method-assign]
    async with raw_session(_server(model, upstream, heartbeat=3600)) as peer:
        notes, _ = await _call_with_progress(peer, "repeat", {"count": 2})
    assert _rising(notes) == [1, 2]
    assert all("total" not in note for note in notes)


async def test_items_are_rate_bounded(model: Model) -> None:
    """Items that come faster than the minimum gap are coalesced into the next notification."""
    from venom_mcp import _progress

    upstream = FakeUpstream()
    gap = _progress.MIN_GAP
    _progress.MIN_GAP = 3600.0
    try:
        async with raw_session(_server(model, upstream, heartbeat=3600)) as peer:
            notes, reply = await _call_with_progress(peer, "repeat", {"count": 200})
    finally:
        _progress.MIN_GAP = gap
    assert len(reply["result"]["structuredContent"]["items"]) == 200
    # The first item, then the other 199, counted within the gap, when the stream ends.
    assert _rising(notes) == [1, 200]


async def test_heartbeats_while_a_call_runs(model: Model, revision: str) -> None:
    """A call with no items gets a heartbeat per interval, rising below 1, until its result."""
    upstream = FakeUpstream(block=True)
    async with raw_session(_server(model, upstream, heartbeat=0.05), revision) as peer:
        params = peer.params({"name": "stall", "arguments": {}, "_meta": {"progressToken": "tok"}})
        await peer.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
        notes = [(await peer.receive())["params"] for _ in range(3)]
        upstream.release.set()
        reply = await peer.receive()
        while reply.get("id") != 1:  # heartbeats sent before the release was seen
            notes.append(reply["params"])
            reply = await peer.receive()
        await _nothing_pending(peer)
    assert reply["result"]["isError"] is False
    values = _rising(notes)
    assert values[:3] == [1 / 2, 2 / 3, 3 / 4]
    assert all(v < 1 for v in values)
    assert all(note["message"] == "running" and "total" not in note for note in notes)


async def test_no_progress_without_a_token(model: Model, revision: str) -> None:
    upstream = FakeUpstream(block=True)
    async with raw_session(_server(model, upstream, heartbeat=0.01), revision) as peer:
        await peer.send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": peer.params({"name": "stall", "arguments": {}}),
            }
        )
        with anyio.fail_after(WAIT):
            await upstream.started.wait()
        await anyio.sleep(0.2)  # twenty heartbeat intervals
        upstream.release.set()
        reply = await peer.receive()  # the first message is the result
    assert reply["id"] == 1


async def test_a_failing_call_ends_its_heartbeat(model: Model) -> None:
    """A tool error is returned as before, and nothing follows it."""
    upstream = FakeUpstream(raises=RuntimeError("boom"))
    async with raw_session(_server(model, upstream, heartbeat=0.01)) as peer:
        _, reply = await _call_with_progress(peer, "echo", {"text": "x"})
        await _nothing_pending(peer)
    assert reply["result"]["isError"] is True


# -- the real adapter and the official SDK client ----------------------------------------

#: The idle timeout: a call silent this long fails, as in a host without progress (ten
#: heartbeats of VENOM_MCP_PROGRESS_INTERVAL, so a loaded machine does not end a call early).
IDLE = 3.0


async def _sdk_call(
    socket_path: str, name: str, arguments: dict[str, Any], *, with_progress: bool
) -> tuple[types.CallToolResult, list[tuple[float, float | None]]]:
    """Call through the SDK client; the idle timeout restarts on every progress notification."""
    env = {**os.environ, "VENOM_MCP_PROGRESS_INTERVAL": "0.3"}
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "venom_mcp", str(MODEL_PATH), "--socket", socket_path],
        env=env,
        cwd=str(TESTS),
    )
    seen: list[tuple[float, float | None]] = []
    result: types.CallToolResult | None = None
    async with stdio_client(server) as streams, ClientSession(*streams) as session:
        with anyio.fail_after(WAIT):
            await session.initialize()
        with anyio.CancelScope() as idle:
            idle.deadline = anyio.current_time() + IDLE

            async def on_progress(
                progress: float, total: float | None, message: str | None
            ) -> None:
                seen.append((progress, total))
                idle.deadline = anyio.current_time() + IDLE

            result = await session.call_tool(
                name, arguments, progress_callback=on_progress if with_progress else None
            )
    if result is None:  # outside the client's task groups, so it is not wrapped
        raise TimeoutError(f"{name} was silent for {IDLE} s")
    return result, seen


async def test_sdk_client_kept_alive_by_heartbeats(daemon: Daemon) -> None:
    """A slow call that does not stream outlives the idle timeout only through heartbeats."""
    result, seen = await _sdk_call(
        daemon.socket_path, "stall", {"seconds": 3 * IDLE}, with_progress=True
    )
    assert result.is_error is False
    assert len(seen) >= 2
    assert [p for p, _ in seen] == sorted(p for p, _ in seen)
    with pytest.raises(TimeoutError):  # the same call with no progress: the timeout is real
        await _sdk_call(daemon.socket_path, "stall", {"seconds": 3 * IDLE}, with_progress=False)


async def test_sdk_client_sees_each_item(daemon: Daemon) -> None:
    """A slow stream reports each item, and the result holds them all."""
    arguments = {"count": 3, "interval": IDLE * 0.8}
    result, seen = await _sdk_call(daemon.socket_path, "repeat", arguments, with_progress=True)
    assert result.is_error is False
    assert result.structured_content is not None
    assert len(result.structured_content["items"]) == 3
    assert [p for p, _ in seen if p == int(p)] == [1, 2, 3]
