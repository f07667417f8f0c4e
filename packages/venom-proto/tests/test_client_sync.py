"""SyncClient against the real server (conftest ``serve``) and a scripted fake daemon."""

from __future__ import annotations

import errno
import os
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from venom_proto import SyncClient, VenomError
from venom_proto._client_paths import connect_error

WAIT = 5.0
Script = Callable[[socket.socket], None]


def connect(path: str, **kw: Any) -> SyncClient:
    kw.setdefault("timeout", WAIT)
    return SyncClient(path, client_name="test", client_version="0", **kw)


def error_of(fn: Callable[[], Any]) -> VenomError:
    with pytest.raises(VenomError) as info:
        fn()
    return info.value


@pytest.fixture
def fake(sock_path: str) -> Iterator[Callable[[Script], None]]:
    """``fake(script)`` serves one connection on ``sock_path`` with ``script(conn)``."""
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
                script(conn)

        thread = threading.Thread(target=main, daemon=True)
        thread.start()
        threads.append(thread)

    yield run
    for thread in threads:
        thread.join(WAIT)
    listener.close()


def read_line(conn: socket.socket) -> bytes:
    data = b""
    while not data.endswith(b"\n"):
        chunk = conn.recv(1)
        if not chunk:
            break
        data += chunk
    return data


HELLO_OK = (
    b'{"id":1,"ok":{"proto":1,"server":{"name":"f","version":"0"},"caps":[],"max_frame":4096}}\n'
)


# -- against the real server -----------------------------------------------------------------


def test_hello_call_and_errors(serve: Any, sock_path: str) -> None:
    """RFC-0002 §6.4: client libraries send hello first; the result is kept."""
    serve()
    with connect(sock_path, caps=("cancel", "unknown.cap")) as client:
        assert client.hello_result["server"] == {"name": "test-tool", "version": "1.2.3"}
        assert client.hello_result["caps"] == ["cancel"]
        assert client.call("echo", {"text": "hi"}) == {"text": "hi"}
        err = error_of(lambda: client.call("fail", {"thing": "t"}))
        assert (err.code, err.data, err.exit_code) == ("not_found.thing", {"thing": "t"}, 3)
        assert error_of(lambda: client.call("no.such.verb")).code == "unsupported.verb"
        client.ping()


def test_stream_items_then_result(serve: Any, sock_path: str) -> None:
    """RFC-0002 §4.4: items in order, then one final response."""
    serve()
    with connect(sock_path) as client:
        call = client.stream("count", {"n": 3})
        assert list(call) == [0, 1, 2]
        assert call.result == {"count": 3}
        assert client.call("count", {"n": 2}) == {"count": 2}  # call() drops items


def test_leaving_a_stream_early_stops_tracking_it(serve: Any, sock_path: str) -> None:
    serve()
    with connect(sock_path) as client:
        call = client.stream("count", {"n": 50})
        for item in call:
            assert item == 0
            break
        assert call.id not in client._core.in_flight
        assert client.call("echo", {"text": "next"}) == {"text": "next"}


def test_cancel_a_stream(serve: Any, sock_path: str, event_items: Any) -> None:
    """RFC-0002 §4.4: cancel ends the target request with error cancelled."""
    serve()
    with connect(sock_path) as client:
        call = client.stream("events", {})
        items = iter(call)
        assert next(items) == event_items[0]
        assert next(items) == event_items[1]
        client.cancel(call.id)
        assert error_of(lambda: next(items)).code == "cancelled"


def test_timeout(serve: Any, sock_path: str) -> None:
    serve()
    with connect(sock_path, timeout=0.2) as client:
        assert error_of(lambda: client.call("sleep", {"ms": 2000})).code == "timeout"


def test_max_frame_is_negotiated(serve: Any, sock_path: str) -> None:
    """RFC-0002 §6.2: the effective max_frame applies to the client's own requests too."""
    serve()
    with connect(sock_path, max_frame=4096) as client:
        assert client.hello_result["max_frame"] == 4096
        assert error_of(lambda: client.call("echo", {"text": "x" * 5000})).code == (
            "protocol.too_large"
        )
        assert client.call("echo", {"text": "still fine"}) == {"text": "still fine"}


# -- connect failures ---------------------------------------------------------------------


def test_no_socket_is_not_running(sock_path: str) -> None:
    """RFC-0002 §2.5, §7.3: ENOENT means no daemon: unavailable.not_running with data.socket."""
    err = error_of(lambda: connect(sock_path))
    assert err.to_object() == {
        "code": "unavailable.not_running",
        "message": f"no daemon at {sock_path}",
        "data": {"socket": sock_path},
    }
    assert err.exit_code == 6


def test_refused_is_not_running(sock_path: str) -> None:
    """RFC-0002 §2.5: ECONNREFUSED (a stale socket file) means no daemon too."""
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(sock_path)
    stale.close()
    assert error_of(lambda: connect(sock_path)).code == "unavailable.not_running"


def test_nonexistent_directory_is_not_running() -> None:
    """RFC-0002 §7.3: VENOMX_SOCKET=/nonexistent/x.sock -> not_running."""
    assert error_of(lambda: connect("/nonexistent/x.sock")).data == {
        "socket": "/nonexistent/x.sock"
    }


def test_path_too_long(short_dir: Path) -> None:
    """RFC-0002 §2.3: a path that does not fit sun_path fails, never truncated."""
    path = str(short_dir / ("x" * 120 + ".sock"))
    assert error_of(lambda: connect(path)).code == "unavailable.path_too_long"


def test_insecure_default_runtime_dir(short_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """RFC-0002 §2.4: the client MUST refuse a runtime dir with group/other bits."""
    runtime = short_dir / "venom"
    runtime.mkdir(mode=0o755)
    os.chmod(runtime, 0o755)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(short_dir))
    err = error_of(lambda: connect(str(runtime / "t.sock")))
    assert (err.code, err.exit_code) == ("denied.insecure_path", 4)


@pytest.mark.parametrize("problem", ["mode", "symlink"])
def test_insecure_overridden_socket_dir(short_dir: Path, problem: str) -> None:
    """RFC-0002 §2.4, issue 12 §2: an overridden socket path's directory is checked too."""
    real = short_dir / "real"
    real.mkdir(mode=0o700)
    if problem == "mode":
        os.chmod(real, 0o755)
        where = real
    else:
        where = short_dir / "link"
        where.symlink_to(real)
    err = error_of(lambda: connect(str(where / "t.sock")))
    assert (err.code, err.exit_code) == ("denied.insecure_path", 4)
    assert err.data is not None
    assert err.data["problem"] == problem


def test_async_client_checks_an_overridden_dir_too(short_dir: Path) -> None:
    import anyio

    from venom_proto.client import AsyncClient

    wide = short_dir / "wide"
    wide.mkdir()
    os.chmod(wide, 0o777)

    async def main() -> None:
        async with AsyncClient(str(wide / "t.sock"), client_name="t", client_version="0"):
            pass

    with pytest.raises(VenomError) as info:
        anyio.run(main)
    assert info.value.code == "denied.insecure_path"


# -- misbehaving daemons ------------------------------------------------------------------


def test_daemon_closes_mid_call(fake: Any, sock_path: str) -> None:
    def script(conn: socket.socket) -> None:
        read_line(conn)
        conn.sendall(HELLO_OK)
        read_line(conn)  # the call; then hang up without answering

    fake(script)
    client = connect(sock_path)
    assert error_of(lambda: client.call("echo")).code == "unavailable.disconnected"
    assert error_of(lambda: client.call("echo")).code == "unavailable.disconnected"


def test_garbage_reply_is_invalid_reply(fake: Any, sock_path: str) -> None:
    def script(conn: socket.socket) -> None:
        read_line(conn)
        conn.sendall(HELLO_OK)
        read_line(conn)
        conn.sendall(b"this is not json\n")

    fake(script)
    with connect(sock_path) as client:
        assert error_of(lambda: client.call("echo")).code == "protocol.invalid_reply"


def test_hello_is_the_first_line_and_refusal_is_raised(fake: Any, sock_path: str) -> None:
    """RFC-0002 §6.4: client libraries MUST send hello first."""
    seen: list[bytes] = []

    def script(conn: socket.socket) -> None:
        seen.append(read_line(conn))
        conn.sendall(
            b'{"id":1,"error":{"code":"protocol.version_mismatch","message":"no",'
            b'"data":{"supported":[2]}}}\n'
        )

    fake(script)
    err = error_of(lambda: connect(sock_path, auth={"token": "t"}))
    assert (err.code, err.data) == ("protocol.version_mismatch", {"supported": [2]})
    assert seen[0] == (
        b'{"id":1,"verb":"hello","params":{"proto":[1],"client":{"name":"test","version":"0"},'
        b'"caps":["cancel"],"auth":{"token":"t"}}}\n'
    )


def test_replies_out_of_order_are_matched_by_id(fake: Any, sock_path: str) -> None:
    """RFC-0002 §4.3: clients match responses to requests by id."""

    def script(conn: socket.socket) -> None:
        read_line(conn)
        conn.sendall(HELLO_OK)
        read_line(conn)  # id 2: a stream
        read_line(conn)  # id 3: cancel of 2
        conn.sendall(
            b'{"id":2,"item":"a"}\n{"id":3,"ok":null}\n'
            b'{"id":2,"error":{"code":"cancelled","message":"cancelled by client"}}\n'
        )

    fake(script)
    with connect(sock_path) as client:
        call = client.stream("events")
        client.cancel(call.id)  # its reply arrives after an item of the stream
        items = iter(call)
        assert next(items) == "a"
        assert error_of(lambda: next(items)).code == "cancelled"


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd")
def test_failures_leave_no_descriptor_open(fake: Any, sock_path: str) -> None:
    """The C socket has no context manager: every failure path must close it by hand.

    The errors are kept alive: their tracebacks hold the client's frames, so a socket that was
    not closed explicitly would still be open when the descriptors are counted.
    """
    absent = os.path.join(os.path.dirname(sock_path), "absent.sock")
    before = open_fds()
    not_running = error_of(lambda: connect(absent))
    assert not_running.code == "unavailable.not_running"
    with pytest.raises(ValueError, match="out of range") as bad_timeout:
        connect(absent, timeout=-1.0)  # refused by settimeout, after the socket exists
    assert open_fds() == before

    hung_up = threading.Event()

    def silent(conn: socket.socket) -> None:
        read_line(conn)  # hello, never answered
        read_line(conn)  # returns once the client hangs up
        conn.close()  # the fake's own end, before the count below
        hung_up.set()

    fake(silent)
    timed_out = error_of(lambda: connect(sock_path, timeout=0.2))
    assert timed_out.code == "timeout"
    assert hung_up.wait(WAIT)
    assert open_fds() == before
    assert None not in (not_running.__traceback__, bad_timeout.tb, timed_out.__traceback__)


def test_close_releases_the_socket_and_is_idempotent(serve: Any, sock_path: str) -> None:
    serve()
    client = connect(sock_path)
    assert client.call("echo", {"text": "x"}) == {"text": "x"}
    client.close()
    client.close()
    assert error_of(lambda: client.call("echo")).code == "unavailable.disconnected"


@pytest.mark.parametrize(
    ("err", "code"),
    [
        (errno.ENOENT, "unavailable.not_running"),
        (errno.ECONNREFUSED, "unavailable.not_running"),
        (errno.EACCES, "denied"),
        (errno.ENOTSOCK, "unavailable"),
    ],
)
def test_connect_error_mapping(err: int, code: str) -> None:
    """RFC-0002 §2.5: ENOENT and ECONNREFUSED both mean no daemon is running."""
    mapped = connect_error("/x.sock", OSError(err, os.strerror(err)))
    assert mapped.code == code
    assert mapped.data is not None
    assert mapped.data["socket"] == "/x.sock"
