"""Shared fixtures for the server tests: short socket dirs, a threaded server, blocking peers."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from demo_daemon import PATH as DEMO_DAEMON
from demo_daemon import build_server

from venom_proto import Call, Server, VenomError, VerbHandler

TIMEOUT = 5.0
#: Subprocess daemons start a Python interpreter each; allow for a loaded CI machine.
SPAWN_TIMEOUT = 15.0

#: RFC-0002 4.4's two example items, emitted by the test tool's ``events`` verb.
EVENT_ITEMS = (
    {"seq": 41, "type": "pane.created", "data": {"pane": "p3"}},
    {"seq": 42, "type": "pane.exited", "data": {"pane": "p3", "status": 0}},
)


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """A fresh 0700 directory directly under /tmp: sun_path allows only 107 bytes."""
    path = Path(tempfile.mkdtemp(prefix="vp", dir="/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def sock_path(short_dir: Path) -> str:
    return str(short_dir / "t.sock")


# -- the test tool --------------------------------------------------------------------------


def _echo(call: Call, params: dict[str, Any]) -> Any:
    return {"text": params.get("text")}


async def _sleep(call: Call, params: dict[str, Any]) -> Any:
    await asyncio.sleep(params["ms"] / 1000)
    return {"slept": params["ms"]}


async def _events(call: Call, params: dict[str, Any]) -> Any:
    for item in EVENT_ITEMS:
        await call.emit(item)
    await asyncio.sleep(3600)  # a subscription: ends by cancel or shutdown only


async def _count(call: Call, params: dict[str, Any]) -> Any:
    for i in range(params["n"]):
        await call.emit(i)
    return {"count": params["n"]}


def _fail(call: Call, params: dict[str, Any]) -> Any:
    raise VenomError("not_found.thing", "no such thing", {"thing": params.get("thing")})


def _boom(call: Call, params: dict[str, Any]) -> Any:
    raise RuntimeError("secret detail")


def _big(call: Call, params: dict[str, Any]) -> Any:
    return "x" * params["size"]


async def _abig(call: Call, params: dict[str, Any]) -> Any:
    await asyncio.sleep(0)
    return "x" * params["size"]


def _whoami(call: Call, params: dict[str, Any]) -> Any:
    conn = call.connection
    return {
        "uid": conn.uid,
        "pid": conn.pid,
        "protocol": conn.protocol,
        "caps": sorted(conn.caps),
        "auth": conn.hello.get("auth"),
        "id": call.id,
        "verb": call.verb,
    }


async def _afail(call: Call, params: dict[str, Any]) -> Any:
    await asyncio.sleep(0)
    if params.get("internal"):
        raise KeyError("hidden")
    raise VenomError("conflict.busy", "busy")


async def _emit_plain(call: Call, params: dict[str, Any]) -> Any:
    await call.emit(1)  # not a streaming verb: a bug in the handler


TEST_VERBS = {
    "echo": VerbHandler(_echo),
    "sleep": VerbHandler(_sleep),
    "events": VerbHandler(_events, streams=True),
    "count": VerbHandler(_count, streams=True),
    "fail": VerbHandler(_fail),
    "boom": VerbHandler(_boom),
    "big": VerbHandler(_big),
    "abig": VerbHandler(_abig),
    "gated": VerbHandler(_echo, capability="test-tool.gated"),
    "whoami": VerbHandler(_whoami),
    "afail": VerbHandler(_afail),
    "emit_plain": VerbHandler(_emit_plain),
}


def make_tool_server(**options: Any) -> Server:
    """A server for tool ``test-tool`` with the verbs above; ``options`` go to `Server`."""
    return Server("test-tool", "1.2.3", TEST_VERBS, **options)


# -- running a server in a thread -----------------------------------------------------------


class ServerThread:
    """Runs a `Server` on its own event loop in a thread; `stop` uses its shutdown path."""

    def __init__(self, server: Server, path: str) -> None:
        self.server = server
        self.path = path
        self.error: BaseException | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._main, daemon=True)

    def _main(self) -> None:
        try:
            asyncio.run(self.server.run(self.path, ready=lambda _: self._ready.set()))
        except BaseException as exc:
            self.error = exc
            self._ready.set()

    def start(self) -> ServerThread:
        self._thread.start()
        assert self._ready.wait(TIMEOUT), "server did not start"
        if self.error is not None:
            raise self.error
        return self

    def stop(self) -> None:
        self.server.stop()
        self._thread.join(TIMEOUT)
        assert not self._thread.is_alive(), "server did not shut down"
        if self.error is not None:
            raise self.error


@pytest.fixture
def serve(sock_path: str) -> Iterator[Any]:
    """``serve(server=None, **options)`` runs a server (default: the test tool) on ``sock_path``."""
    running: list[ServerThread] = []

    def start(server: Server | None = None, **options: Any) -> ServerThread:
        thread = ServerThread(server or make_tool_server(**options), sock_path).start()
        running.append(thread)
        return thread

    yield start
    for thread in running:
        thread.stop()


@pytest.fixture
def demo(serve: Any) -> ServerThread:
    """The venom-echo demo server, in-process."""
    thread: ServerThread = serve(build_server())
    return thread


# -- a blocking peer ------------------------------------------------------------------------


class Peer:
    """A blocking client socket with bounded reads."""

    def __init__(self, path: str, timeout: float = TIMEOUT) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self._buf = b""

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def request(self, obj: Any) -> None:
        self.send(orjson.dumps(obj) + b"\n")

    def read_exact(self, n: int) -> bytes:
        while len(self._buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError(f"closed after {len(self._buf)} of {n} bytes")
            self._buf += chunk
        data, self._buf = self._buf[:n], self._buf[n:]
        return data

    def line(self) -> bytes:
        while b"\n" not in self._buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError(f"closed mid-line: {self._buf!r}")
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        return line + b"\n"

    def reply(self) -> Any:
        return orjson.loads(self.line())

    def call(self, obj: Any) -> Any:
        self.request(obj)
        return self.reply()

    def rest(self) -> bytes:
        """Everything until the server closes (raises on timeout)."""
        data = self._buf
        self._buf = b""
        while chunk := self.sock.recv(65536):
            data += chunk
        return data

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def peers() -> Iterator[Any]:
    """``peers(path)`` opens a `Peer`, closed after the test."""
    opened: list[Peer] = []

    def connect(path: str, timeout: float = TIMEOUT) -> Peer:
        peer = Peer(path, timeout)
        opened.append(peer)
        return peer

    yield connect
    for peer in opened:
        peer.close()


@pytest.fixture
def hello_cancel() -> dict[str, Any]:
    """A hello request (id 0) asking for the ``cancel`` capability."""
    return {"id": 0, "verb": "hello", "params": {"proto": [1], "caps": ["cancel"]}}


@pytest.fixture
def event_items() -> tuple[dict[str, Any], ...]:
    """The two items the test tool's ``events`` verb emits (RFC-0002 4.4's example)."""
    return EVENT_ITEMS


# -- daemon subprocesses --------------------------------------------------------------------

#: A daemon with one endless streaming verb, for signal tests: ``python -c SRC <socket>``.
STREAM_DAEMON = """
import asyncio, sys
from venom_proto import Server, VerbHandler

async def events(call, params):
    await call.emit({"n": 1})
    await asyncio.sleep(3600)

verbs = {"events": VerbHandler(events, streams=True)}
Server("test-tool", "1.2.3", verbs).serve_forever(sys.argv[1])
"""


class Daemons:
    """Starts ``python <args>`` subprocesses and reaps them (bounded) after the test."""

    def __init__(self) -> None:
        self.procs: list[subprocess.Popen[bytes]] = []

    def start(self, *args: str) -> subprocess.Popen[bytes]:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        proc = subprocess.Popen(
            [sys.executable, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
        )
        self.procs.append(proc)
        return proc

    def demo(self, path: str) -> subprocess.Popen[bytes]:
        return self.start(DEMO_DAEMON, "--socket", path)

    def streamer(self, path: str) -> subprocess.Popen[bytes]:
        return self.start("-c", STREAM_DAEMON, path)

    @staticmethod
    def wait_listening(path: str, proc: subprocess.Popen[bytes]) -> None:
        """Poll until ``path`` accepts connections; fail if ``proc`` exits first."""
        deadline = time.monotonic() + SPAWN_TIMEOUT
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise AssertionError(f"daemon exited with {proc.returncode}")
            try:
                with socket.socket(socket.AF_UNIX) as probe:
                    probe.connect(path)
                    return
            except OSError:
                time.sleep(0.02)
        raise AssertionError(f"nothing listening on {path}")

    @staticmethod
    def finish(proc: subprocess.Popen[bytes]) -> tuple[int, bytes]:
        """Wait (bounded) for a daemon to exit; return its status and stderr."""
        _, err = proc.communicate(timeout=SPAWN_TIMEOUT)
        return proc.returncode, err

    def reap(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
            proc.communicate(timeout=TIMEOUT)


@pytest.fixture
def daemons() -> Iterator[Daemons]:
    helper = Daemons()
    yield helper
    helper.reap()
