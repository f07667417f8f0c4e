"""Answering malformed stdin lines with JSON-RPC errors (RFC-0004 §5: invalid envelopes).

The stdio transports hand an undecodable line to the server as an exception item, which the
server would drop silently; JSON-RPC 2.0 wants a -32700 or -32600 reply with ``id: null``.
That includes ``_lines``' own refusals: a line over ``MAX_LINE`` and an unusable id.

At stdin's end the server stops and cancels what is still running. Requests that arrived just
before it (a batch piped in, then EOF) are given up to :data:`EOF_GRACE` seconds to be
answered first, so a quick call is not lost to the race; a call that takes longer is cancelled
upstream as before.
"""

from __future__ import annotations

from contextlib import suppress
from typing import Any, cast

import anyio
import mcp.types as mt
from anyio.abc import ObjectReceiveStream, ObjectSendStream
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from venom_mcp._lines import LineTooLong, UnusableId

__all__ = ("EOF_GRACE", "AnsweringMalformed", "envelope_error")

#: Seconds that requests already received may take to be answered after stdin's end.
EOF_GRACE = 2.0


def envelope_error(exc: Exception) -> mt.ErrorData:
    """-32700 for text that is not JSON, -32600 for JSON that is no JSON-RPC message."""
    if isinstance(exc, LineTooLong):
        return mt.ErrorData(
            code=mt.INVALID_REQUEST, message=str(exc), data={"max_line": exc.max_line}
        )
    if isinstance(exc, UnusableId):
        return mt.ErrorData(code=mt.INVALID_REQUEST, message=str(exc))
    if isinstance(exc, ValidationError) and any(
        e.get("type") == "json_invalid" for e in exc.errors()
    ):
        return mt.ErrorData(code=mt.PARSE_ERROR, message="Parse error")
    return mt.ErrorData(code=mt.INVALID_REQUEST, message="Invalid Request")


class _Replies(ObjectSendStream[SessionMessage]):
    """The server's write stream, noting which received requests have been answered."""

    def __init__(self, write_stream: Any) -> None:
        self._write = write_stream
        self.pending: set[int | str] = set()
        self.changed = anyio.Event()

    def received(self, message: Any) -> None:
        if isinstance(message, mt.JSONRPCRequest):
            self.pending.add(message.id)
        elif isinstance(message, mt.JSONRPCNotification) and message.method == (
            "notifications/cancelled"
        ):
            # A cancelled request gets no answer (MCP): nothing to wait for.
            request_id = (message.params or {}).get("requestId")
            if isinstance(request_id, int | str):
                self._done(request_id)

    def _done(self, request_id: int | str) -> None:
        if request_id in self.pending:
            self.pending.discard(request_id)
            self.changed.set()
            self.changed = anyio.Event()

    async def send(self, item: SessionMessage, /) -> None:
        await self._write.send(item)
        message = item.message
        if isinstance(message, mt.JSONRPCResponse | mt.JSONRPCError) and message.id is not None:
            self._done(message.id)

    async def aclose(self) -> None:
        await self._write.aclose()


class AnsweringMalformed(ObjectReceiveStream[SessionMessage]):
    """The transport's read stream minus its exception items, each answered on
    ``write_stream``; give the server `replies` as its write stream (for the EOF grace).

    A thin wrapper rather than a relay task: a message passes through without a task switch.
    """

    def __init__(self, read_stream: Any, write_stream: Any) -> None:
        self._read = read_stream
        self._write = write_stream
        #: The write stream for the server: ``write_stream``, tracking answers.
        self.replies = _Replies(write_stream)

    async def receive(self) -> SessionMessage:
        while True:
            try:
                item = await self._read.receive()
            except anyio.EndOfStream:
                await self._grace()
                raise
            if not isinstance(item, Exception):
                self.replies.received(item.message)
                return cast(SessionMessage, item)
            reply = mt.JSONRPCError(jsonrpc="2.0", id=None, error=envelope_error(item))
            with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                await self._write.send(SessionMessage(reply))  # else: the server is stopping

    async def _grace(self) -> None:
        with anyio.move_on_after(EOF_GRACE):
            while self.replies.pending:
                await self.replies.changed.wait()

    async def aclose(self) -> None:
        await self._read.aclose()
