"""Sans-I/O bookkeeping for a binary-envelope client connection (RFC-0002 5).

Verbs travel in CONTROL frames and reuse :class:`ClientCore`'s id bookkeeping; HELLO/HELLO_OK
replace the hello request; other frames are queued for the application.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any

from ._client_core import ClientCore
from ._core.errors import VenomError
from ._core.frames import (
    CLOSE,
    CONTROL,
    ERROR,
    HEADER,
    HELLO,
    HELLO_OK,
    PING,
    PONG,
    PREAMBLE_BINARY_V1,
    Frame,
    FrameDecoder,
    encode_frame,
)
from ._core.ndjson import DEFAULT_MAX_FRAME
from ._core.replies import invalid_reply

if TYPE_CHECKING:
    from ._client_core import Dumps, Loads

__all__ = ("BinaryClientCore", "as_binary")


class BinaryClientCore(ClientCore):
    """Like :class:`ClientCore` over frames; tool frames land in :attr:`frames`."""

    def __init__(self, *, loads: Loads, dumps: Dumps, max_frame: int | None = None) -> None:
        super().__init__(loads=loads, dumps=dumps, max_frame=max_frame)
        self._frames = FrameDecoder(max_frame or DEFAULT_MAX_FRAME)
        self._next_stream = 1
        self._out = bytearray()
        #: Frames for the application: tool frames, and ERROR/CLOSE on non-zero streams.
        self.frames: deque[Frame] = deque()
        #: Set when the server sent CLOSE or ERROR on stream 0.
        self.closed_by_server: VenomError | None = None

    def _encode(self, message: dict[str, Any]) -> bytes:
        return encode_frame(CONTROL, 0, self._dumps(message))

    def start(self, params: dict[str, Any]) -> bytes:
        """The opening bytes: preamble ``0xF5`` and the HELLO frame."""
        return bytes((PREAMBLE_BINARY_V1,)) + encode_frame(HELLO, 0, self._dumps(params))

    def open_stream(self) -> int:
        """A fresh client stream id (odd, never reused)."""
        stream = self._next_stream
        self._next_stream += 2
        return stream

    def frame(self, type_: int, stream: int, payload: bytes) -> bytes:
        """Encode one frame, refusing a payload over the negotiated max_frame."""
        if len(payload) > self.max_frame:
            raise self._too_large(len(payload))
        return encode_frame(type_, stream, payload)

    def _check_size(self, data: bytes) -> bytes:
        if len(data) - HEADER > self.max_frame:
            raise self._too_large(len(data) - HEADER)
        return data

    def data_to_send(self) -> bytes:
        """Bytes the core wants sent on its own (PONG answers); empty when none."""
        out = bytes(self._out)
        self._out.clear()
        return out

    def next_frame(self) -> Frame | None:
        """The next frame for the application, or ``None`` if none arrived yet."""
        return self.frames.popleft() if self.frames else None

    def _error_object(self, payload: bytes) -> VenomError:
        try:
            return VenomError.from_object(self._loads(payload))
        except ValueError:
            return VenomError("protocol.invalid_reply", "undecodable ERROR frame")

    def receive_data(self, data: bytes) -> list[int | str]:
        """Feed received bytes; CONTROL replies are queued per id as in NDJSON mode."""
        touched: list[int | str] = []
        for frame in self._frames.feed(data):
            type_ = frame.type
            if type_ == CONTROL:
                self._accept(self._parse(frame.payload), touched)
            elif type_ == HELLO_OK:
                if self.hello_done:
                    raise invalid_reply("unexpected HELLO_OK")
                self._settle_hello(self._parse_hello(frame.payload), None)
                self._frames.max_frame = self.max_frame
            elif frame.stream == 0 and type_ in (ERROR, CLOSE):
                error = (
                    self._error_object(frame.payload)
                    if type_ == ERROR
                    else VenomError("unavailable.closing", "the daemon closed the connection")
                )
                if not self.hello_done:
                    self._settle_hello(None, error)
                self.closed_by_server = error
            elif type_ == PING:
                self._out += encode_frame(PONG, 0, frame.payload)
            elif type_ == PONG:
                continue  # liveness only
            else:
                self.frames.append(frame)
        return touched

    def _parse_hello(self, payload: bytes) -> Any:
        try:
            return self._loads(payload)
        except ValueError:
            raise invalid_reply("undecodable HELLO_OK") from None


def as_binary(core: ClientCore) -> BinaryClientCore:
    """``core`` as a binary core; ``RuntimeError`` on an NDJSON connection."""
    if isinstance(core, BinaryClientCore):
        return core
    raise RuntimeError("frames need a binary connection (binary=True)")
