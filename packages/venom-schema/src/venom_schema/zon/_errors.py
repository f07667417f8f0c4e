"""The one exception the ZON reader raises, and source positions for it."""

from __future__ import annotations

__all__ = ("LiteralError", "ZonError", "position")


class ZonError(ValueError):
    """Raised by ``parse_zon`` for any input that is not a valid ZON document.

    ``str()`` is ``file:line:col: message`` with a 1-based line and a 1-based column counted in
    Unicode code points.
    """

    filename: str
    line: int
    col: int
    message: str

    def __init__(self, filename: str, line: int, col: int, message: str) -> None:
        super().__init__(filename, line, col, message)
        self.filename = filename
        self.line = line
        self.col = col
        self.message = message

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}:{self.col}: {self.message}"


def position(text: str, offset: int) -> tuple[int, int]:
    """1-based ``(line, column)`` of code point ``offset`` in ``text``; only ``\\n`` ends a line."""
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start + 1


class LiteralError(Exception):
    """Internal: a bad literal, ``offset`` code points into its token; the parser adds the place."""

    def __init__(self, message: str, offset: int = 0) -> None:
        super().__init__(message, offset)
        self.message = message
        self.offset = offset
