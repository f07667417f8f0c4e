"""MCP stdio on non-blocking pipes: the SDK's line format without a worker thread per message.

``mcp.server.stdio.stdio_server`` reads and writes through anyio worker threads (one hop per
line read, two per message written: write and flush), which is a large part of a call's
latency. When stdin and stdout are pipes or sockets and the loop is asyncio, ``pipe_stdio``
serves the same streams from the event loop itself: each line is parsed exactly as the SDK
does (UTF-8 with ``errors="replace"``, universal newlines, ``jsonrpc_message_adapter``; a line
that fails becomes the exception item the SDK would send) and each message is written as the
SDK's ``model_dump_json(by_alias=True, exclude_unset=True)`` plus ``\\n``. As in the SDK, fd 0
and fd 1 point at the null device and stderr while serving, so stray reads and prints miss the
wire; both are restored on exit. Anything else (files, ttys, another loop) yields ``None``,
and the caller uses ``_blocking_stdio``. Lines are split and bounded by ``_lines``.
"""

from __future__ import annotations

import asyncio
import fcntl
import logging
import os
import stat
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import IO, Any

import anyio

from venom_mcp._lines import MAX_LINE, LineSplitter, parsed
from venom_mcp._pipe_streams import PipeReadStream, PipeWriteStream

__all__ = ("Claim", "pipe_stdio")

log = logging.getLogger("venom_mcp")


class _LineParser(asyncio.Protocol):
    """Splits stdin into lines (``_lines``: bounded, as the SDK splits) and parses each one."""

    def __init__(self, stream: PipeReadStream, max_line: int = MAX_LINE) -> None:
        self._stream = stream
        self._splitter = LineSplitter(max_line)
        self.transport: asyncio.ReadTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.ReadTransport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self._put(self._splitter.feed(data), terminated=True)
        if self._stream.full() and self.transport is not None:
            self.transport.pause_reading()
            self._stream.on_drained = self.transport.resume_reading

    def eof_received(self) -> bool:
        self._put(self._splitter.finish(), terminated=False)
        self._stream.end()
        return False

    def _put(self, lines: list[bytes | None], *, terminated: bool) -> None:
        for item, size in parsed(lines, self._splitter.max_line, terminated=terminated):
            self._stream.put(item, size)

    def connection_lost(self, exc: Exception | None) -> None:
        self._stream.end()


def _is_pipe_or_socket(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _same_file(a: int, b: int) -> bool:
    try:
        sa, sb = os.fstat(a), os.fstat(b)
    except OSError:
        return False
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


def _usable() -> asyncio.AbstractEventLoop | None:
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # not on asyncio (trio)
        return None
    if not (_is_pipe_or_socket(0) and _is_pipe_or_socket(1)):
        return None
    # Non-blocking mode belongs to the open file, not the fd: were stdout and stderr one pipe,
    # log writes to stderr could fail with EAGAIN.
    if _same_file(1, 2):
        return None
    return loop


class Claim:
    """fd ``fd`` diverted while serving; the wire is kept on a private duplicate."""

    def __init__(self, fd: int, diversion: int) -> None:
        self.fd = fd
        self.private = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
        self.blocking = os.get_blocking(fd)
        try:
            os.dup2(diversion, fd)
        finally:
            os.close(diversion)

    def wire(self, mode: str) -> IO[Any]:
        """A file on the wire for a transport, which closes it when done."""
        return os.fdopen(fcntl.fcntl(self.private, fcntl.F_DUPFD_CLOEXEC, 3), mode, buffering=0)

    def restore(self, *, close: bool = True) -> None:
        """Point ``fd`` at the wire again, blocking or not as it was; ``close=False`` keeps
        the private duplicate open (for a worker thread that may still read it)."""
        os.dup2(self.private, self.fd)
        if close:
            os.close(self.private)
        os.set_blocking(self.fd, self.blocking)


@asynccontextmanager
async def pipe_stdio() -> AsyncIterator[tuple[PipeReadStream, PipeWriteStream] | None]:
    """Serve stdin/stdout from the event loop; yields ``None`` where that is not possible."""
    loop = _usable()
    if loop is None:
        yield None
        return
    claims: list[Claim] = []
    transports: list[asyncio.BaseTransport] = []
    write_stream: PipeWriteStream | None = None

    async def release() -> None:
        for transport in transports:
            transport.close()
        if write_stream is not None:
            with anyio.CancelScope(shield=True):
                await write_stream.flush_and_close()
        for claim in claims:  # after the flush, which needs the wire still non-blocking
            claim.restore()

    try:
        claims.append(stdin := Claim(0, os.open(os.devnull, os.O_RDONLY)))
        claims.append(stdout := Claim(1, os.dup(2)))
        read_stream = PipeReadStream()
        parser = _LineParser(read_stream)
        read_transport, _ = await loop.connect_read_pipe(lambda: parser, stdin.wire("rb"))
        transports.append(read_transport)
        write_stream = await PipeWriteStream.connect(loop, stdout.wire("wb"))
    except (OSError, ValueError) as exc:  # the loop refused the fds; the SDK's way works
        log.debug("serving stdio through the SDK's transport: %s", exc)
        await release()
        yield None
        return
    try:
        yield read_stream, write_stream
    finally:
        await release()
