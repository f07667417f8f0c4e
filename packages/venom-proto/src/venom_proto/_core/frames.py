"""Binary frame envelope v1 (RFC-0002 3, 5): preamble sniffing, header codec, decoder."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Literal

from .errors import ProtocolViolation
from .ndjson import DEFAULT_MAX_FRAME, too_large

__all__ = (
    "CLOSE",
    "CONTROL",
    "ERROR",
    "HARD_MAX_FRAME",
    "HEADER",
    "HELLO",
    "HELLO_OK",
    "PING",
    "PONG",
    "PREAMBLE_BINARY_V1",
    "PREAMBLE_NDJSON",
    "SUPPORTED_PREAMBLES",
    "Frame",
    "FrameDecoder",
    "encode_frame",
    "select_protocol",
)

HEADER = 10
HELLO, HELLO_OK, ERROR, PING, PONG, CLOSE = 1, 2, 3, 4, 5, 6
CONTROL = 0x10
PREAMBLE_NDJSON = 0x7B
PREAMBLE_BINARY_V1 = 0xF5
SUPPORTED_PREAMBLES = (PREAMBLE_NDJSON, PREAMBLE_BINARY_V1)
#: RFC-0002 5.1: no negotiation can raise max_frame above 16 MiB.
HARD_MAX_FRAME = 16 * 1024 * 1024

_HEADER = struct.Struct(">HII")
_pack = _HEADER.pack
_unpack_from = _HEADER.unpack_from


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame: ``type`` (u16, non-zero), ``stream`` (u32) and its payload."""

    type: int
    stream: int
    payload: bytes


def encode_frame(type_: int, stream: int, payload: bytes) -> bytes:
    """The 10-byte big-endian header followed by ``payload``."""
    if not 0 < type_ <= 0xFFFF:
        raise ValueError(f"frame type {type_} out of range 1..65535")
    return _pack(type_, stream, len(payload)) + payload


def select_protocol(first_byte: int) -> Literal["ndjson", "binary"]:
    """Pick the protocol from a connection's first byte (RFC-0002 3).

    ``{`` is NDJSON, ``0xF5`` binary envelope v1; anything else, including the reserved
    ``0xF6``-``0xFF``, raises ``protocol.bad_preamble`` listing the accepted bytes.
    """
    if first_byte == PREAMBLE_NDJSON:
        return "ndjson"
    if first_byte == PREAMBLE_BINARY_V1:
        return "binary"
    raise ProtocolViolation(
        "protocol.bad_preamble",
        "first byte must be '{' (NDJSON) or 0xF5 (binary)",
        {"byte": first_byte, "supported": list(SUPPORTED_PREAMBLES)},
        close=True,
    )


def bad_frame(message: str, **data: int) -> ProtocolViolation:
    """The ``protocol.bad_frame`` violation, which closes the connection."""
    return ProtocolViolation("protocol.bad_frame", message, data or None, close=True)


class FrameDecoder:
    """Split the bytes after the preamble into frames.

    A payload longer than ``max_frame`` raises ``protocol.too_large`` from its header alone, so
    nothing of it is buffered; frame type 0 raises ``protocol.bad_frame``. Both close.
    ``max_frame`` may be lowered after hello negotiation.
    """

    __slots__ = ("_buf", "max_frame")

    def __init__(self, max_frame: int = DEFAULT_MAX_FRAME) -> None:
        if not 0 < max_frame <= HARD_MAX_FRAME:
            raise ValueError(f"max_frame must be 1..{HARD_MAX_FRAME}")
        self.max_frame = max_frame
        self._buf = bytearray()

    @property
    def buffered(self) -> int:
        """Bytes of an incomplete frame held back."""
        return len(self._buf)

    def feed(self, data: bytes) -> list[Frame]:
        """Add ``data``; return every frame completed by it, in order."""
        buf = self._buf
        buf += data
        frames: list[Frame] = []
        pos, end, limit = 0, len(buf), self.max_frame
        while end - pos >= HEADER:
            type_, stream, length = _unpack_from(buf, pos)
            if type_ == 0:
                raise bad_frame("frame type 0 is invalid", type=0)
            if length > limit:
                raise too_large(limit)
            stop = pos + HEADER + length
            if stop > end:
                break
            frames.append(Frame(type_, stream, bytes(buf[pos + HEADER : stop])))
            pos = stop
        if pos:
            del buf[:pos]
        return frames
