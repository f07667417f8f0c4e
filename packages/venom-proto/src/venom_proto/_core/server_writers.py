"""How a server connection's replies become bytes: NDJSON lines or CONTROL frames (RFC-0002 4, 5).

`ServerConnection` picks one writer when the first byte selects the protocol (`writer_for`)
and writes every reply through it, so nothing else asks which framing the connection speaks.
A connection starts with an `NdjsonWriter`: before the first byte chooses, the only errors
(``protocol.bad_preamble``, ``timeout.idle``) are NDJSON lines. Every message a writer builds
stays within ``max_frame``: a final result or an item that would not is refused to the caller,
an error is cut to fit (`fit_error`).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any, Literal

from ._json import APPEND_NEWLINE, fast_dumps
from .errors import ProtocolViolation, VenomError
from .fitting import fit_error
from .frames import CLOSE, CONTROL, ERROR

__all__ = ("BinaryWriter", "NdjsonWriter", "ReplyWriter", "item_too_large", "writer_for")

_dumps = fast_dumps
_NEWLINE = APPEND_NEWLINE
_pack_header = struct.Struct(">HII").pack  # the v1 envelope's 10-byte header


def item_too_large(max_frame: int) -> VenomError:
    """``internal.too_large`` for a streamed item that would not fit ``max_frame`` (D-W9)."""
    return VenomError("internal.too_large", "item larger than max_frame", {"max_frame": max_frame})


class ReplyWriter:
    """Appends one connection's output to ``out`` (the connection takes it from there); the
    framing is the subclass's.

    ``max_frame`` is the connection's limit; the connection lowers it when hello settles.
    """

    __slots__ = ("max_frame", "out", "report")

    def __init__(self, max_frame: int, report: Callable[[], str] | None = None) -> None:
        self.max_frame = max_frame
        self.out = bytearray()
        #: Where to report a bug, appended to an ``internal`` error (`ServerSettings.report`).
        self.report = report

    def _fit(self, error: VenomError, encode: Callable[[dict[str, Any]], bytes]) -> bytes:
        if self.report is not None and error.code.startswith("internal"):
            where = self.report()
            if where:
                error = VenomError(error.code, f"{error.message}; {where}", error.data)
        return fit_error(error, self.max_frame, encode)

    def frame(self, type_: int, stream: int, payload: bytes) -> None:
        """A binary frame as it stands (the caller checked ``payload`` against ``max_frame``)."""
        out = self.out
        out += _pack_header(type_, stream, len(payload))
        out += payload

    def stream_error(self, stream: int, error: VenomError) -> None:
        """An ``ERROR`` frame on ``stream``, cut to fit ``max_frame``."""
        self.frame(ERROR, stream, self._fit(error, _dumps))

    def ok(self, rid: int | str, value: Any) -> None:
        """A core verb's success reply (``hello``, ``ping``, ``cancel``): always small."""
        raise NotImplementedError

    def result(self, rid: int | str, value: Any) -> bool:
        """A call's final result; ``False`` (nothing written) when it exceeds ``max_frame``.

        Raises ``TypeError`` when ``value`` cannot be encoded.
        """
        raise NotImplementedError

    def item(self, rid: int | str, value: Any) -> None:
        """One item of a streaming call; raises ``internal.too_large`` or ``TypeError``."""
        raise NotImplementedError

    def error(self, rid: int | str | None, error: VenomError) -> None:
        """An error reply, cut to fit ``max_frame``."""
        raise NotImplementedError

    def fatal(self, error: VenomError) -> None:
        """The error that closes the connection."""
        raise NotImplementedError

    def goodbye(self, reason: str) -> None:
        """The server is stopping (RFC-0002 2.5 step 7)."""
        raise NotImplementedError


class NdjsonWriter(ReplyWriter):
    """Replies as NDJSON lines (RFC-0002 4); a fatal error is a line with the request's id,
    if it was read, else ``null``."""

    __slots__ = ()

    def ok(self, rid: int | str, value: Any) -> None:
        self.out += _dumps({"id": rid, "ok": value}, option=_NEWLINE)

    def result(self, rid: int | str, value: Any) -> bool:
        line = _dumps({"id": rid, "ok": value}, option=_NEWLINE)
        if len(line) > self.max_frame:
            return False
        self.out += line
        return True

    def item(self, rid: int | str, value: Any) -> None:
        line = _dumps({"id": rid, "item": value}, option=_NEWLINE)
        if len(line) > self.max_frame:
            raise item_too_large(self.max_frame)
        self.out += line

    def error(self, rid: int | str | None, error: VenomError) -> None:
        def line(obj: dict[str, Any]) -> bytes:
            return _dumps({"id": rid, "error": obj}, option=_NEWLINE)

        self.out += self._fit(error, line)

    def fatal(self, error: VenomError) -> None:
        self.error(error.id if isinstance(error, ProtocolViolation) else None, error)

    def goodbye(self, reason: str) -> None:
        pass  # NDJSON has no goodbye message: the close says it


class BinaryWriter(ReplyWriter):
    """Replies as ``CONTROL`` frames on stream 0 (RFC-0002 5.2); a fatal error is an
    ``ERROR`` frame on stream 0, and the server's goodbye a ``CLOSE`` frame."""

    __slots__ = ()

    def ok(self, rid: int | str, value: Any) -> None:
        self.frame(CONTROL, 0, _dumps({"id": rid, "ok": value}))

    def result(self, rid: int | str, value: Any) -> bool:
        payload = _dumps({"id": rid, "ok": value})
        if len(payload) > self.max_frame:
            return False
        self.frame(CONTROL, 0, payload)
        return True

    def item(self, rid: int | str, value: Any) -> None:
        payload = _dumps({"id": rid, "item": value})
        if len(payload) > self.max_frame:
            raise item_too_large(self.max_frame)
        self.frame(CONTROL, 0, payload)

    def error(self, rid: int | str | None, error: VenomError) -> None:
        def payload(obj: dict[str, Any]) -> bytes:
            return _dumps({"id": rid, "error": obj})

        self.frame(CONTROL, 0, self._fit(error, payload))

    def fatal(self, error: VenomError) -> None:
        self.stream_error(0, error)

    def goodbye(self, reason: str) -> None:
        self.frame(CLOSE, 0, _dumps({"reason": reason}))


def writer_for(
    protocol: Literal["ndjson", "binary"],
    max_frame: int,
    report: Callable[[], str] | None = None,
) -> ReplyWriter:
    """The writer of a connection whose first byte chose ``protocol``."""
    kind = NdjsonWriter if protocol == "ndjson" else BinaryWriter
    return kind(max_frame, report)
