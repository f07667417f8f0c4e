"""Running a binary connection's tool frame handlers (RFC-0002 5): the `FrameSink` they reply on.

The core has already admitted every frame handed here (its type's capability was negotiated,
its stream's parity is right); a handler's failure becomes an ``ERROR`` frame on its stream,
which on stream 0 closes the connection.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from typing import Any

from venom_proto._core.errors import VenomError
from venom_proto._core.server_connection import ServerConnection
from venom_proto._core.server_events import FrameReceived

from .api import ConnectionInfo, FrameContext
from .calls import OutputHost
from .config import ServerConfig

__all__ = ("FrameRunner",)

log = logging.getLogger("venom_proto.server")


class FrameRunner:
    """Frame handlers of one binary connection, and their tasks."""

    __slots__ = ("_config", "_core", "_host", "_info", "_tasks")

    def __init__(
        self, config: ServerConfig, core: ServerConnection, info: ConnectionInfo, host: OutputHost
    ) -> None:
        self._config = config
        self._core = core
        self._info = info
        self._host = host
        self._tasks: set[asyncio.Task[None]] = set()

    def handle(self, event: FrameReceived) -> None:
        """Run the handler registered for the frame's type."""
        frame = event.frame
        handler = self._config.frame_handlers[frame.type]
        stream = frame.stream
        try:
            result = handler.handler(FrameContext(self._info, stream, self), frame)
        except Exception as exc:
            self._failed(stream, exc)
            return
        if inspect.isawaitable(result):
            task = asyncio.get_running_loop().create_task(self._run(stream, result))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _run(self, stream: int, awaitable: Any) -> None:
        try:
            await awaitable
        except asyncio.CancelledError:
            return
        except Exception as exc:
            self._failed(stream, exc)

    def _failed(self, stream: int, exc: Exception) -> None:
        if not isinstance(exc, VenomError):
            log.error("frame handler failed on stream %d", stream, exc_info=exc)
            exc = VenomError("internal", "internal error in a frame handler; see the daemon's log")
        self._core.send_stream_error(stream, exc)
        self._host.output_ready()

    def cancel_all(self) -> None:
        """Stop every running frame handler (the connection is ending)."""
        for task in list(self._tasks):
            task.cancel()

    # -- FrameSink -------------------------------------------------------------------------

    def send_frame(self, type_: int, stream: int, payload: bytes) -> None:
        """`FrameSink.send_frame`: write one frame (``internal.too_large`` past max_frame)."""
        self._core.send_frame(type_, stream, payload)
        self._host.output_ready()

    async def drain(self) -> None:
        """`FrameSink.drain`."""
        await self._host.wait_writable()
