"""One accepted connection as an asyncio ``Protocol``: bytes to the core, its events to the
handlers, its output to the socket, its deadlines to timers.

All protocol decisions are the core's (`venom_proto._core.server_connection`); this module only
moves bytes and keeps time. Output is written once per read (or when the core pauses at 64 KiB);
replies from tasks are coalesced by a write scheduled with ``call_soon``. While the peer is slow
to read (the transport paused writing) no more input is handled and reading stops, so a
pipelining client's replies never pile up; a connection whose unsent output still passes
``max_write_buffer`` (tasks writing without waiting) is dropped (RFC-0002 4.3).
"""

from __future__ import annotations

import asyncio
import logging
import select
from typing import Literal, cast

from venom_proto._core.errors import VenomError
from venom_proto._core.hello import HelloOutcome
from venom_proto._core.server_connection import ServerConnection
from venom_proto._core.server_events import (
    NEED_DATA,
    PAUSED,
    CallCancelled,
    CallStarted,
    FrameReceived,
    HelloSettled,
)
from venom_proto._core.server_settings import Deadline

from .api import ConnectionInfo
from .calls import CallRunner
from .frames import FrameRunner
from .shared import Daemon

__all__ = ("SocketConnection",)

log = logging.getLogger("venom_proto.server")

#: How long a closed connection may take to hand over its last bytes before it is dropped.
CLOSE_LINGER = 2.0
#: Seconds between checks that a half-closed peer is still there.
HANGUP_CHECK = 1.0
_HUNG_UP = select.POLLHUP | select.POLLERR


class SocketConnection(asyncio.Protocol):
    """The daemon end of one client connection."""

    def __init__(self, daemon: Daemon, info: ConnectionInfo) -> None:
        config = daemon.config
        self._daemon = daemon
        self.info = info
        self._loop = asyncio.get_running_loop()
        self._calls = calls = CallRunner(config, info, self)
        self._core = core = ServerConnection(config.settings, daemon.calls, calls)
        calls.attach(core)
        self._frames: FrameRunner | None = None
        self._transport: asyncio.Transport | None = None
        self._write_limit = max(config.max_write_buffer, 2 * core.max_frame)
        self._timer: asyncio.TimerHandle | None = None
        self._timer_due = 0.0
        self._armed: Deadline | None = None
        self._armed_due = 0.0
        self._pumping = False
        self._input_paused = False  # by the peer's unread output
        self._write_scheduled = False
        self._closing = False
        self.reads = 0
        self._writable: asyncio.Future[None] | None = None  # set while writing is paused
        self.closed: asyncio.Future[None] = self._loop.create_future()

    # -- asyncio.Protocol ------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = cast(asyncio.Transport, transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        self.reads += 1
        core = self._core
        core.receive_data(data)
        if self.info.protocol is None:
            self.info.protocol = core.protocol
            if core.protocol == "binary":
                self._frames = FrameRunner(self._daemon.config, core, self.info, self)
        self._pump()

    def eof_received(self) -> bool:
        if self._peer_gone():
            # Closed, not half-closed: nothing we send can be read, so nothing is left to do.
            self.abort()
            return False
        self._core.receive_data(b"")
        self._pump()
        if not self._closing:
            # Half-closed: the calls in flight still get their replies, and the core closes
            # after the last. Meanwhile watch for the peer going away altogether, which a
            # quiet stream would never find out by writing (D-W29).
            self._loop.call_later(HANGUP_CHECK, self._check_hangup)
        return True

    def _check_hangup(self) -> None:
        if self._closing:
            return
        if self._peer_gone():
            log.info("closing connection %d: the peer is gone", self.info.id)
            self.abort()
        else:
            self._loop.call_later(HANGUP_CHECK, self._check_hangup)

    def connection_lost(self, exc: Exception | None) -> None:
        self._closing = True
        self._core.connection_lost()
        self._stop_work()
        self._cancel_timer()
        if self._writable is not None and not self._writable.done():
            self._writable.set_result(None)
        self._daemon.connections.discard(self)
        self._daemon.memory.forget(self)
        if not self.closed.done():
            self.closed.set_result(None)

    def pause_writing(self) -> None:
        if self._writable is None or self._writable.done():
            self._writable = self._loop.create_future()

    def resume_writing(self) -> None:
        if self._writable is not None and not self._writable.done():
            self._writable.set_result(None)
        if self._input_paused and not self._closing:
            self._input_paused = False
            assert self._transport is not None
            self._transport.resume_reading()
            self._pump()

    # -- input -----------------------------------------------------------------------------

    def _pump(self) -> None:
        """Act on the core's events until it needs data, or the peer stops reading."""
        if self._pumping or self._input_paused:
            return
        self._pumping = True
        core, calls = self._core, self._calls
        next_event = core.next_event
        try:
            while True:
                event = next_event()
                kind = type(event)
                if kind is CallStarted:
                    calls.start(event)  # type: ignore[arg-type]
                elif event is NEED_DATA:
                    break
                elif event is PAUSED:
                    self._write()
                    if self._writable is not None and not self._writable.done():
                        self._pause_input()
                        break
                elif kind is CallCancelled:
                    calls.cancelled(event.id, event.reason)  # type: ignore[union-attr]
                elif kind is FrameReceived:
                    assert self._frames is not None
                    self._frames.handle(event)  # type: ignore[arg-type]
                elif kind is HelloSettled:
                    self._settled(event.outcome)  # type: ignore[union-attr]
                else:  # ConnectionClosed
                    break
        finally:
            self._pumping = False
        self._write()
        if not self._closing:
            self._arm()
            self._daemon.memory.input(self, core.buffered)

    def _pause_input(self) -> None:
        assert self._transport is not None
        self._input_paused = True
        self._transport.pause_reading()
        self._cancel_timer()  # deadlines do not run while we are the ones not reading

    def _settled(self, outcome: HelloOutcome) -> None:
        info = self.info
        info.proto, info.caps, info.max_frame = outcome.proto, outcome.caps, outcome.max_frame
        info.hello = outcome.params
        # Two maximal messages must always fit, or a large result would look like a slow reader.
        self._write_limit = max(self._daemon.config.max_write_buffer, 2 * outcome.max_frame)

    def _peer_gone(self) -> bool:
        """True when the peer closed its socket, not just its sending side (POLLHUP)."""
        assert self._transport is not None
        sock = self._transport.get_extra_info("socket")
        if sock is None:
            return False
        poller = select.poll()
        poller.register(sock.fileno(), select.POLLOUT)
        return any(mask & _HUNG_UP for _, mask in poller.poll(0))

    # -- deadlines -------------------------------------------------------------------------

    def _arm(self) -> None:
        """Follow the core's deadline. One timer at most, re-armed lazily: a pipelining peer
        starts a new message deadline with nearly every read, and a timer per read would cost
        more than the reads."""
        deadline = self._core.deadline
        if deadline is self._armed or self._input_paused:
            return
        self._armed = deadline
        if deadline is None:
            return  # a pending timer finds nothing to do when it fires
        due = self._loop.time() + deadline.seconds
        self._armed_due = due
        if self._timer is not None:
            if self._timer_due <= due:
                return  # it fires first and re-checks
            self._timer.cancel()
        self._timer_due = due
        self._timer = self._loop.call_at(due, self._check_deadline)

    def _check_deadline(self) -> None:
        self._timer = None
        deadline = self._armed
        if deadline is None or self._closing:
            return
        if self._armed_due > self._loop.time():  # a later deadline replaced the one timed
            self._timer_due = self._armed_due
            self._timer = self._loop.call_at(self._armed_due, self._check_deadline)
            return
        log.info("closing connection %d: %s deadline passed", self.info.id, deadline.kind)
        self._core.deadline_passed(deadline)
        self._write()

    def _cancel_timer(self) -> None:
        self._armed = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    # -- output ----------------------------------------------------------------------------

    def output_ready(self) -> None:
        """`OutputHost.output_ready`: replies written from a task; write them this turn."""
        if not self._write_scheduled and not self._pumping:
            self._write_scheduled = True
            self._loop.call_soon(self._write)

    async def wait_writable(self) -> None:
        """Wait while the transport is paused; always yields once so queued output goes out."""
        await asyncio.sleep(0)
        while self._writable is not None and not self._writable.done():
            await self._writable

    def _write(self) -> None:
        self._write_scheduled = False
        transport, core = self._transport, self._core
        if transport is None or self._closing:
            return
        if core.pending_output:
            transport.write(core.data_to_send())
            unsent = transport.get_write_buffer_size()
            if unsent > self._write_limit:
                # RFC-0002 4.3: a slow reader must not hold output (and memory) for everyone.
                log.warning("closing connection %d: peer does not read its replies", self.info.id)
                self.abort()
                return
            self._daemon.memory.output(self, unsent)
        if core.closed:
            self._close()

    def _close(self) -> None:
        """The core is done: stop the work, hand over the last bytes, then close."""
        assert self._transport is not None
        self._closing = True
        self._stop_work()
        self._cancel_timer()
        self._transport.close()
        if self._transport.get_write_buffer_size():
            self._loop.call_later(CLOSE_LINGER, self.abort)

    def _stop_work(self) -> None:
        self._calls.cancel_all()
        if self._frames is not None:
            self._frames.cancel_all()

    # -- the daemon's side -----------------------------------------------------------------

    def held_input(self) -> int:
        """`Budgeted.held_input`."""
        return self._core.buffered

    def unsent_output(self) -> int:
        """`Budgeted.unsent_output`."""
        if self._transport is None or self._closing:
            return 0
        return self._transport.get_write_buffer_size() + self._core.pending_output

    def evict(self, resource: Literal["input", "output"], limit: int) -> None:
        """`Budgeted.evict`: the daemon's memory budget for ``resource`` is spent."""
        if resource == "output":
            self.abort()
            return
        error = VenomError(
            "unavailable.overloaded",
            "the daemon holds too much unfinished input; this connection held the most",
            {"resource": resource, "limit": limit},
        )
        self._core.close_with(error)
        self._write()

    @property
    def idle(self) -> bool:
        """Set up, with no call in flight, no input held and no output waiting for the peer."""
        transport, core = self._transport, self._core
        if transport is None:
            return False
        unsent = transport.get_write_buffer_size()
        return not (core.in_flight or core.pending_output or core.buffered or unsent)

    def close_with(self, error: VenomError) -> None:
        """`Served.close_with`: a fatal ``error`` in this connection's framing, then close."""
        if self._closing:
            return
        log.info("closing connection %d: %s", self.info.id, error.code)
        self._core.close_with(error)
        self._write()

    def shutdown(self, reason: str) -> None:
        """Server shutdown (2.5 step 7): calls end ``cancelled``, binary gets ``CLOSE``."""
        if self._closing:
            return
        self._core.shutdown(reason)
        self._write()

    def abort(self) -> None:
        """Drop the connection now, unsent output included."""
        self._closing = True
        if self._transport is not None:
            self._transport.abort()
