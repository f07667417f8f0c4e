"""Deadlines, peer credentials and clean shutdown (RFC-0002 2.4, 2.5, 3, 5.2)."""

from __future__ import annotations

import os
import shutil
import signal
import struct
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

SHUTDOWN_CANCEL = b'{"id":1,"error":{"code":"cancelled","message":"daemon shutting down"}}\n'


def test_idle_connection_closed(serve: Any, peers: Any, sock_path: str) -> None:
    """RFC-0002 §3: a connection that sends no byte is closed after the idle deadline."""
    server = serve(idle_timeout=0.2).server
    peer = peers(sock_path)
    start = time.monotonic()
    assert peer.rest() == (
        b'{"id":null,"error":{"code":"timeout.idle","message":"no byte arrived within 0.2 s",'
        b'"data":{"seconds":0.2}}}\n'
    )
    assert 0.15 < time.monotonic() - start < 3
    assert server.connection_count == 0


def test_active_ndjson_connection_outlives_idle_deadline(
    serve: Any, peers: Any, sock_path: str
) -> None:
    """RFC-0002 §3, §6.4: NDJSON needs no hello, so only the first-byte deadline applies."""
    serve(idle_timeout=0.2, hello_timeout=0.2)
    peer = peers(sock_path)
    assert peer.call({"id": 1, "verb": "ping"}) == {"id": 1, "ok": {}}
    time.sleep(0.5)
    assert peer.call({"id": 2, "verb": "ping"}) == {"id": 2, "ok": {}}


def test_binary_without_hello_closed(serve: Any, peers: Any, sock_path: str) -> None:
    """RFC-0002 §3: a binary connection that does not complete hello in time is closed."""
    serve(idle_timeout=5, hello_timeout=0.2)
    peer = peers(sock_path)
    peer.send(b"\xf5" + struct.pack(">HII", 1, 0, 20))  # a HELLO header, payload never sent
    start = time.monotonic()
    payload = b'{"code":"timeout.hello","message":"no HELLO frame arrived within 0.2 s",'
    payload += b'"data":{"seconds":0.2}}'
    assert peer.rest() == struct.pack(">HII", 3, 0, len(payload)) + payload
    assert 0.15 < time.monotonic() - start < 3


def test_binary_after_hello_has_no_deadline(serve: Any, peers: Any, sock_path: str) -> None:
    """RFC-0002 §3: the hello deadline stops once hello is done."""
    serve(idle_timeout=0.2, hello_timeout=0.2)
    peer = peers(sock_path)
    hello = b'{"proto":[1]}'
    peer.send(b"\xf5" + struct.pack(">HII", 1, 0, len(hello)) + hello)
    type_, _, length = struct.unpack(">HII", peer.read_exact(10))
    assert type_ == 2
    peer.read_exact(length)
    time.sleep(0.5)
    peer.send(struct.pack(">HII", 4, 0, 2) + b"hi")
    assert peer.read_exact(12) == struct.pack(">HII", 5, 0, 2) + b"hi"


def test_shutdown_cancels_and_closes(serve: Any, peers: Any, sock_path: str) -> None:
    """RFC-0002 §2.5 step 7-8: in-flight calls end `cancelled`, binary peers get CLOSE."""
    thread = serve()
    ndjson = peers(sock_path)
    ndjson.call({"id": 0, "verb": "hello", "params": {"proto": [1]}})
    ndjson.request({"id": 1, "verb": "events"})
    assert "item" in ndjson.reply()
    binary = peers(sock_path)
    hello = b'{"proto":[1]}'
    binary.send(b"\xf5" + struct.pack(">HII", 1, 0, len(hello)) + hello)
    type_, _, length = struct.unpack(">HII", binary.read_exact(10))
    assert type_ == 2
    binary.read_exact(length)
    thread.stop()
    assert "item" in ndjson.reply()  # the stream's second item
    assert ndjson.line() == SHUTDOWN_CANCEL
    assert ndjson.rest() == b""
    reason = b'{"reason":"daemon shutting down"}'
    assert binary.rest() == struct.pack(">HII", 6, 0, len(reason)) + reason
    assert not os.path.exists(sock_path)


def test_sigterm_with_stream_in_flight(sock_path: str, daemons: Any, peers: Any) -> None:
    """RFC-0002 §2.5, §7.2: SIGTERM ends a running stream with `cancelled`, then exits cleanly."""
    proc = daemons.streamer(sock_path)
    daemons.wait_listening(sock_path, proc)
    peer = peers(sock_path)
    peer.request({"id": 1, "verb": "events"})
    assert peer.reply() == {"id": 1, "item": {"n": 1}}
    proc.send_signal(signal.SIGTERM)
    assert peer.line() == SHUTDOWN_CANCEL
    assert peer.rest() == b""
    status, _ = daemons.finish(proc)
    assert status == 0
    assert not os.path.exists(sock_path)
    lock = Path(sock_path[: -len(".sock")] + ".lock")
    assert lock.read_text() == f"{proc.pid}\n"


FOREIGN_CLIENT = """
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(3)
s.connect(sys.argv[1])
print("connected", flush=True)
try:
    s.sendall(b'{"id":1,"verb":"ping"}\\n')
    data = s.recv(100)
except OSError:  # reset or broken pipe: closed without a reply either way
    data = b""
print(repr(data))
"""


@pytest.mark.skipif(os.getuid() != 0, reason="needs root to run a client as another user")
@pytest.mark.skipif(shutil.which("setpriv") is None, reason="needs setpriv")
@pytest.mark.skipif(not os.path.exists("/usr/bin/python3"), reason="needs a system python3")
def test_foreign_uid_closed_without_reply(serve: Any, sock_path: str, peers: Any) -> None:
    """RFC-0002 §2.4: a peer with another UID is closed without a reply."""
    server = serve().server
    # Let nobody reach the socket at all, so only the credential check can stop it.
    os.chmod(os.path.dirname(sock_path), 0o711)
    os.chmod(sock_path, 0o666)
    setpriv = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    out = subprocess.run(
        [*setpriv, "/usr/bin/python3", "-I", "-c", FOREIGN_CLIENT, sock_path],
        capture_output=True,
        timeout=10,
    )
    assert out.stdout == b"connected\nb''\n", out.stderr
    assert server.connection_count == 0
    assert peers(sock_path).call({"id": 1, "verb": "ping"}) == {"id": 1, "ok": {}}
