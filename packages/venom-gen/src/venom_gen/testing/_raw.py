"""`RawPeer`: NDJSON lines over a real socket, for tests of exactly what goes on the wire."""

from __future__ import annotations

import json
import select
import socket
import time
from typing import Any

__all__ = ("RawPeer",)


class RawPeer:
    """A blocking Unix-socket peer that writes bytes or JSON lines and reads reply lines.

    Every read waits at most ``timeout`` seconds (`TimeoutError`); `closed` tells whether the
    daemon has closed its side. Use it as a context manager, or call `close`.
    """

    def __init__(self, socket_path: str, *, timeout: float = 10.0) -> None:
        self.timeout = timeout
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        try:
            self.sock.connect(socket_path)
        except BaseException:
            self.sock.close()
            raise
        self._buffer = b""

    def send(self, data: bytes) -> None:
        """Write raw bytes."""
        self.sock.sendall(data)

    def send_json(self, *messages: Any) -> None:
        """Write each message as one compact JSON line (raw UTF-8), in one write."""
        self.send(b"".join(_line(message) for message in messages))

    def hello(self, *, token: str | None = None, **params: Any) -> Any:
        """Send hello (``id`` 0; ``token`` as ``auth.token``) and return its reply object."""
        body: dict[str, Any] = {"proto": [1], "client": {"name": "raw-peer", "version": "0"}}
        if token is not None:
            body["auth"] = {"token": token}
        body.update(params)
        self.send_json({"id": 0, "verb": "hello", "params": body})
        return self.json()

    def line(self) -> bytes:
        """The next line, without its newline; `EOFError` if the daemon closed first."""
        deadline = time.monotonic() + self.timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no complete line from the daemon")
            self.sock.settimeout(left)
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("the daemon closed the connection")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def json(self) -> Any:
        """The next line, decoded."""
        return json.loads(self.line())

    def request(self, *messages: dict[str, Any]) -> list[Any]:
        """Send ``messages`` in one write; return every reply up to each one's final reply,
        in arrival order (a stream's items come before its ok or error)."""
        self.send_json(*messages)
        waiting = {message["id"] for message in messages}
        replies: list[Any] = []
        while waiting:
            reply = self.json()
            replies.append(reply)
            if "item" not in reply:
                waiting.discard(reply.get("id"))
        return replies

    def closed(self, wait: float | None = None) -> bool:
        """True once the daemon has closed the connection (within ``wait`` seconds)."""
        ready, _, _ = select.select([self.sock], [], [], self.timeout if wait is None else wait)
        if not ready:
            return False
        try:
            chunk = self.sock.recv(65536, socket.MSG_PEEK)
        except ConnectionResetError:
            return True
        return chunk == b""

    def close(self) -> None:
        """Close the socket; idempotent."""
        self.sock.close()

    def __enter__(self) -> RawPeer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _line(message: Any) -> bytes:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
