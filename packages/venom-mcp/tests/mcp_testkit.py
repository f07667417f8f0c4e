"""Helpers for the venom-mcp tests: the fixture model, bounded waits, an in-memory raw peer."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp.types as mt
from anyio.abc import Process
from mcp.server.lowlevel import Server
from mcp.shared.memory import create_client_server_memory_streams
from mcp.shared.message import SessionMessage

from venom_gen.testing import DaemonProcess
from venom_schema.model import Model

FIXTURES = Path(__file__).parent / "fixtures"
MODEL_PATH = FIXTURES / "model.json"
WAIT = 10.0  # seconds: the bound on every single wait in these tests

INITIALIZE: dict[str, Any] = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "test", "version": "0"},
}

#: The MCP revisions the adapter is held to (rfcs/0004 D-S70): two with the ``initialize``
#: handshake, and the stateless one, where every request carries `envelope` in ``_meta``.
REVISIONS = ("2025-06-18", "2025-11-25", "2026-07-28")
STATELESS = frozenset({"2026-07-28"})


def envelope(revision: str) -> dict[str, Any]:
    """The 2026-07-28 per-request ``_meta`` members: version, client info and capabilities."""
    return {
        "io.modelcontextprotocol/protocolVersion": revision,
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }


def load_model() -> Model:
    """The fixture normalized model (venom-echo's verbs plus test verbs)."""
    model: Model = json.loads(MODEL_PATH.read_text())
    return model


class RawPeer:
    """Speaks JSON-RPC dicts to an in-process server over memory streams."""

    def __init__(self, read: Any, write: Any, revision: str = "2025-06-18") -> None:
        self._read = read
        self._write = write
        self._next_id = 100
        self.revision = revision

    def params(self, params: dict[str, Any] | None) -> dict[str, Any] | None:
        """``params`` with the revision's ``_meta`` envelope added when it is stateless."""
        if self.revision not in STATELESS:
            return params
        out = dict(params or {})
        out["_meta"] = {**envelope(self.revision), **out.get("_meta", {})}
        return out

    async def send(self, message: dict[str, Any]) -> None:
        parsed = mt.jsonrpc_message_adapter.validate_python(message)
        await self._write.send(SessionMessage(parsed))

    async def receive(self) -> dict[str, Any]:
        with anyio.fail_after(WAIT):
            item = await self._read.receive()
        assert isinstance(item, SessionMessage), item
        dumped: dict[str, Any] = json.loads(
            item.message.model_dump_json(by_alias=True, exclude_unset=True)
        )
        return dumped

    async def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send a request and return its response (the whole JSON-RPC message)."""
        self._next_id += 1
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next_id, "method": method}
        params = self.params(params)
        if params is not None:
            msg["params"] = params
        await self.send(msg)
        reply = await self.receive()
        assert reply["id"] == self._next_id
        return reply

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        """``tools/call``; returns the JSON-RPC message (``result`` or ``error``)."""
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        return await self.request("tools/call", params)


@asynccontextmanager
async def raw_session(server: Server[Any], revision: str = "2025-06-18") -> AsyncIterator[RawPeer]:
    """A raw peer talking to ``server`` in memory at ``revision``: initialized, or for a
    stateless revision sending the ``_meta`` envelope on every request instead."""
    async with (
        create_client_server_memory_streams() as (client, srv),
        anyio.create_task_group() as tg,
    ):
        tg.start_soon(server.run, srv[0], srv[1], server.create_initialization_options())
        peer = RawPeer(client[0], client[1], revision)
        if revision not in STATELESS:
            init = await peer.request("initialize", {**INITIALIZE, "protocolVersion": revision})
            assert init["result"]["protocolVersion"] == revision, init
            await peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        yield peer
        tg.cancel_scope.cancel()


def tool_text(result: dict[str, Any]) -> Any:
    """The JSON value in a tool result's single text block."""
    content = result["content"]
    assert len(content) == 1
    assert content[0]["type"] == "text"
    return json.loads(content[0]["text"])


# -- real processes ------------------------------------------------------------------------

TESTS = Path(__file__).parent
DAEMON_SCRIPT = TESTS / "mcp_test_daemon.py"


def adapter_command(socket_path: str, *extra: str) -> list[str]:
    """The adapter as a process: ``python -m venom_mcp MODEL --socket PATH ...``."""
    return [sys.executable, "-m", "venom_mcp", str(MODEL_PATH), "--socket", socket_path, *extra]


class Daemon(DaemonProcess):
    """The test daemon on ``socket_path``, through the test kit (`close` stops it and removes
    its private directories)."""

    def __init__(self, socket_path: str, *flags: str) -> None:
        super().__init__(
            tool="venom-echo",
            argv=[sys.executable, str(DAEMON_SCRIPT), "--socket", socket_path, *flags],
            socket=socket_path,
            owner_token=False,  # venom_proto's bare server writes none
            timeout=WAIT,
        )
        self.socket_path = socket_path


class RawAdapter:
    """The adapter process driven by raw JSON-RPC lines; every stdout line must be JSON-RPC."""

    def __init__(self, process: Process) -> None:
        self.process = process
        self._buffer = b""
        self._next_id = 0
        #: Every message read from stdout, in order.
        self.seen: list[dict[str, Any]] = []

    async def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        await self.process.stdin.send(json.dumps(message).encode() + b"\n")

    async def send_line(self, line: bytes) -> None:
        assert self.process.stdin is not None
        await self.process.stdin.send(line)

    async def receive(self) -> dict[str, Any]:
        """The next stdout message; fails unless the line is a JSON-RPC 2.0 object."""
        assert self.process.stdout is not None
        with anyio.fail_after(WAIT):
            while b"\n" not in self._buffer:
                self._buffer += await self.process.stdout.receive()
        line, self._buffer = self._buffer.split(b"\n", 1)
        message = json.loads(line)
        assert isinstance(message, dict)
        assert message.get("jsonrpc") == "2.0", line
        self.seen.append(message)
        return message

    async def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self._next_id += 1
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next_id, "method": method}
        if params is not None:
            msg["params"] = params
        await self.send(msg)
        reply = await self.receive()
        assert reply.get("id") == self._next_id, reply
        return reply

    async def initialize(self) -> dict[str, Any]:
        reply = await self.request("initialize", INITIALIZE)
        await self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return reply

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return await self.request("tools/call", {"name": name, "arguments": arguments})

    async def close_stdin_and_wait(self) -> int:
        """Close stdin and return the exit status; stdout must hold nothing but JSON-RPC."""
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        await self.process.stdin.aclose()
        with anyio.fail_after(WAIT):
            try:
                while True:
                    self._buffer += await self.process.stdout.receive()
            except anyio.EndOfStream:
                pass
            status = await self.process.wait()
        for line in self._buffer.splitlines():
            assert json.loads(line)["jsonrpc"] == "2.0", line
        return status


@asynccontextmanager
async def raw_adapter(socket_path: str, *extra: str) -> AsyncIterator[RawAdapter]:
    """A running adapter process; killed on exit if still alive."""
    process = await anyio.open_process(
        adapter_command(socket_path, *extra), stderr=None, cwd=str(TESTS)
    )
    try:
        yield RawAdapter(process)
    finally:
        if process.returncode is None:
            process.kill()
            with anyio.fail_after(WAIT), anyio.CancelScope(shield=True):
                await process.wait()
        await process.aclose()


def run_on_files(directory: Path, stdin_data: bytes) -> tuple[int, bytes]:
    """Run the adapter with stdin and stdout regular files (its blocking transport) until it
    exits; return its status and what it wrote."""
    (directory / "in").write_bytes(stdin_data)
    with (directory / "in").open("rb") as stdin, (directory / "out").open("wb") as stdout:
        proc = subprocess.run(
            adapter_command(str(directory / "none.sock")),
            stdin=stdin,
            stdout=stdout,
            timeout=WAIT,
            cwd=str(TESTS),
            check=False,
        )
    return proc.returncode, (directory / "out").read_bytes()


def daemon_call(socket_path: str, verb: str, params: dict[str, Any] | None = None) -> Any:
    """One direct call to the daemon (bypassing the adapter)."""
    from venom_proto.sync_client import SyncClient

    with SyncClient(socket_path, client_name="test", client_version="0", timeout=WAIT) as c:
        return c.call(verb, params or {})


async def wait_for_daemon(socket_path: str, verb: str, expected: Any) -> None:
    """Poll ``verb`` on the daemon until it returns ``expected`` (bounded by ``WAIT``)."""
    with anyio.fail_after(WAIT):
        while (got := await anyio.to_thread.run_sync(daemon_call, socket_path, verb)) != expected:
            await anyio.sleep(0.02)
    assert got == expected
