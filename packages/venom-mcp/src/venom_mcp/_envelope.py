"""Answering malformed stdin lines with JSON-RPC errors (RFC-0004 §5: invalid envelopes).

The SDK's stdio transport hands an undecodable line to the server as an exception item, which
the server then drops silently; JSON-RPC 2.0 wants a -32700 or -32600 reply with ``id: null``.
"""

from __future__ import annotations

from contextlib import suppress
from typing import Any, cast

import anyio
import mcp.types as mt
from anyio.abc import ObjectReceiveStream
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

__all__ = ("AnsweringMalformed", "envelope_error")


def envelope_error(exc: Exception) -> mt.ErrorData:
    """-32700 for text that is not JSON, -32600 for JSON that is no JSON-RPC message."""
    if isinstance(exc, ValidationError) and any(
        e.get("type") == "json_invalid" for e in exc.errors()
    ):
        return mt.ErrorData(code=mt.PARSE_ERROR, message="Parse error")
    return mt.ErrorData(code=mt.INVALID_REQUEST, message="Invalid Request")


class AnsweringMalformed(ObjectReceiveStream[SessionMessage]):
    """The SDK's read stream minus its exception items, each answered on ``write_stream``.

    A thin wrapper rather than a relay task: a message passes through without a task switch.
    """

    def __init__(self, read_stream: Any, write_stream: Any) -> None:
        self._read = read_stream
        self._write = write_stream

    async def receive(self) -> SessionMessage:
        while True:
            item = await self._read.receive()
            if not isinstance(item, Exception):
                return cast(SessionMessage, item)
            reply = mt.JSONRPCError(jsonrpc="2.0", id=None, error=envelope_error(item))
            with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                await self._write.send(SessionMessage(reply))  # else: the server is stopping

    async def aclose(self) -> None:
        await self._read.aclose()
