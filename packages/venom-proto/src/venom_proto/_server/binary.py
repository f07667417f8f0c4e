"""A binary connection after its ``0xF5`` preamble (RFC-0002 5, 6.4).

Stream ids: the client opens odd streams and the server even ones (5.1). A tool frame from the
client on an even stream the server never sent on is answered with an ``ERROR`` frame
(``protocol.bad_frame``) on that stream, which closes just that stream; the connection stays.
``CLOSE`` and ``ERROR`` frames on a stream other than 0 are accepted and ignored: the server keeps
no per-stream state for tools.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from typing import Any, Protocol

from venom_proto._core._json import dumps
from venom_proto._core.errors import ProtocolViolation, VenomError
from venom_proto._core.frames import (
    CLOSE,
    CONTROL,
    ERROR,
    HELLO_OK,
    PING,
    PONG,
    Frame,
    FrameDecoder,
    bad_frame,
    encode_frame,
)
from venom_proto._core.hello import HelloOutcome
from venom_proto._core.ndjson import DEFAULT_MAX_FRAME

from .api import ConnectionInfo, FrameContext
from .config import ServerConfig
from .dispatch import Dispatcher

__all__ = ("BinarySession", "ConnectionHost")

log = logging.getLogger("venom_proto.server")


class ConnectionHost(Protocol):
    """What a binary session needs from its connection."""

    def write(self, data: bytes) -> None: ...

    def close(self) -> None: ...

    async def wait_writable(self) -> None: ...

    def inflight_changed(self, count: int) -> None: ...

    def hello_done(self, outcome: HelloOutcome) -> None: ...


class BinarySession:
    """Frames in, frames out; ``CONTROL`` frames go through the same `Dispatcher` as NDJSON."""

    def __init__(self, config: ServerConfig, info: ConnectionInfo, conn: ConnectionHost) -> None:
        self._config = config
        self._info = info
        self._conn = conn
        self._decoder = FrameDecoder(min(config.max_frame, DEFAULT_MAX_FRAME))
        self._state = config.new_state(binary=True)
        self.dispatcher = Dispatcher(config, info, self, self._state)
        self._closed = False
        self._server_streams: set[int] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def busy(self) -> bool:
        """True while frame handler tasks run."""
        return bool(self._tasks)

    def feed(self, data: bytes) -> None:
        """Handle the bytes after the preamble."""
        try:
            frames = self._decoder.feed(data)
        except ProtocolViolation as exc:
            self._fatal(exc)
            return
        for frame in frames:
            self._on_frame(frame)
            if self._closed:
                return

    def _on_frame(self, frame: Frame) -> None:
        try:
            admitted = self._state.receive_frame(frame)
        except ProtocolViolation as exc:
            self._fatal(exc)
            return
        if isinstance(admitted, HelloOutcome):
            self.send_frame(HELLO_OK, 0, dumps(admitted.result))
            self._decoder.max_frame = admitted.max_frame
            self.dispatcher.apply_hello(admitted)
            return
        type_ = frame.type
        if type_ == CONTROL:
            self.dispatcher.handle_line(frame.payload)
        elif type_ == PING:
            self.send_frame(PONG, 0, frame.payload)
        elif type_ in (CLOSE, ERROR):
            if frame.stream == 0:  # the client is closing the connection
                self._closed = True
                self._conn.close()
        elif type_ != PONG:  # the server sends no PING, so a PONG needs nothing
            self._on_tool_frame(frame)

    def _on_tool_frame(self, frame: Frame) -> None:
        handler = self._config.frame_handlers[frame.type]  # admitted: known and negotiated
        stream = frame.stream
        if stream and not stream & 1 and stream not in self._server_streams:
            err = bad_frame(
                f"stream {stream} is even but was not opened by the server", stream=stream
            )
            self._send_error(stream, err)
            return
        ctx = FrameContext(self._info, stream, self)
        try:
            result = handler.handler(ctx, frame)
        except Exception as exc:
            self._handler_failed(stream, exc)
            return
        if inspect.isawaitable(result):
            task = asyncio.get_running_loop().create_task(self._run(stream, result))
            self._tasks.add(task)
            task.add_done_callback(self._task_done)

    async def _run(self, stream: int, awaitable: Any) -> None:
        try:
            await awaitable
        except asyncio.CancelledError:
            return
        except Exception as exc:
            self._handler_failed(stream, exc)

    def _task_done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        self._conn.inflight_changed(self.dispatcher.inflight)

    def _handler_failed(self, stream: int, exc: Exception) -> None:
        if not isinstance(exc, VenomError):
            log.error("frame handler failed on stream %d", stream, exc_info=exc)
            exc = VenomError("internal", "internal error in a frame handler; see the daemon's log")
        self._send_error(stream, exc)
        if stream == 0:
            self._closed = True
            self._conn.close()

    # -- output ----------------------------------------------------------------------------

    def send_frame(self, type_: int, stream: int, payload: bytes) -> None:
        """`FrameSink.send_frame`: queue one frame."""
        if stream and not stream & 1:
            self._server_streams.add(stream)
        self._conn.write(encode_frame(type_, stream, payload))

    async def drain(self) -> None:
        """`FrameSink.drain`."""
        await self._conn.wait_writable()

    def _send_error(self, stream: int, err: VenomError) -> None:
        self._conn.write(encode_frame(ERROR, stream, dumps(err.to_object())))

    def _fatal(self, err: VenomError) -> None:
        """An ``ERROR`` frame on stream 0, after which the connection closes (5.2)."""
        self._send_error(0, err)
        self._closed = True
        self._conn.close()

    # -- DispatchHost for CONTROL frames ---------------------------------------------------

    def send(self, line: bytes) -> None:
        """One NDJSON message as a ``CONTROL`` frame, without its ``\\n``."""
        self._conn.write(encode_frame(CONTROL, 0, line[:-1]))

    def close(self) -> None:
        """A control request asked to close (version mismatch, too large)."""
        self._closed = True
        self._conn.close()

    async def wait_writable(self) -> None:
        await self._conn.wait_writable()

    def inflight_changed(self, count: int) -> None:
        self._conn.inflight_changed(count)

    def hello_done(self, outcome: HelloOutcome) -> None:
        self._conn.hello_done(outcome)

    # -- ending ----------------------------------------------------------------------------

    def shutdown(self, reason: str) -> None:
        """Server shutdown: ``cancelled`` for control calls, then ``CLOSE`` on stream 0."""
        self.dispatcher.cancel_all(reason)
        self._cancel_tasks()
        self.send_frame(CLOSE, 0, dumps({"reason": reason}))

    def connection_lost(self) -> None:
        """The peer is gone: stop everything silently."""
        self._closed = True
        self.dispatcher.cancel_all(None)
        self._cancel_tasks()

    def _cancel_tasks(self) -> None:
        for task in list(self._tasks):
            task.cancel()
