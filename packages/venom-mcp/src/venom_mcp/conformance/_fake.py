"""A recording fake daemon: it speaks just enough RFC-0002 for a client under test (the CLI, the
MCP adapter) and keeps every request it receives, so a check can see what went upstream."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
from collections.abc import Callable
from typing import Any

Reply = Callable[[dict[str, Any]], Any]


class RecordingDaemon:
    """Listens on ``path``; answers hello, ``cancel`` and whatever ``reply`` says.

    ``reply(request)`` returns the ``ok`` value, or ``flood`` to send items until the request
    is cancelled (then the ``cancelled`` error, as RFC-0002 §4.4 asks).
    """

    FLOOD = object()

    def __init__(self, path: str, reply: Reply, hello: dict[str, Any], item: Any = None) -> None:
        self.path = path
        self.reply = reply
        self.hello = hello
        self.item = item
        self.requests: list[dict[str, Any]] = []
        self.cancelled = threading.Event()
        self._lock = threading.Lock()
        self._sock = socket.socket(socket.AF_UNIX)
        self._sock.bind(path)
        os.chmod(path, 0o600)
        self._sock.listen()
        self._conns: list[socket.socket] = []
        self._threads = [threading.Thread(target=self._accept, daemon=True)]
        self._threads[0].start()

    def __enter__(self) -> RecordingDaemon:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._sock.close()
        with self._lock:
            for conn in self._conns:
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_RDWR)
                conn.close()
        with contextlib.suppress(OSError):
            os.unlink(self.path)

    def seen(self, verb: str) -> list[dict[str, Any]]:
        with self._lock:
            return [r for r in self.requests if r.get("verb") == verb]

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            with self._lock:
                self._conns.append(conn)
            t = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            t.start()

    def _send(self, conn: socket.socket, lock: threading.Lock, message: Any) -> None:
        with lock:
            conn.sendall(json.dumps(message, separators=(",", ":")).encode() + b"\n")

    def _serve(self, conn: socket.socket) -> None:
        write = threading.Lock()
        floods: dict[Any, tuple[threading.Event, threading.Thread]] = {}
        buf = b""
        try:
            while data := conn.recv(65536):
                buf += data
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    self._handle(conn, write, floods, json.loads(line))
        except (OSError, ValueError):
            pass
        finally:
            for stop, _ in floods.values():
                stop.set()

    def _handle(
        self,
        conn: socket.socket,
        write: threading.Lock,
        floods: dict[Any, tuple[threading.Event, threading.Thread]],
        req: dict[str, Any],
    ) -> None:
        with self._lock:
            self.requests.append(req)
        rid, verb = req.get("id"), req.get("verb")
        if verb == "hello":
            self._send(conn, write, {"id": rid, "ok": self.hello})
        elif verb == "cancel":
            target = (req.get("params") or {}).get("id")
            flood = floods.pop(target, None)
            if flood is not None:
                flood[0].set()
                flood[1].join(5)  # its last item goes out before the final error
                self.cancelled.set()
                err = {"code": "cancelled", "message": "cancelled"}
                self._send(conn, write, {"id": target, "error": err})
            self._send(conn, write, {"id": rid, "ok": None})
        else:
            value = self.reply(req)
            if value is self.FLOOD:
                stop = threading.Event()
                t = threading.Thread(target=self._flood, args=(conn, write, rid, stop), daemon=True)
                floods[rid] = (stop, t)
                t.start()
            else:
                self._send(conn, write, {"id": rid, "ok": value})

    def _flood(
        self, conn: socket.socket, write: threading.Lock, rid: Any, stop: threading.Event
    ) -> None:
        try:
            while not stop.is_set():
                self._send(conn, write, {"id": rid, "item": self.item})
        except OSError:
            return
