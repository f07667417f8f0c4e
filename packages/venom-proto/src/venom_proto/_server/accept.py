"""Accepting connections: peer credentials, the connection cap, and running out of descriptors.

A foreign peer is closed without a word (RFC-0002 2.4). Past ``max_connections`` the next peer
gets one ``unavailable.too_many_connections`` line and a close. When ``accept`` fails for want
of descriptors or memory (EMFILE, ENFILE, ENOBUFS, ENOMEM), accepting pauses and retries with
a doubling back-off (50 ms up to 1 s), logging one line per episode (and at most one a
minute) instead of a traceback per attempt; connections already open are served all along
(rfcs/0002-wire-decisions.md D-W25).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import socket

from venom_proto._core.errors import VenomError
from venom_proto._core.messages import encode_error
from venom_proto.peercred import peer_credentials

from .api import ConnectionInfo
from .connection import SocketConnection
from .shared import Daemon

__all__ = ("Acceptor", "too_many_connections")

log = logging.getLogger("venom_proto.server")

_OUT_OF_RESOURCES = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
_FIRST_BACKOFF = 0.05
_MAX_BACKOFF = 1.0
#: Seconds between two "cannot accept" log lines, however many episodes there were.
_LOG_EVERY = 60.0
#: Accepts per wake-up, so a connection storm cannot starve the connections already open.
_BATCH = 64


def too_many_connections(limit: int) -> VenomError:
    """``unavailable.too_many_connections``: the daemon's connection cap was reached."""
    return VenomError(
        "unavailable.too_many_connections",
        f"the daemon already has {limit} connections open, its limit",
        {"limit": limit},
    )


class Acceptor:
    """Accepts on a listening socket for one `Daemon`; `close` stops it."""

    def __init__(self, sock: socket.socket, daemon: Daemon) -> None:
        self._sock = sock
        self._daemon = daemon
        self._loop = asyncio.get_running_loop()
        self._backoff = _FIRST_BACKOFF
        self._retry: asyncio.TimerHandle | None = None
        self._starved = False  # in an episode of failed accepts
        self._logged_at = -_LOG_EVERY
        self._capped = False  # at the connection cap (one log line each time)
        self._opening: set[asyncio.Task[None]] = set()
        self._closed = False

    def start(self) -> None:
        """Start accepting."""
        self._loop.add_reader(self._sock.fileno(), self._ready)

    def close(self, *, keep_opening: bool = False) -> None:
        """Stop accepting; connections still being set up are dropped, unless
        ``keep_opening`` (a drain serves them: their peers have already sent their request)."""
        if self._closed:
            return
        self._closed = True
        if self._retry is not None:
            self._retry.cancel()
        else:
            self._loop.remove_reader(self._sock.fileno())
        if not keep_opening:
            for task in self._opening:
                task.cancel()

    def _ready(self) -> None:
        for _ in range(_BATCH):
            try:
                conn, _ = self._sock.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                if exc.errno in _OUT_OF_RESOURCES:
                    self._pause(exc)
                    return
                continue  # the peer gave up before we took it (ECONNABORTED and the like)
            self._starved = False
            self._backoff = _FIRST_BACKOFF
            self._admit(conn)

    def _pause(self, exc: OSError) -> None:
        self._loop.remove_reader(self._sock.fileno())
        now = self._loop.time()
        if not self._starved and now - self._logged_at >= _LOG_EVERY:
            self._logged_at = now
            log.warning(
                "cannot accept connections (%s, %d open): pausing accepts, retrying with back-off",
                exc.strerror,
                self._daemon.open_count,
            )
        self._starved = True
        self._retry = self._loop.call_later(self._backoff, self._resume)
        self._backoff = min(2 * self._backoff, _MAX_BACKOFF)

    def _resume(self) -> None:
        self._retry = None
        if not self._closed:
            self._loop.add_reader(self._sock.fileno(), self._ready)

    def _admit(self, conn: socket.socket) -> None:
        conn.setblocking(False)
        creds = peer_credentials(conn)
        if creds is None or creds.uid != os.geteuid():
            # RFC-0002 2.4: a foreign (or unknown) peer is closed without a word.
            log.warning("closing connection from uid %s", creds.uid if creds else "unknown")
            conn.close()
            return
        daemon = self._daemon
        limit = daemon.config.max_connections
        if daemon.open_count >= limit:
            if not self._capped:
                self._capped = True
                log.warning("%d connections open, the limit: refusing new ones", limit)
            _refuse(conn, encode_error(None, too_many_connections(limit)))
            return
        self._capped = False
        # Counted from now on, while its transport is being set up, so the cap is exact.
        connection = SocketConnection(daemon, ConnectionInfo.from_peer(daemon.next_id(), creds))
        daemon.connections.add(connection)
        task = self._loop.create_task(self._open(conn, connection))
        self._opening.add(task)
        task.add_done_callback(self._opening.discard)

    async def _open(self, sock: socket.socket, connection: SocketConnection) -> None:
        try:
            await self._loop.connect_accepted_socket(lambda: connection, sock)
        except BaseException as exc:  # the peer left meanwhile, or the server is stopping
            sock.close()
            self._daemon.connections.discard(connection)
            if not isinstance(exc, OSError):
                raise


def _refuse(sock: socket.socket, line: bytes) -> None:
    """Send one error line and close, reading what the peer sent first.

    Closing with unread input would make the peer's next read fail with ECONNRESET, and it
    might never see the line.
    """
    with contextlib.suppress(OSError):  # a full or closed socket: the close says enough
        sock.send(line)
        sock.shutdown(socket.SHUT_WR)
        for _ in range(16):  # a bounded effort: BlockingIOError ends it early
            if not sock.recv(65536):
                break
    sock.close()
