"""stdin bytes to parsed JSON-RPC messages, sans I/O, shared by both stdio transports.

Lines end as in the SDK's text wrapper (universal newlines: ``\\n``, ``\\r\\n`` or ``\\r``) and
are decoded as it decodes them (UTF-8, ``errors="replace"``); splitting the bytes first gives
the same lines, since neither newline byte occurs inside a UTF-8 sequence. Two rules are ours,
each answered with ``-32600`` and ``id: null`` by ``_envelope``:

- A line longer than :data:`MAX_LINE` bytes (newline excluded) is dropped while it streams
  in, so it never occupies more than that in memory, and is never parsed (`LineTooLong`).
- A message with an ``id`` member that is not a string or an integer is an invalid request
  (`UnusableId`). The SDK's union would read it as a notification and never answer it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Final

import mcp.types as mt
from mcp.shared.message import SessionMessage

__all__ = ("MAX_LINE", "LineSplitter", "LineTooLong", "UnusableId", "parse_line", "parsed")

#: Longest stdin line, in bytes without its newline: 4 MiB. The daemon's requests are at most
#: RFC-0002's default max_frame (1 MiB), and JSON escapes (``\\u00e9`` for a 2-byte ``é``) can
#: make the same arguments up to 3 times longer as MCP text: a longer line could never be
#: forwarded anyway.
MAX_LINE: Final = 4 * 1024 * 1024


class LineTooLong(Exception):
    """A stdin line longer than ``max_line`` bytes, dropped unparsed."""

    def __init__(self, max_line: int) -> None:
        super().__init__(f"Invalid Request: line longer than {max_line} bytes")
        self.max_line = max_line


class UnusableId(Exception):
    """A request whose ``id`` is neither a string nor an integer (MCP's RequestId)."""

    def __init__(self) -> None:
        super().__init__("Invalid Request: id must be a string or an integer")


class LineSplitter:
    """Cuts a byte stream into lines of at most ``max_line`` bytes; too long ones become None."""

    __slots__ = ("_cr", "_dropping", "_parts", "_size", "max_line")

    def __init__(self, max_line: int = MAX_LINE) -> None:
        self.max_line = max_line
        self._parts: list[bytes] = []  # the line being received
        self._size = 0
        self._dropping = False  # the line being received is already too long
        self._cr = False  # the last chunk ended in "\r", whose "\n" may come next

    def feed(self, data: bytes) -> list[bytes | None]:
        """The lines that ``data`` completes, in order (None for one that was too long)."""
        if not data:
            return []
        if self._cr:
            self._cr = False
            if data.startswith(b"\n"):
                data = data[1:]
        lines: list[bytes | None] = []
        for piece in data.splitlines(keepends=True):
            if piece.endswith(b"\r\n"):
                lines.append(self._end(piece[:-2]))
            elif piece.endswith((b"\n", b"\r")):
                lines.append(self._end(piece[:-1]))
            else:
                self._add(piece)  # the start of a line that a later chunk ends
        self._cr = data.endswith(b"\r")
        return lines

    def finish(self) -> list[bytes | None]:
        """At end of input: the last line, which needs no newline (as in the SDK)."""
        if self._parts or self._dropping:
            return [self._end(b"")]
        return []

    def _add(self, piece: bytes) -> None:
        if self._dropping:
            return
        self._size += len(piece)
        if self._size > self.max_line:
            self._dropping = True
            self._parts = []
        else:
            self._parts.append(piece)

    def _end(self, piece: bytes) -> bytes | None:
        self._add(piece)
        line = None if self._dropping else b"".join(self._parts)
        self._parts, self._size, self._dropping = [], 0, False
        return line


def _has_id(text: str) -> bool:
    # Only notifications get here (rare), so a full parse of the raw line is cheap enough;
    # a plain substring test would miss an escaped key such as "\u0069d".
    try:
        raw = json.loads(text)
    except ValueError:
        return False
    return isinstance(raw, dict) and "id" in raw


def parse_line(
    line: bytes | None, max_line: int = MAX_LINE, *, terminated: bool = True
) -> SessionMessage | Exception:
    """One stdin line as the SDK parses it, or the exception item the server is handed.

    The SDK parses a line with its newline, except the last one when stdin ends without one.
    """
    if line is None:
        return LineTooLong(max_line)
    text = line.decode("utf-8", errors="replace") + ("\n" if terminated else "")
    try:
        message = mt.jsonrpc_message_adapter.validate_json(text, by_name=False)
    except Exception as exc:  # the SDK hands every parse failure on as an item
        return exc
    if isinstance(message, mt.JSONRPCNotification) and _has_id(text):
        return UnusableId()
    return SessionMessage(message)


def parsed(
    lines: list[bytes | None], max_line: int, *, terminated: bool = True
) -> Iterator[tuple[SessionMessage | Exception, int]]:
    """Each line parsed, with the stdin bytes it took (for the queue's byte bound)."""
    for line in lines:
        size = max_line if line is None else len(line)
        yield parse_line(line, max_line, terminated=terminated), size
