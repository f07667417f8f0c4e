"""A drained stop (``Server(drain=...)``, rfcs/0002-wire-decisions.md D-W44): it stops
accepting, finishes the calls it holds instead of cancelling them, and closes each connection
once quiet; and the manager's half of socket activation (`activation_socket`, D-W43)."""

from __future__ import annotations

import os
import socket
import stat
import threading
from typing import Any

import pytest

from venom_proto import VenomError
from venom_proto.daemon_lock import lock_holder
from venom_proto.systemd import activation_socket

TIMEOUT = 10.0


def test_a_drained_stop_finishes_the_call_in_flight(serve: Any, peers: Any, sock_path: str) -> None:
    thread = serve(drain=5.0)
    peer = peers(sock_path)
    peer.request({"id": 1, "verb": "sleep", "params": {"ms": 300}})
    assert peer.call({"id": 2, "verb": "ping"}) == {"id": 2, "ok": {}}  # the sleep is running
    stopper = threading.Thread(target=thread.stop)
    stopper.start()
    # Answered with its result, not ``cancelled``, and then the connection closes.
    assert peer.reply() == {"id": 1, "ok": {"slept": 300}}
    assert peer.rest() == b""
    stopper.join(TIMEOUT)
    assert not stopper.is_alive()


def test_a_drained_stop_closes_an_idle_connection_without_waiting_out_the_bound(
    serve: Any, peers: Any, sock_path: str
) -> None:
    thread = serve(drain=60.0)
    peer = peers(sock_path)
    assert peer.call({"id": 1, "verb": "ping"}) == {"id": 1, "ok": {}}
    stopper = threading.Thread(target=thread.stop)
    stopper.start()
    assert peer.rest() == b""  # closed once quiet, far inside the 60 s bound
    stopper.join(TIMEOUT)
    assert not stopper.is_alive()


def test_without_drain_a_stop_still_cancels(serve: Any, peers: Any, sock_path: str) -> None:
    thread = serve()
    peer = peers(sock_path)
    peer.request({"id": 1, "verb": "sleep", "params": {"ms": 5000}})
    assert peer.call({"id": 2, "verb": "ping"}) == {"id": 2, "ok": {}}  # the sleep is running
    threading.Thread(target=thread.stop).start()
    assert peer.reply()["error"]["code"] == "cancelled"


def test_activation_socket_binds_like_serve_and_releases_the_lock(sock_path: str) -> None:
    written: list[str] = []
    sock = activation_socket(sock_path, on_locked=written.append)
    try:
        assert written == [os.path.abspath(sock_path)]
        st = os.stat(sock_path)
        assert stat.S_ISSOCK(st.st_mode)
        assert stat.S_IMODE(st.st_mode) == 0o600
        assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN)
        assert not os.get_inheritable(sock.fileno())
        assert lock_holder(sock_path) is None  # free for the daemon it is passed to
        with socket.socket(socket.AF_UNIX) as client:
            client.connect(sock_path)  # queued until a daemon accepts: never refused
    finally:
        sock.close()
        os.unlink(sock_path)


def test_activation_socket_refuses_while_a_daemon_holds_the_lock(
    serve: Any, sock_path: str
) -> None:
    serve()
    with pytest.raises(VenomError) as caught:
        activation_socket(sock_path)
    assert caught.value.code == "conflict.already_running"


def test_internal_errors_say_where_to_report_them(serve: Any, peers: Any, sock_path: str) -> None:
    """RFC-0002 §7.2 SHOULD: ``report_to`` is asked once, at the first internal error."""
    asked: list[int] = []

    def report_to() -> str:
        asked.append(1)
        return "https://example.invalid/issues"

    serve(report_to=report_to)
    peer = peers(sock_path)
    assert asked == []  # nothing is looked up until something goes wrong
    for rid in (1, 2):
        error = peer.call({"id": rid, "verb": "boom"})["error"]
        assert error["code"] == "internal"
        assert error["message"].endswith(
            "; a bug: please report it at https://example.invalid/issues"
        )
    assert peer.call({"id": 3, "verb": "fail"})["error"]["message"] == "no such thing"
    assert asked == [1]


def test_a_failing_report_to_leaves_the_message_as_it_was(
    serve: Any, peers: Any, sock_path: str
) -> None:
    def report_to() -> str:
        raise LookupError("no metadata")

    serve(report_to=report_to)
    error = peers(sock_path).call({"id": 1, "verb": "boom"})["error"]
    assert error["message"] == "internal error in verb 'boom'; details are in the daemon's log"
