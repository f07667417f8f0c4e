"""The handler-facing API: Server options, Call, ConnectionInfo (RFC-0002 4.5, 7)."""

from __future__ import annotations

import os
import socket
import sys
import time
from typing import Any

import pytest

from venom_proto import Call, FrameHandler, Server, VerbHandler
from venom_proto.peercred import peer_credentials


def _noop(call: Call, params: dict[str, Any]) -> Any:
    return None


@pytest.mark.parametrize("name", ["hello", "cancel", "ping"])
def test_core_verbs_cannot_be_overridden(name: str) -> None:
    """RFC-0002 §4.5: hello, cancel and ping are implemented by proto."""
    with pytest.raises(ValueError, match="core verbs"):
        Server("tool", "1", {name: VerbHandler(_noop)})


def test_bad_tool_name_and_frame_type() -> None:
    """RFC-0002 §2.1, §5.2: tool names and tool frame types are validated up front."""
    with pytest.raises(ValueError, match="tool name"):
        Server("Tool", "1", {})
    with pytest.raises(ValueError, match="frame type"):
        FrameHandler(0x0010, "tool.x", lambda ctx, frame: None)


def test_advertised_caps() -> None:
    """RFC-0002 §6.3: cancel plus every capability named by a verb or frame handler."""
    server = Server(
        "tool",
        "1",
        {"v": VerbHandler(_noop, capability="tool.v")},
        caps=["tool.extra"],
        frame_handlers=[FrameHandler(0x0100, "tool.bytes", lambda ctx, frame: None)],
    )
    assert server.config.caps == {"cancel", "tool.v", "tool.extra", "tool.bytes"}


def test_connection_info_reaches_handlers(serve: Any, peers: Any, sock_path: str) -> None:
    """RFC-0002 §2.4, §6.1: handlers see peer credentials, hello params and negotiated caps."""
    serve()
    peer = peers(sock_path)
    hello = {"proto": [1], "caps": ["cancel"], "auth": {"token": "t"}}
    peer.call({"id": 0, "verb": "hello", "params": hello})
    assert peer.call({"id": "w", "verb": "whoami"})["ok"] == {
        "uid": os.getuid(),
        "pid": os.getpid(),
        "protocol": "ndjson",
        "caps": ["cancel"],
        "auth": {"token": "t"},
        "id": "w",
        "verb": "whoami",
    }


def test_async_handler_errors(serve: Any, peers: Any, sock_path: str) -> None:
    """RFC-0002 §7.1, §7.2: VenomError from a task is the reply; anything else is internal."""
    serve()
    peer = peers(sock_path)
    assert peer.call({"id": 1, "verb": "afail"})["error"] == {
        "code": "conflict.busy",
        "message": "busy",
    }
    reply = peer.call({"id": 2, "verb": "afail", "params": {"internal": True}})
    assert reply["error"]["code"] == "internal"
    assert "hidden" not in reply["error"]["message"]
    assert peer.call({"id": 3, "verb": "emit_plain"})["error"]["code"] == "internal"


def test_fast_stream_waits_for_slow_reader(serve: Any, peers: Any, sock_path: str) -> None:
    """RFC-0002 §4.3: a streaming producer waits in emit() instead of piling up output."""
    serve(max_write_buffer=256 * 1024)
    peer = peers(sock_path)
    # A small max_frame keeps the effective write limit at 256 KiB (it is >= 2 * max_frame).
    peer.call({"id": 0, "verb": "hello", "params": {"proto": [1], "max_frame": 4096}})
    n = 40_000  # about 0.9 MB of items: far above the buffer limit
    peer.request({"id": 1, "verb": "count", "params": {"n": n}})
    time.sleep(0.3)  # not reading: the producer must pause, not overflow
    for i in range(n):
        assert peer.line() == b'{"id":1,"item":%d}\n' % i
    assert peer.reply() == {"id": 1, "ok": {"count": n}}


def test_peer_credentials_of_a_socketpair() -> None:
    """RFC-0002 §2.4: the daemon reads the peer's uid (and pid on Linux)."""
    a, b = socket.socketpair()
    with a, b:
        creds = peer_credentials(a)
    assert creds is not None
    assert creds.uid == os.getuid()
    assert creds.gid == os.getgid()
    if sys.platform.startswith("linux"):
        assert creds.pid == os.getpid()


class _Unreadable:
    def fileno(self) -> int:
        return -1

    def getsockopt(self, level: int, optname: int, buflen: int, /) -> bytes:
        raise OSError("not a socket")


def test_unreadable_credentials_are_none() -> None:
    """RFC-0002 §2.4: when credentials cannot be read the peer is not trusted (None)."""
    assert peer_credentials(_Unreadable()) is None
