"""NDJSON line splitting (RFC-0002 4.1), incremental and bounded.

`LineBuffer` (the server's) splits eagerly when bytes arrive but checks each line against
``max_frame`` when it is taken, so a limit lowered by hello applies from the very next line,
even one that arrived in the same read. An over-long line is not raised where it is found: the
``protocol.too_large`` error waits in ``fatal`` until every complete line before it has been
taken, and nothing after it is kept. `LineDecoder` (the clients') returns all complete lines
of a feed and raises that error instead.

Blank lines (empty, or only spaces, tabs and CRs) are skipped, not reported: they carry no
message, and a human typing into socat produces them. A peer that never sends ``\\n`` costs at
most ``max_frame`` plus one read of memory.
"""

from __future__ import annotations

from .errors import ProtocolViolation

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would cost the CLI ~2 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

__all__ = ("DEFAULT_MAX_FRAME", "LineBuffer", "LineDecoder", "too_large")

#: RFC-0002 4.1: default max_frame, 1 MiB.
DEFAULT_MAX_FRAME = 1048576
_TRAILING = b" \t\r"


def too_large(max_frame: int) -> ProtocolViolation:
    """The ``protocol.too_large`` violation, which closes the connection."""
    return ProtocolViolation(
        "protocol.too_large",
        f"message longer than max_frame ({max_frame} bytes)",
        {"max_frame": max_frame},
        close=True,
    )


class LineBuffer:
    """NDJSON lines; `next_line` gives the next non-blank one with trailing whitespace cut.

    The server core's fast path iterates `lines` itself (raw lines, ``\\n`` cut and nothing
    else, the next untaken one first) and gives back, with `give_back`, the one it stops at.
    """

    __slots__ = ("_held", "_partial", "_read", "all_short", "ended", "fatal", "lines", "max_frame")

    def __init__(self, max_frame: int) -> None:
        self.max_frame = max_frame
        self._partial = bytearray()
        self.lines: Iterator[bytes] = iter(())
        self._held: bytes | None = None  # a line given back, taken before `lines`
        self._read = 0  # bytes of the read the untaken lines came in
        #: True when every untaken line is shorter than ``max_frame``.
        self.all_short = True
        #: The error found after the complete lines still to be taken, if any.
        self.fatal: ProtocolViolation | None = None
        #: True once `end` was called: no byte will follow.
        self.ended = False

    @property
    def buffered(self) -> int:
        """Bytes held: the partial line, plus the read its untaken lines came in."""
        held = len(self._partial)
        if self._held is not None or self.lines.__length_hint__():  # type: ignore[attr-defined]
            held += self._read
        return held

    @property
    def partial(self) -> bool:
        """True while part of a line is waiting for its ``\\n``."""
        return bool(self._partial)

    def give_back(self, line: bytes) -> None:
        """Return the line just taken from `lines`: it is the next one taken again."""
        self._held = line

    def _untaken(self) -> list[bytes]:
        held, self._held = self._held, None
        rest = list(self.lines)
        return rest if held is None else [held, *rest]

    def feed(self, data: bytes) -> bool:
        """Add received bytes; True when they ended at least one line."""
        if self.fatal is not None or self.ended or not data:
            return False
        partial = self._partial
        if data.find(b"\n") < 0:
            if len(partial) + len(data) >= self.max_frame:
                self._fail()
            else:
                partial += data
            return False
        parts = data.split(b"\n")
        tail = parts.pop()
        # A line can only reach max_frame if this read (with the partial line) can.
        could_be_long = len(partial) + len(data) >= self.max_frame
        self._read = len(partial) + len(data) - len(tail)
        if partial:
            # Only the new bytes were scanned: the old partial line is never rescanned.
            parts[0] = bytes(partial) + parts[0]
            partial.clear()
        if self._held is not None or self.lines.__length_hint__():  # type: ignore[attr-defined]
            untaken = self._untaken()  # input processing was paused: those come first
            self._read += sum(map(len, untaken))
            parts[:0] = untaken
            could_be_long = True
        self._take(parts, could_be_long)
        if len(tail) >= self.max_frame:
            self._fail(after=True)
        elif tail:
            partial += tail
        return True

    def _take(self, lines: list[bytes], could_be_long: bool = True) -> None:
        self.all_short = not could_be_long or max(map(len, lines), default=0) < self.max_frame
        self.lines = iter(lines)

    def end(self) -> None:
        """The peer sent its last byte; a last line without ``\\n`` still counts (JSON Lines)."""
        if self.ended:
            return
        self.ended = True
        if self._partial and self.fatal is None:
            self._take([*self._untaken(), bytes(self._partial)])
            self._partial.clear()

    def limit(self, max_frame: int) -> None:
        """Apply a new ``max_frame`` from the next line on (hello settled it)."""
        self.max_frame = max_frame
        self._take(self._untaken())
        if self.fatal is not None:  # still after the untaken lines: say the limit now in force
            self.fatal = too_large(max_frame)
        elif len(self._partial) >= max_frame:
            self._fail(after=True)

    def next_line(self) -> bytes | None:
        """The next non-blank line, or ``None`` when none is complete (see `fatal`)."""
        limit = self.max_frame
        held = self._held
        if held is not None:  # the line the fast path stopped at
            self._held = None
            lines: Iterable[bytes] = (held,)
        else:
            lines = self.lines
        while True:
            for raw in lines:
                if len(raw) >= limit:  # with its "\\n" it is longer than max_frame
                    self._fail()
                    return None
                line = raw.rstrip(_TRAILING)
                if line:
                    return line
            if lines is self.lines:
                return None
            lines = self.lines

    def release(self) -> None:
        """Drop everything held (the connection is closed)."""
        self._partial = bytearray()
        self._held = None
        self.lines = iter(())

    def _fail(self, *, after: bool = False) -> None:
        """``protocol.too_large``: at the next line, or ``after`` the complete ones."""
        self.fatal = too_large(self.max_frame)
        self._partial.clear()
        if not after:
            self._held = None
            self.lines = iter(())


class LineDecoder:
    """Split a byte stream into lines; ``feed`` returns the complete ones, trailing space cut."""

    __slots__ = ("_buffer",)

    def __init__(self, max_frame: int = DEFAULT_MAX_FRAME) -> None:
        self._buffer = LineBuffer(max_frame)

    @property
    def max_frame(self) -> int:
        """The longest line accepted, its ``\\n`` included."""
        return self._buffer.max_frame

    @max_frame.setter
    def max_frame(self, value: int) -> None:
        self._buffer.limit(value)

    @property
    def buffered(self) -> int:
        """Bytes of an incomplete line held back."""
        return self._buffer.buffered

    def feed(self, data: bytes) -> list[bytes]:
        """Add ``data``; return every line completed by it, in order.

        Raises ``protocol.too_large`` (close) once a line is longer than ``max_frame``.
        """
        buffer = self._buffer
        buffer.feed(data)
        lines: list[bytes] = []
        while (line := buffer.next_line()) is not None:
            lines.append(line)
        if buffer.fatal is not None:
            raise buffer.fatal
        return lines
