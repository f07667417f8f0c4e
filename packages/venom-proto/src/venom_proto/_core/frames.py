"""Binary frame envelope v1 (RFC-0002 3, 5): preamble sniffing, header codec, frame buffers."""

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
    "FrameBuffer",
    "FrameDecoder",
    "encode_frame",
    "select_protocol",
)

HEADER = 10
# The control frame types (RFC-0002 §5.2), one per line so documentation tools see each.
HELLO = 1
HELLO_OK = 2
ERROR = 3
PING = 4
PONG = 5
CLOSE = 6
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


class FrameBuffer:
    """Binary frames after the preamble; `next_frame` gives them in order."""

    __slots__ = ("_buf", "_frames", "_pos", "ended", "fatal", "max_frame")

    def __init__(self, max_frame: int) -> None:
        self.max_frame = max_frame
        self._buf = bytearray()
        self._frames: list[Frame] = []
        self._pos = 0
        self.fatal: ProtocolViolation | None = None
        self.ended = False

    @property
    def buffered(self) -> int:
        """Bytes held: the partial frame plus the payloads of untaken frames."""
        held = len(self._buf)
        for frame in self._frames[self._pos :]:
            held += HEADER + len(frame.payload)
        return held

    @property
    def partial(self) -> bool:
        """True while part of a frame is waiting for the rest."""
        return bool(self._buf)

    def feed(self, data: bytes) -> bool:
        """Add received bytes; True when they completed at least one frame."""
        if self.fatal is not None or self.ended or not data:
            return False
        buf = self._buf
        buf += data
        frames = self._frames
        if self._pos:
            del frames[: self._pos]
            self._pos = 0
        count = len(frames)
        pos, end, limit = 0, len(buf), self.max_frame
        while end - pos >= HEADER:
            type_, stream, length = _unpack_from(buf, pos)
            if type_ == 0 or length > limit:
                self._fail(type_, limit)
                break
            stop = pos + HEADER + length
            if stop > end:
                break
            frames.append(Frame(type_, stream, bytes(buf[pos + HEADER : stop])))
            pos = stop
        if pos:
            del buf[:pos]
        return len(frames) > count

    def end(self) -> None:
        """The peer sent its last byte; a frame cut short is ``protocol.bad_frame``."""
        if self.ended:
            return
        self.ended = True
        if self._buf and self.fatal is None:
            self.fatal = bad_frame("the connection ended inside a frame")
            self._buf.clear()

    def limit(self, max_frame: int) -> None:
        """Apply a new ``max_frame`` to every frame not yet taken and to the one arriving."""
        self.max_frame = max_frame
        frames = self._frames
        for index in range(self._pos, len(frames)):
            if len(frames[index].payload) > max_frame:
                del frames[index:]
                self._fail(1, max_frame)
                return
        if self.fatal is not None:
            if self.fatal.code == "protocol.too_large":  # say the limit now in force
                self.fatal = too_large(max_frame)
        elif len(self._buf) >= HEADER and _unpack_from(self._buf, 0)[2] > max_frame:
            self._fail(1, max_frame)

    def release(self) -> None:
        """Drop everything held (the connection is closed)."""
        self._buf = bytearray()
        self._frames = []
        self._pos = 0

    def next_frame(self) -> Frame | None:
        """The next complete frame, or ``None`` (see `fatal`)."""
        pos = self._pos
        if pos < len(self._frames):
            self._pos = pos + 1
            return self._frames[pos]
        return None

    def _fail(self, type_: int, limit: int) -> None:
        self.fatal = (
            bad_frame("frame type 0 is invalid", type=0) if type_ == 0 else too_large(limit)
        )
        self._buf.clear()


class FrameDecoder:
    """Split the bytes after the preamble into frames (the clients' decoder).

    A payload longer than ``max_frame`` raises ``protocol.too_large`` from its header alone, so
    nothing of it is buffered; frame type 0 raises ``protocol.bad_frame``. Both close.
    ``max_frame`` may be lowered after hello negotiation.
    """

    __slots__ = ("_frames",)

    def __init__(self, max_frame: int = DEFAULT_MAX_FRAME) -> None:
        if not 0 < max_frame <= HARD_MAX_FRAME:
            raise ValueError(f"max_frame must be 1..{HARD_MAX_FRAME}")
        self._frames = FrameBuffer(max_frame)

    @property
    def max_frame(self) -> int:
        """The longest payload accepted."""
        return self._frames.max_frame

    @max_frame.setter
    def max_frame(self, value: int) -> None:
        self._frames.limit(value)

    @property
    def buffered(self) -> int:
        """Bytes of an incomplete frame held back."""
        return self._frames.buffered

    def feed(self, data: bytes) -> list[Frame]:
        """Add ``data``; return every frame completed by it, in order."""
        buffer = self._frames
        buffer.feed(data)
        frames: list[Frame] = []
        while (frame := buffer.next_frame()) is not None:
            frames.append(frame)
        if buffer.fatal is not None:
            raise buffer.fatal
        return frames
