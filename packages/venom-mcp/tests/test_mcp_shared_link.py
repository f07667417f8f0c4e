"""The adapter's one shared upstream connection: pipelining, per-call cancel, daemon restarts."""

from __future__ import annotations

import json
from typing import Any, cast

import anyio
import pytest
from mcp_testkit import WAIT, Daemon, RawAdapter, daemon_call, raw_adapter, wait_for_daemon

from venom_mcp._dispatch import DaemonUpstream
from venom_schema.model import Verb

pytestmark = pytest.mark.anyio

#: All the upstream reads of a verb: its name and whether it streams.
ECHO = cast("Verb", {"name": "echo", "streams": False})


def tool_result(reply: dict[str, Any]) -> Any:
    """The JSON value of a tools/call reply's text block."""
    return json.loads(reply["result"]["content"][0]["text"])


async def send_call(mcp: RawAdapter, id_: int, name: str, arguments: dict[str, Any]) -> None:
    params = {"name": name, "arguments": arguments}
    await mcp.send({"jsonrpc": "2.0", "id": id_, "method": "tools/call", "params": params})


async def receive_all(mcp: RawAdapter, count: int) -> dict[int, dict[str, Any]]:
    """The next ``count`` replies, by id (they may come in any order)."""
    replies: dict[int, dict[str, Any]] = {}
    while len(replies) < count:
        reply = await mcp.receive()
        replies[reply["id"]] = reply
    return replies


async def test_concurrent_calls_share_one_connection(daemon: Daemon) -> None:
    """RFC-0002 §4.3: concurrent tool calls are pipelined on one connection to the daemon."""
    async with raw_adapter(daemon.socket_path) as mcp:
        await mcp.initialize()
        for n in range(20):
            await send_call(mcp, 1000 + n, "echo", {"text": f"t{n}"})
        replies = await receive_all(mcp, 20)
        for n in range(20):
            assert tool_result(replies[1000 + n]) == {"result": {"text": f"t{n}"}}
        after = await mcp.call_tool("echo", {"text": "later"})
        assert after["result"]["isError"] is False
        assert await mcp.close_stdin_and_wait() == 0
    assert daemon_call(daemon.socket_path, "echo_connections") == {"count": 1}


async def test_cancel_ends_only_that_call(daemon: Daemon) -> None:
    """RFC-0004 §5 / RFC-0002 §4.4: an MCP cancel sends a cancel for that request only; the
    other call on the shared connection completes."""
    async with raw_adapter(daemon.socket_path) as mcp:
        await mcp.initialize()
        await send_call(mcp, 1, "stall", {"seconds": 0.5})
        await send_call(mcp, 2, "stall", {"seconds": 30})
        await wait_for_daemon(daemon.socket_path, "active", {"stalls": 2})
        cancelled = {"requestId": 2, "reason": "test"}
        await mcp.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": cancelled})
        survivor = await mcp.receive()
        assert survivor["id"] == 1
        assert survivor["result"]["isError"] is False
        await wait_for_daemon(daemon.socket_path, "cancels", {"verbs": ["stall"]})
        assert await mcp.close_stdin_and_wait() == 0


async def test_daemon_restart_between_calls(socket_path: str) -> None:
    """RFC-0002 §7.2: after the daemon restarts between two calls, the next call succeeds on
    a fresh connection (the dead one was seen closing, so the call is sent once, fresh)."""
    daemon = Daemon(socket_path).start()
    try:
        async with raw_adapter(socket_path) as mcp:
            await mcp.initialize()
            first = await mcp.call_tool("echo", {"text": "one"})
            assert first["result"]["isError"] is False
            daemon.close()
            daemon = Daemon(socket_path).start()
            second = await mcp.call_tool("echo", {"text": "two"})
            assert tool_result(second) == {"result": {"text": "two"}}
            assert await mcp.close_stdin_and_wait() == 0
    finally:
        daemon.close()


async def test_daemon_killed_mid_call(socket_path: str) -> None:
    """RFC-0002 §7.2: an in-flight call fails unavailable.disconnected when the daemon dies;
    with no daemon the next call is unavailable.not_running; once one starts, calls work."""
    daemon = Daemon(socket_path).start()
    try:
        async with raw_adapter(socket_path) as mcp:
            await mcp.initialize()
            await send_call(mcp, 5, "stall", {"seconds": 30})
            await wait_for_daemon(socket_path, "active", {"stalls": 1})
            assert daemon.proc is not None
            daemon.proc.kill()
            lost = await mcp.receive()
            assert lost["id"] == 5
            assert tool_result(lost)["error"]["code"] == "unavailable.disconnected"
            daemon.close()
            down = await mcp.call_tool("echo", {"text": "x"})
            assert tool_result(down)["error"]["code"] == "unavailable.not_running"
            daemon = Daemon(socket_path).start()
            up = await mcp.call_tool("echo", {"text": "back"})
            assert tool_result(up) == {"result": {"text": "back"}}
            assert await mcp.close_stdin_and_wait() == 0
    finally:
        daemon.close()


async def test_upstream_connects_lazily_and_closes_on_exit(daemon: Daemon) -> None:
    """No connection before the first call; concurrent first calls open one; exit closes it."""
    upstream = DaemonUpstream(daemon.socket_path, client_name="venom-echo-mcp", client_version="0")
    async with upstream:
        assert daemon_call(daemon.socket_path, "echo_connections") == {"count": 0}
        results: list[dict[str, Any]] = []

        async def one(n: int) -> None:
            results.append(await upstream.invoke(ECHO, {"text": str(n)}))

        with anyio.fail_after(WAIT):
            async with anyio.create_task_group() as tg:
                for n in range(5):
                    tg.start_soon(one, n)
        assert sorted(r["result"]["text"] for r in results) == ["0", "1", "2", "3", "4"]
    assert daemon_call(daemon.socket_path, "echo_connections") == {"count": 1}
    with pytest.raises(RuntimeError, match="outside"):
        await upstream.invoke(ECHO, {"text": "closed"})
