"""The SDK's ``ReadStream``/``WriteStream`` over asyncio pipe transports (see ``_stdio``).

Both are fed and drained inside the event loop: the read side is a queue the stdin protocol
fills, the write side writes into the stdout transport's buffer and waits only while the
transport reports it full.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from typing import IO, Any

import anyio
import anyio.lowlevel
from anyio.abc import ObjectReceiveStream, ObjectSendStream
from mcp.shared.message import SessionMessage

__all__ = ("MAX_QUEUED", "MAX_QUEUED_BYTES", "PipeReadStream", "PipeWriteStream")

#: Bound on flushing stdout at exit, when nobody may be reading it any more.
_FLUSH_WAIT = 2.0
#: Parsed lines, and their stdin bytes, queued before stdin reading pauses (backpressure on a
#: flooding client): with ``_lines.MAX_LINE`` this bounds what stdin can make the adapter hold.
MAX_QUEUED = 256
MAX_QUEUED_BYTES = 8 * 1024 * 1024

Item = SessionMessage | Exception


class PipeReadStream(ObjectReceiveStream[Item]):
    """Parsed stdin lines in order; ``EndOfStream`` after stdin's end."""

    def __init__(self) -> None:
        self._items: deque[Item] = deque()
        self._sizes: deque[int] = deque()
        self._bytes = 0
        self._ended = False
        self._closed = False
        self._wakeup = anyio.Event()
        #: Called once the queue drained, to resume reading a paused stdin.
        self.on_drained: Callable[[], None] | None = None

    # -- fed by the protocol (synchronous, in the loop) --------------------------------------

    def put(self, item: Item, size: int = 0) -> None:
        """Queue ``item``, parsed from ``size`` bytes of stdin."""
        if not self._closed:
            self._items.append(item)
            self._sizes.append(size)
            self._bytes += size
            self._wakeup.set()

    def end(self) -> None:
        self._ended = True
        self._wakeup.set()

    def queued(self) -> int:
        return len(self._items)

    def full(self) -> bool:
        """Whether the reader should pause until the queue drained."""
        return len(self._items) >= MAX_QUEUED or self._bytes >= MAX_QUEUED_BYTES

    # -- the SDK's ReadStream -----------------------------------------------------------------

    async def receive(self) -> Item:
        await anyio.lowlevel.checkpoint_if_cancelled()
        while not self._items:
            if self._closed:
                raise anyio.ClosedResourceError
            if self._ended:
                raise anyio.EndOfStream
            if self._wakeup.is_set():
                self._wakeup = anyio.Event()
            await self._wakeup.wait()
        item = self._items.popleft()
        self._bytes -= self._sizes.popleft()
        if not self._items and self.on_drained is not None:
            resume, self.on_drained = self.on_drained, None
            resume()
        return item

    async def aclose(self) -> None:
        self._closed = True
        self._items.clear()
        self._sizes.clear()
        self._bytes = 0
        self._wakeup.set()


class _Drain(asyncio.Protocol):
    """Flow control and end of the stdout transport."""

    def __init__(self) -> None:
        self.writable = anyio.Event()
        self.writable.set()
        self.lost = anyio.Event()

    def pause_writing(self) -> None:
        self.writable = anyio.Event()

    def resume_writing(self) -> None:
        self.writable.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost.set()
        self.writable.set()


class PipeWriteStream(ObjectSendStream[SessionMessage]):
    """Writes each message as the SDK's stdio transport does: compact JSON and ``\\n``."""

    def __init__(self, transport: asyncio.WriteTransport, drain: _Drain) -> None:
        self._transport = transport
        self._drain = drain

    @classmethod
    async def connect(cls, loop: asyncio.AbstractEventLoop, pipe: IO[Any]) -> PipeWriteStream:
        """A stream writing to ``pipe`` (a pipe or socket file) through ``loop``."""
        transport, drain = await loop.connect_write_pipe(_Drain, pipe)
        return cls(transport, drain)

    async def send(self, item: SessionMessage, /) -> None:
        if self._transport.is_closing():
            # Closed by the reader going away (broken) or by us (closed).
            if self._drain.lost.is_set():
                raise anyio.BrokenResourceError
            raise anyio.ClosedResourceError
        json = item.message.model_dump_json(by_alias=True, exclude_unset=True)
        self._transport.write((json + "\n").encode("utf-8"))
        if not self._drain.writable.is_set():
            await self._drain.writable.wait()

    async def aclose(self) -> None:
        """Stop accepting messages; what is buffered is still written."""
        self._transport.close()

    async def flush_and_close(self) -> None:
        """Close and wait (bounded) until the buffered messages reached stdout."""
        self._transport.close()
        with anyio.move_on_after(_FLUSH_WAIT):
            await self._drain.lost.wait()
