"""Raw JSON-RPC lines over the adapter's pipes: what the SDK client hides.

Every line the adapter writes to stdout is checked to be a JSON-RPC 2.0 message.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from typing import Any

import anyio
import pytest
from mcp_testkit import (
    MODEL_PATH,
    TESTS,
    WAIT,
    Daemon,
    adapter_command,
    raw_adapter,
    wait_for_daemon,
)

pytestmark = pytest.mark.anyio


def error_of(reply: dict[str, Any]) -> dict[str, Any]:
    result = reply["result"]
    assert result["isError"] is True
    assert "structuredContent" not in result
    error: dict[str, Any] = json.loads(result["content"][0]["text"])["error"]
    return error


async def test_envelope_errors_and_clean_exit(socket_path: str) -> None:
    """RFC-0004 §5: bad envelopes get JSON-RPC errors; unknown tool is -32602; EOF exits 0."""
    async with raw_adapter(socket_path) as mcp:
        init = await mcp.initialize()
        assert init["result"]["serverInfo"]["name"] == "venom-echo"
        assert "tools" in init["result"]["capabilities"]
        await mcp.send_line(b"this is not json\n")
        assert (await mcp.receive()) == {
            "jsonrpc": "2.0",
            "id": None,
            "error": {"code": -32700, "message": "Parse error"},
        }
        await mcp.send_line(b'{"not": "json-rpc"}\n')
        assert (await mcp.receive())["error"]["code"] == -32600
        unknown = await mcp.call_tool("pane_dsplit", {})
        assert unknown["error"]["code"] == -32602
        assert await mcp.close_stdin_and_wait() == 0


async def test_success_bytes_match_the_rfc(daemon: Daemon) -> None:
    """RFC-0004 §5: the tools/call result is exactly the RFC's example."""
    async with raw_adapter(daemon.socket_path) as mcp:
        await mcp.initialize()
        reply = await mcp.call_tool("echo", {"text": "hi"})
        assert reply["result"] == {
            "content": [{"type": "text", "text": '{"result":{"text":"hi"}}'}],
            "structuredContent": {"result": {"text": "hi"}},
            "isError": False,
        }
        assert await mcp.close_stdin_and_wait() == 0


async def test_mcp_cancel_reaches_the_daemon(daemon: Daemon) -> None:
    """RFC-0004 §5: notifications/cancelled maps to an RFC-0002 cancel the daemon receives."""
    async with raw_adapter(daemon.socket_path) as mcp:
        await mcp.initialize()
        call = {"name": "stall", "arguments": {"seconds": 30}}
        await mcp.send({"jsonrpc": "2.0", "id": 77, "method": "tools/call", "params": call})
        await wait_for_daemon(daemon.socket_path, "active", {"stalls": 1})
        cancelled = {"requestId": 77, "reason": "test"}
        await mcp.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": cancelled})
        await wait_for_daemon(daemon.socket_path, "cancels", {"verbs": ["stall"]})
        await wait_for_daemon(daemon.socket_path, "active", {"stalls": 0})
        # No answer is sent for the cancelled request: the next message is the next reply.
        after = await mcp.call_tool("echo", {"text": "next"})
        assert after["result"]["isError"] is False
        assert all(m.get("id") != 77 for m in mcp.seen)
        assert await mcp.close_stdin_and_wait() == 0


async def test_stdin_eof_mid_call_cancels_and_exits(daemon: Daemon) -> None:
    """RFC-0004 §5: stdin EOF cancels in-flight calls upstream and the adapter exits 0."""
    async with raw_adapter(daemon.socket_path) as mcp:
        await mcp.initialize()
        call = {"name": "stall", "arguments": {"seconds": 30}}
        await mcp.send({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": call})
        await wait_for_daemon(daemon.socket_path, "active", {"stalls": 1})
        assert await mcp.close_stdin_and_wait() == 0
    await wait_for_daemon(daemon.socket_path, "cancels", {"verbs": ["stall"]})


async def test_daemon_not_running_then_started(socket_path: str) -> None:
    """RFC-0002 §7.2: unavailable.not_running while down; the adapter recovers once it starts."""
    async with raw_adapter(socket_path) as mcp:
        await mcp.initialize()
        down = error_of(await mcp.call_tool("echo", {"text": "x"}))
        assert down["code"] == "unavailable.not_running"
        assert down["data"] == {"socket": socket_path}
        daemon = Daemon(socket_path).start()
        try:
            up = await mcp.call_tool("echo", {"text": "x"})
            assert up["result"]["structuredContent"] == {"result": {"text": "x"}}
            assert await mcp.close_stdin_and_wait() == 0
        finally:
            daemon.close()


async def test_streaming_needs_the_cancel_capability(socket_path: str) -> None:
    """RFC-0004 §5: without cancel negotiated, streaming calls fail before dispatch."""
    daemon = Daemon(socket_path, "--no-cancel").start()
    try:
        async with raw_adapter(socket_path) as mcp:
            await mcp.initialize()
            refused = error_of(await mcp.call_tool("repeat", {"count": 1}))
            assert refused["code"] == "unsupported.capability"
            plain = await mcp.call_tool("echo", {"text": "still fine"})
            assert plain["result"]["isError"] is False
            assert await mcp.close_stdin_and_wait() == 0
    finally:
        daemon.close()


async def test_token_file_beside_the_socket_is_sent(daemon: Daemon) -> None:
    """rfcs/0005-local-grants.md §3: the adapter sends <socket stem>.token in hello.auth."""
    token_file = daemon.socket_path.removesuffix(".sock") + ".token"
    token = "0123456789abcdef" * 4
    async with raw_adapter(daemon.socket_path) as mcp:
        await mcp.initialize()
        anonymous = await mcp.call_tool("whoami", {})
        assert anonymous["result"]["structuredContent"] == {"result": {"token": None}}
        with open(token_file, "w", encoding="utf-8") as f:
            f.write(token + "\n")
        owner = await mcp.call_tool("whoami", {})
        assert owner["result"]["structuredContent"] == {"result": {"token": token}}
        assert await mcp.close_stdin_and_wait() == 0


async def test_max_grant_flag(daemon: Daemon) -> None:
    """rfcs/0005-local-grants.md §5: --max-grant read hides write verbs; calling one is -32602."""
    async with raw_adapter(daemon.socket_path, "--max-grant", "read") as mcp:
        await mcp.initialize()
        listed = await mcp.request("tools/list")
        names = {t["name"] for t in listed["result"]["tools"]}
        assert "set__value" not in names
        assert "echo" in names
        refused = await mcp.call_tool("set__value", {"value": "v"})
        assert refused["error"]["code"] == -32602
        assert await mcp.close_stdin_and_wait() == 0


@pytest.mark.parametrize(
    "argv",
    [["--max-grant", "root"], ["--bogus"], ["--socket"], ["--socket", "a", "--socket", "b"]],
)
def test_bad_command_line_exits_2(argv: list[str]) -> None:
    """A bad command line exits 2 with a message on stderr and nothing on stdout."""
    cmd = adapter_command("/tmp/unused.sock")[:4] + argv
    proc = subprocess.run(cmd, capture_output=True, timeout=WAIT, cwd=str(TESTS), check=False)
    assert proc.returncode == 2
    assert proc.stdout == b""
    assert b"usage:" in proc.stderr


def test_help_exits_0() -> None:
    """--help prints the usage and exits 0."""
    cmd = [sys.executable, "-m", "venom_mcp", str(MODEL_PATH), "--help"]
    proc = subprocess.run(cmd, capture_output=True, timeout=WAIT, check=False)
    assert proc.returncode == 0
    assert b"--max-grant" in proc.stdout


def test_unusable_model_exits_2(tmp_path: Any) -> None:
    """A model no catalog can be built from exits 2 with a message on stderr, none on stdout."""
    bad = tmp_path / "model.json"
    bad.write_text('{"format": 1, "tool": "venom-echo", "verbs": [{"name": "x"}]}')
    cmd = [sys.executable, "-m", "venom_mcp", str(bad), "--socket", "/tmp/unused.sock"]
    proc = subprocess.run(cmd, input=b"", capture_output=True, timeout=WAIT, check=False)
    assert proc.returncode == 2
    assert proc.stdout == b""
    assert b"cannot build the MCP catalog" in proc.stderr


async def test_stuck_daemon_does_not_hang_the_adapter(socket_path: str) -> None:
    """A daemon that never answers hello cannot keep the adapter from exiting on stdin EOF."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(socket_path)
    listener.listen(8)  # connections complete in the backlog; nobody ever reads them
    try:
        async with raw_adapter(socket_path) as mcp:
            await mcp.initialize()
            call = {"name": "echo", "arguments": {"text": "x"}}
            await mcp.send({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": call})
            await anyio.sleep(0.2)
            assert await mcp.close_stdin_and_wait() == 0
    finally:
        listener.close()
