"""Answering malformed stdin lines with JSON-RPC errors (RFC-0004 §5: invalid envelopes).

The SDK's stdio transport hands an undecodable line to the server as an exception item, which
the server then drops silently; JSON-RPC 2.0 wants a -32700 or -32600 reply with ``id: null``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp.types as mt
from anyio.streams.memory import MemoryObjectReceiveStream
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

__all__ = ("answer_malformed", "envelope_error")


def envelope_error(exc: Exception) -> mt.ErrorData:
    """-32700 for text that is not JSON, -32600 for JSON that is no JSON-RPC message."""
    if isinstance(exc, ValidationError) and any(
        e.get("type") == "json_invalid" for e in exc.errors()
    ):
        return mt.ErrorData(code=mt.PARSE_ERROR, message="Parse error")
    return mt.ErrorData(code=mt.INVALID_REQUEST, message="Invalid Request")


@asynccontextmanager
async def answer_malformed(
    read_stream: Any, write_stream: Any
) -> AsyncIterator[MemoryObjectReceiveStream[SessionMessage | Exception]]:
    """Relay ``read_stream`` to the yielded stream; exception items get an error reply."""
    send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)

    def route(item: SessionMessage | Exception) -> tuple[Any, SessionMessage]:
        if not isinstance(item, Exception):
            return send, item
        reply = mt.JSONRPCError(jsonrpc="2.0", id=None, error=envelope_error(item))
        return write_stream, SessionMessage(reply)

    async def relay() -> None:
        async with send:
            async for item in read_stream:
                target, message = route(item)
                try:
                    await target.send(message)
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    return  # the server is shutting down

    async with anyio.create_task_group() as tg:
        tg.start_soon(relay)
        yield receive
        tg.cancel_scope.cancel()
