"""MCP stdio through worker threads, for what the event loop cannot watch.

Regular files and ttys cannot be registered with epoll, stdout sharing one pipe with stderr
must stay blocking (non-blocking mode belongs to the open file, so log writes could fail with
EAGAIN), and trio has no pipe transports: ``_stdio`` then yields ``None`` and this transport
serves instead. It reads stdin in chunks on a worker thread and feeds the same bounded
splitter and parser (``_lines``) and the same queue (``PipeReadStream``) as the pipe path, so
both paths answer every line alike; messages are written whole, one at a time, in a thread.
fd 0 and fd 1 are diverted while serving, as in the SDK and ``_stdio``.
"""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import anyio.to_thread
from anyio.abc import ObjectSendStream
from mcp.shared.message import SessionMessage

from venom_mcp._lines import LineSplitter, parsed
from venom_mcp._pipe_streams import PipeReadStream
from venom_mcp._stdio import Claim
from venom_proto.files import write_all

__all__ = ("blocking_stdio",)

log = logging.getLogger("venom_mcp")

_CHUNK = 65536


class BlockingWriteStream(ObjectSendStream[SessionMessage]):
    """Writes each message as the SDK does (compact JSON and ``\\n``), whole, in a thread."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._lock = anyio.Lock()  # one message at a time: concurrent writes would interleave
        self._closed = False

    async def send(self, item: SessionMessage, /) -> None:
        if self._closed:
            raise anyio.ClosedResourceError
        data = (item.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n").encode()
        async with self._lock:
            try:
                await anyio.to_thread.run_sync(write_all, self._fd, data)
            except OSError as exc:  # EPIPE, a full disk: nobody gets our output any more
                self._closed = True
                raise anyio.BrokenResourceError from exc

    async def aclose(self) -> None:
        self._closed = True


class _Reader:
    """Whether a read of stdin is on its way in a worker thread."""

    in_flight = False

    def read(self, fd: int) -> bytes:
        self.in_flight = True
        try:
            return os.read(fd, _CHUNK)
        finally:
            self.in_flight = False


async def _read_stdin(fd: int, stream: PipeReadStream, reader: _Reader) -> None:
    """Feed stdin to ``stream`` until EOF, pausing while the queue is full."""
    splitter = LineSplitter()

    def put(lines: list[bytes | None], *, terminated: bool = True) -> None:
        for item, size in parsed(lines, splitter.max_line, terminated=terminated):
            stream.put(item, size)

    try:
        while data := await anyio.to_thread.run_sync(reader.read, fd, abandon_on_cancel=True):
            put(splitter.feed(data))
            if stream.full():
                drained = anyio.Event()
                stream.on_drained = drained.set
                await drained.wait()
        put(splitter.finish(), terminated=False)
    except OSError as exc:
        log.debug("stdin: %s", exc)
    finally:
        stream.end()


@asynccontextmanager
async def blocking_stdio() -> AsyncIterator[tuple[PipeReadStream, BlockingWriteStream]]:
    """Serve stdin/stdout through worker threads until the caller is done."""
    stdin = Claim(0, os.open(os.devnull, os.O_RDONLY))
    try:
        stdout = Claim(1, os.dup(2))
    except OSError:
        stdin.restore()
        raise
    read_stream = PipeReadStream()
    write_stream = BlockingWriteStream(stdout.private)
    reader = _Reader()
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(_read_stdin, stdin.private, read_stream, reader)
            try:
                yield read_stream, write_stream
            finally:
                tg.cancel_scope.cancel()  # a read blocked in its thread is abandoned
    finally:
        stdout.restore()
        # An abandoned read still uses our duplicate: closing it could let the descriptor
        # number be reused under that thread. It is left open for the process's last moments.
        stdin.restore(close=not reader.in_flight)
