"""SyncClient's connect/hello deadline (rfcs/0002-wire-decisions.md): a daemon that accepts and
never answers, answers in a trickle, or never accepts cannot hold a client forever, while a
verb, once hello is done, may run as long as it runs.

Scripted fake daemons on raw sockets; every wait in the tests is bounded.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from venom_proto import SyncClient, VenomError
from venom_proto.sync_client import CONNECT_TIMEOUT

WAIT = 5.0
LIMIT = 0.3
HELLO_OK = (
    b'{"id":1,"ok":{"proto":1,"server":{"name":"f","version":"0"},"caps":[],"max_frame":4096}}\n'
)
Script = Callable[[socket.socket], None]


def read_line(conn: socket.socket) -> bytes:
    """One line, or what came before the peer hung up (unbuffered: nothing is read ahead)."""
    return conn.makefile("rb", buffering=0).readline()


class Fake:
    """A listener on ``path`` that serves each accepted connection with one script."""

    def __init__(self, path: str, backlog: int = 8) -> None:
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(path)
        self.listener.listen(backlog)
        self.listener.settimeout(WAIT)
        self.threads: list[threading.Thread] = []
        self.stop = threading.Event()

    def serve(self, *scripts: Script, after: float = 0.0) -> None:
        """Accept one connection per script, in order, on one thread (so the order is fixed)."""

        def main() -> None:
            if self.stop.wait(after):
                return
            for script in scripts:
                conn, _ = self.listener.accept()
                with conn:
                    conn.settimeout(WAIT)
                    # The client gave up and closed: that is what several tests want.
                    with contextlib.suppress(OSError):
                        script(conn)

        thread = threading.Thread(target=main, daemon=True)
        thread.start()
        self.threads.append(thread)

    def close(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(WAIT)
        self.listener.close()


@pytest.fixture
def fake(sock_path: str) -> Iterator[Fake]:
    server = Fake(sock_path)
    yield server
    server.close()


def connect(path: str, **kw: Any) -> SyncClient:
    kw.setdefault("connect_timeout", LIMIT)
    return SyncClient(path, client_name="test", client_version="0", **kw)


def unresponsive(path: str, **kw: Any) -> tuple[VenomError, float]:
    start = time.monotonic()
    with pytest.raises(VenomError) as info:
        connect(path, **kw)
    return info.value, time.monotonic() - start


def silent(conn: socket.socket) -> None:
    read_line(conn)  # hello, never answered
    read_line(conn)  # returns once the client hangs up


def half_line(conn: socket.socket) -> None:
    read_line(conn)
    conn.sendall(HELLO_OK[:20])
    read_line(conn)


def trickle(conn: socket.socket) -> None:
    """One byte of a never-ending hello reply every 50 ms: each read alone would be quick."""
    read_line(conn)
    conn.settimeout(0.05)
    conn.sendall(b'{"id":1,"ok":{"proto":1,"server":{"name":"')
    for _ in range(200):
        conn.sendall(b"x")
        try:
            if conn.recv(1) == b"":
                return
        except TimeoutError:
            continue


def never_reads(conn: socket.socket) -> None:
    """Accepts, reads nothing: the hello stays in the socket buffer, no reply comes."""
    time.sleep(2 * LIMIT + 0.5)


@pytest.mark.parametrize(
    "script", [silent, half_line, trickle, never_reads], ids=lambda s: s.__name__
)
def test_an_unanswered_hello_is_unavailable_unresponsive(
    fake: Fake, sock_path: str, script: Script
) -> None:
    """A daemon that accepts but does not complete hello in time: ``unavailable.unresponsive``
    (exit 6) with the socket and the bound, after the bound and not much later."""
    fake.serve(script)
    error, took = unresponsive(sock_path)
    assert error.code == "unavailable.unresponsive"
    assert error.exit_code == 6
    assert error.data == {"socket": sock_path, "timeout": LIMIT}
    assert LIMIT * 0.9 <= took < LIMIT + 1.0


def test_a_full_backlog_waits_within_the_bound(sock_path: str) -> None:
    """A daemon that never accepts (backlog full): connect waits, then fails unresponsive."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(sock_path)
    listener.listen(0)
    filler = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        filler.connect(sock_path)  # takes the one backlog slot
        error, took = unresponsive(sock_path)
        assert error.code == "unavailable.unresponsive"
        assert LIMIT * 0.9 <= took < LIMIT + 1.0
    finally:
        filler.close()
        listener.close()


def test_a_backlog_that_frees_up_in_time_connects(sock_path: str) -> None:
    """A busy daemon that accepts within the bound is reached: the full backlog is retried."""
    server = Fake(sock_path, backlog=0)
    filler = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    filler.connect(sock_path)

    def answer(conn: socket.socket) -> None:
        read_line(conn)
        conn.sendall(HELLO_OK)
        read_line(conn)

    try:
        # After 100 ms: the filler first (it holds the backlog), then the client.
        server.serve(lambda conn: None, answer, after=0.1)
        with connect(sock_path, connect_timeout=WAIT) as client:
            assert client.hello_result["server"]["name"] == "f"
    finally:
        filler.close()
        server.close()


def test_a_slow_verb_is_not_bounded(fake: Fake, sock_path: str) -> None:
    """RFC-0002 leaves a verb's duration to the verb: after hello no deadline applies."""

    def slow(conn: socket.socket) -> None:
        read_line(conn)
        conn.sendall(HELLO_OK)
        request = read_line(conn)
        time.sleep(3 * LIMIT)
        conn.sendall(b'{"id":%d,"ok":{}}\n' % json.loads(request)["id"])
        read_line(conn)

    fake.serve(slow)
    with connect(sock_path) as client:
        assert client.call("slow") == {}


def test_timeout_still_bounds_each_read_after_hello(fake: Fake, sock_path: str) -> None:
    """``timeout`` keeps its meaning (one read or write), and its own error code."""

    def stall(conn: socket.socket) -> None:
        read_line(conn)
        conn.sendall(HELLO_OK)
        read_line(conn)
        read_line(conn)

    fake.serve(stall)
    with connect(sock_path, timeout=0.2) as client, pytest.raises(VenomError) as info:
        client.call("stall")
    assert info.value.code == "timeout"


def test_the_default_bound_is_finite() -> None:
    assert 0 < CONNECT_TIMEOUT <= 30


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd")
def test_an_unresponsive_daemon_leaks_no_descriptor(fake: Fake, sock_path: str) -> None:
    before = len(os.listdir("/proc/self/fd"))
    fake.serve(silent)
    error, _ = unresponsive(sock_path)
    assert error.code == "unavailable.unresponsive"
    del error  # its traceback holds the client's frames
    for thread in fake.threads:  # the fake's end of the connection, closed on hang-up
        thread.join(WAIT)
    assert len(os.listdir("/proc/self/fd")) == before
