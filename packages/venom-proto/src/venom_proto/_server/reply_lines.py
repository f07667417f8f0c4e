"""Encoding a call's final reply as one NDJSON line, including when the handler's data fails.

A result that cannot be encoded, or that encodes longer than the connection's ``max_frame``,
becomes an ``internal`` error line (RFC-0002 4.3, 7.1): the peer always gets exactly one final
reply, and the daemon's log keeps the traceback.
"""

from __future__ import annotations

import logging
from typing import Any

from venom_proto._core.errors import VenomError
from venom_proto._core.messages import encode_error, encode_ok

from .api import Call

__all__ = ("error_line", "internal_error", "ok_line", "too_large_line")

log = logging.getLogger("venom_proto.server")


def ok_line(call: Call, result: Any, max_frame: int) -> bytes:
    """``{"id", "ok"}`` for ``result``, or the error line that replaces it."""
    try:
        line = encode_ok(call.id, result)
    except TypeError:
        return error_line(call.id, internal_error(call))
    if len(line) > max_frame:
        return too_large_line(call.id, max_frame)
    return line


def too_large_line(rid: int | str, max_frame: int) -> bytes:
    """``internal.too_large``: the result would not fit the negotiated frame."""
    err = VenomError("internal.too_large", "result larger than max_frame", {"max_frame": max_frame})
    return encode_error(rid, err)


def error_line(rid: int | str | None, err: VenomError) -> bytes:
    """``{"id", "error"}``; data a handler made unserialisable is dropped, code and message kept."""
    try:
        return encode_error(rid, err)
    except TypeError:
        return encode_error(rid, VenomError(err.code, err.message))


def internal_error(call: Call) -> VenomError:
    """Log the exception being handled and return the ``internal`` error the peer sees."""
    log.exception("verb %r (request %r) raised", call.verb, call.id)
    return VenomError(
        "internal", f"internal error in verb {call.verb!r}; details are in the daemon's log"
    )
