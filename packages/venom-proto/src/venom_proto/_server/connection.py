"""One accepted connection as an asyncio ``Protocol``: credentials, first byte, NDJSON, output.

Replies produced while one chunk of input is handled are gathered into a single buffer and
written once; replies from tasks are coalesced by a flush scheduled with ``call_soon``.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from typing import cast

from venom_proto._core.errors import ProtocolViolation
from venom_proto._core.frames import select_protocol
from venom_proto._core.hello import HelloOutcome
from venom_proto._core.messages import encode_error
from venom_proto._core.ndjson import DEFAULT_MAX_FRAME, LineDecoder

from .api import ConnectionInfo
from .binary import BinarySession
from .config import ServerConfig
from .dispatch import Dispatcher
from .peercred import peer_credentials

__all__ = ("ServerConnection",)

log = logging.getLogger("venom_proto.server")


class ServerConnection(asyncio.Protocol):
    """The daemon end of one client connection."""

    def __init__(self, config: ServerConfig, conn_id: int, registry: set[ServerConnection]) -> None:
        self._config = config
        self._id = conn_id
        self._registry = registry
        self._loop = asyncio.get_running_loop()
        self._transport: asyncio.Transport | None = None
        self._out = bytearray()
        self._in_receive = False
        self._flush_scheduled = False
        self._closing = False
        self._eof = False
        self._writable: asyncio.Future[None] | None = None  # set while writing is paused
        self._reading_paused = False
        self._write_limit = max(config.max_write_buffer, 2 * DEFAULT_MAX_FRAME)
        self._timer: asyncio.TimerHandle | None = None
        self._feed: Callable[[bytes], None] = self._sniff
        self._dispatcher: Dispatcher | None = None
        self._lines: LineDecoder | None = None
        self._binary: BinarySession | None = None
        self.closed: asyncio.Future[None] = self._loop.create_future()
        self.info: ConnectionInfo | None = None

    # -- asyncio.Protocol ------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = cast(asyncio.Transport, transport)
        sock = transport.get_extra_info("socket")
        creds = peer_credentials(sock) if sock is not None else None
        if creds is None or creds.uid != os.geteuid():
            # RFC-0002 2.4: a foreign (or unknown) peer is closed without a word.
            log.warning("closing connection from uid %s", creds.uid if creds else "unknown")
            self._closing = True
            self._transport.abort()
            return
        self.info = ConnectionInfo.from_peer(self._id, creds)
        self._registry.add(self)
        self._timer = self._loop.call_later(self._config.idle_timeout, self._timed_out, "idle")

    def data_received(self, data: bytes) -> None:
        if self._closing:
            return
        self._in_receive = True
        try:
            self._feed(data)
        finally:
            self._in_receive = False
            self._flush()

    def eof_received(self) -> bool:
        self._eof = True
        self._flush()
        if self._busy():
            return True  # half-closed: answer what is in flight, then close
        self._closing = True
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self._closing = True
        self._cancel_timer()
        if self._dispatcher is not None:
            self._dispatcher.cancel_all(None)
        if self._binary is not None:
            self._binary.connection_lost()
        if self._writable is not None and not self._writable.done():
            self._writable.set_result(None)
        self._registry.discard(self)
        if not self.closed.done():
            self.closed.set_result(None)

    def pause_writing(self) -> None:
        if self._writable is None or self._writable.done():
            self._writable = self._loop.create_future()

    def resume_writing(self) -> None:
        if self._writable is not None and not self._writable.done():
            self._writable.set_result(None)

    # -- input -----------------------------------------------------------------------------

    def _sniff(self, data: bytes) -> None:
        assert self.info is not None
        self._cancel_timer()
        try:
            protocol = select_protocol(data[0])
        except ProtocolViolation as exc:
            self.write(encode_error(None, exc))
            self.close()
            return
        self.info.protocol = protocol
        if protocol == "ndjson":
            self._lines = LineDecoder(min(self._config.max_frame, DEFAULT_MAX_FRAME))
            self._dispatcher = Dispatcher(
                self._config, self.info, self, self._config.new_state(binary=False)
            )
            self._feed = self._feed_ndjson
        else:
            self._binary = BinarySession(self._config, self.info, self)
            self._feed = self._binary.feed
            self._timer = self._loop.call_later(
                self._config.hello_timeout, self._timed_out, "hello"
            )
            data = data[1:]
        self._feed(data)

    def _feed_ndjson(self, data: bytes) -> None:
        assert self._lines is not None
        assert self._dispatcher is not None
        try:
            lines = self._lines.feed(data)
        except ProtocolViolation as exc:
            self.write(encode_error(None, exc))
            self.close()
            return
        if lines:
            self._dispatcher.handle_lines(lines)

    def _timed_out(self, what: str) -> None:
        self._timer = None
        log.info("closing connection %d: no %s within the deadline", self._id, what)
        self.close()

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    # -- DispatchHost and output -----------------------------------------------------------

    def send(self, line: bytes) -> None:
        """Queue one NDJSON message."""
        self.write(line)

    def write(self, data: bytes) -> None:
        """Queue bytes for the peer; they are written at the end of the current turn."""
        if self._closing:
            return
        self._out += data
        if not self._in_receive and not self._flush_scheduled:
            self._flush_scheduled = True
            self._loop.call_soon(self._flush)

    def _flush(self) -> None:
        self._flush_scheduled = False
        transport = self._transport
        if not self._out or transport is None or transport.is_closing():
            return
        data, self._out = self._out, bytearray()
        transport.write(data)
        if transport.get_write_buffer_size() > self._write_limit:
            # RFC-0002 4.3: a slow reader must not hold output (and memory) for everyone.
            log.warning("closing connection %d: peer does not read its replies", self._id)
            self._closing = True
            transport.abort()

    async def wait_writable(self) -> None:
        """Wait while the transport is paused; always yields once so queued output flushes."""
        await asyncio.sleep(0)
        while self._writable is not None and not self._writable.done():
            await self._writable

    def inflight_changed(self, count: int) -> None:
        """Pause reading while too many calls run; close a half-closed connection when idle."""
        transport = self._transport
        if transport is None or self._closing:
            return
        if not self._reading_paused and count >= self._config.max_inflight:
            self._reading_paused = True
            transport.pause_reading()
        elif self._reading_paused and count <= self._config.max_inflight // 2:
            self._reading_paused = False
            transport.resume_reading()
        if self._eof and not self._busy():
            self.close()

    def hello_done(self, outcome: HelloOutcome) -> None:
        """Apply the negotiated max_frame; stop the hello deadline."""
        # Two maximal messages must always fit, or a large result would look like a slow reader.
        self._write_limit = max(self._config.max_write_buffer, 2 * outcome.max_frame)
        if self._lines is not None:
            self._lines.max_frame = outcome.max_frame
        if self._binary is not None:
            self._cancel_timer()

    def _busy(self) -> bool:
        dispatcher = self._binary.dispatcher if self._binary is not None else self._dispatcher
        return (dispatcher is not None and dispatcher.inflight > 0) or (
            self._binary is not None and self._binary.busy
        )

    # -- closing ---------------------------------------------------------------------------

    def close(self) -> None:
        """Flush queued output, then close."""
        if self._closing:
            return
        self._flush()
        self._closing = True
        self._cancel_timer()
        if self._transport is not None:
            self._transport.close()

    def abort(self) -> None:
        """Drop the connection now, unsent output included."""
        self._closing = True
        if self._transport is not None:
            self._transport.abort()

    def shutdown(self, reason: str) -> None:
        """Server shutdown (2.5 step 7): end in-flight calls with ``cancelled``, then close."""
        if self._closing:
            return
        if self._binary is not None:
            self._binary.shutdown(reason)
        elif self._dispatcher is not None:
            self._dispatcher.cancel_all(reason)
        self.close()
