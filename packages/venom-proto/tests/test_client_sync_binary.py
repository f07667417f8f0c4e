"""SyncClient in binary mode (RFC-0002 §5): the demo's byte frames, PING, CLOSE, a refusal."""

from __future__ import annotations

import socket
import struct
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from venom_proto import SyncClient, VenomError
from venom_proto._core.frames import CLOSE, CONTROL, ERROR, HELLO, HELLO_OK, PING, PONG, Frame
from venom_proto.stdjson import std_dumps, std_loads

WAIT = 5.0
Script = Callable[[socket.socket], None]
ECHO_BYTES = 0x0100


def connect(path: str, **kw: Any) -> SyncClient:
    kw.setdefault("timeout", WAIT)
    return SyncClient(path, client_name="test", client_version="0", binary=True, **kw)


def test_frames_and_verbs_against_the_demo(demo: Any, sock_path: str) -> None:
    with connect(sock_path, caps=("cancel", "venom-echo.bytes")) as c:
        assert c.hello_result["caps"] == ["cancel", "venom-echo.bytes"]
        stream = c.open_stream()
        assert stream % 2 == 1
        assert c.open_stream() == stream + 2
        c.send_frame(ECHO_BYTES, stream, b"\x00\xffhi")
        assert c.call("echo", {"text": "hi"}) == {"text": "hi"}  # the frame waits meanwhile
        assert c.receive_frame() == Frame(ECHO_BYTES, stream, b"\x00\xffhi")


def test_streams_in_control_frames(serve: Any, sock_path: str) -> None:
    serve()
    with connect(sock_path) as c:
        items = c.stream("count", {"n": 2})
        assert list(items) == [0, 1]
        assert items.result == {"count": 2}


def test_frames_need_a_binary_connection(serve: Any, sock_path: str) -> None:
    serve()
    with SyncClient(sock_path, timeout=WAIT) as c:
        with pytest.raises(RuntimeError, match="binary"):
            c.open_stream()
        with pytest.raises(RuntimeError, match="binary"):
            c.send_frame(ECHO_BYTES, 1, b"")
        with pytest.raises(RuntimeError, match="binary"):
            c.receive_frame()


def test_receive_frame_times_out(demo: Any, sock_path: str) -> None:
    with connect(sock_path, timeout=0.1) as c:
        with pytest.raises(VenomError) as info:
            c.receive_frame()
        assert info.value.code == "timeout"


# -- against a scripted binary daemon ---------------------------------------------------------


def frame(type_: int, stream: int, payload: bytes) -> bytes:
    return struct.pack(">HII", type_, stream, len(payload)) + payload


def read_frame(conn: socket.socket) -> Frame:
    header = _exact(conn, 10)
    type_, stream, size = struct.unpack(">HII", header)
    return Frame(type_, stream, _exact(conn, size))


def _exact(conn: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        assert chunk, "peer closed"
        data += chunk
    return data


HELLO_RESULT = {"proto": 1, "server": {"name": "f", "version": "0"}, "caps": [], "max_frame": 4096}


@pytest.fixture
def fake(sock_path: str) -> Iterator[Callable[[Script], None]]:
    """``fake(script)`` serves one connection on ``sock_path``, past the preamble."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(sock_path)
    listener.listen(1)
    listener.settimeout(WAIT)
    threads: list[threading.Thread] = []

    def run(script: Script) -> None:
        def main() -> None:
            conn, _ = listener.accept()
            with conn:
                conn.settimeout(WAIT)
                assert _exact(conn, 1) == b"\xf5"
                script(conn)

        thread = threading.Thread(target=main, daemon=True)
        thread.start()
        threads.append(thread)

    yield run
    for thread in threads:
        thread.join(WAIT)
    listener.close()


def test_ping_is_answered_and_close_ends_the_connection(fake: Any, sock_path: str) -> None:
    """A PING gets its PONG; a CLOSE on stream 0 after a reply leaves that reply readable."""
    seen: list[Frame] = []

    def script(conn: socket.socket) -> None:
        assert read_frame(conn).type == HELLO
        conn.sendall(frame(HELLO_OK, 0, std_dumps(HELLO_RESULT)))
        request = std_loads(read_frame(conn).payload)
        conn.sendall(frame(PING, 0, b"p1"))
        seen.append(read_frame(conn))
        reply = std_dumps({"id": request["id"], "ok": {"done": True}})
        conn.sendall(frame(CONTROL, 0, reply) + frame(CLOSE, 0, b""))

    fake(script)
    with connect(sock_path) as c:
        assert c.call("work") == {"done": True}
        assert seen == [Frame(PONG, 0, b"p1")]
        with pytest.raises(VenomError) as info:
            c.call("work")
        assert info.value.code == "unavailable.closing"


def test_a_refused_hello_is_raised(fake: Any, sock_path: str) -> None:
    def script(conn: socket.socket) -> None:
        read_frame(conn)
        error = {"code": "denied.auth", "message": "no", "data": {"reason": "unknown"}}
        conn.sendall(frame(ERROR, 0, std_dumps(error)))

    fake(script)
    with pytest.raises(VenomError) as info:
        connect(sock_path)
    assert (info.value.code, info.value.exit_code) == ("denied.auth", 4)
