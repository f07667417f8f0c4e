"""Tokens of the ZON subset of Zig, following std.zig.Tokenizer's rules for each byte.

Comments (``//``) and whitespace are skipped; doc comments, control characters outside the
places Zig allows them and unknown characters are errors with a precise position.
"""

from __future__ import annotations

import re
from collections import deque
from typing import Final

from ._errors import ZonError, position

__all__ = ("KEYWORDS", "Lexer", "Token")

_KEYWORD_LIST = (
    "addrspace align allowzero and anyframe anytype asm break callconv catch comptime const "
    "continue defer else enum errdefer error export extern fn for if inline noalias noinline "
    "nosuspend opaque or orelse packed pub resume return linksection struct suspend switch test "
    "threadlocal try union unreachable var volatile while"
)
KEYWORDS: Final = frozenset(_KEYWORD_LIST.split())

_SKIP = r"(?:[ \t\r\n]+|//(?!!)(?!/(?!/))(?:[^\x00-\x1f\x7f]|\r(?=\n))*(?=\n|\Z))*"
_NOT_EXP = r"[0-9A-DF-OQ-Za-df-oq-z_]"
_NUMBER = (
    rf"[0-9](?:[eEpP](?![+-])|{_NOT_EXP})*"
    rf"(?:(?:[eEpP][+-]|\.(?=[0-9A-Za-z_]))(?:[eEpP][+-]?|{_NOT_EXP})*)?"
)
_QUOTED_BODY = r"(?:[^{q}\\\x00-\x1f\x7f]|\\[^\x00-\x1f\x7f])*"
_OPERATOR_LIST = (
    "<<|= <<= >>= ... *%= *|= +%= +|= -%= -|= <<| *% *| +% +| ++ -% -| -> .. .* << >> <= >= == "
    "!= => &= |= ^= *= /= %= += -= || ! % & ( ) * + , - . / : ; < = > ? [ ] ^ { | } ~"
)
_OPERATORS = sorted(
    _OPERATOR_LIST.split(),
    key=len,
    reverse=True,
)
_TOKEN = re.compile(
    _SKIP
    + "(?:"
    + "|".join(
        (
            rf"(?P<number>{_NUMBER})",
            r"(?P<ident>[A-Za-z_][A-Za-z0-9_]*)",
            '(?P<string>"' + _QUOTED_BODY.format(q='"') + '")',
            '(?P<qident>@"' + _QUOTED_BODY.format(q='"') + '")',
            r"(?P<builtin>@[A-Za-z_][A-Za-z0-9_]*)",
            "(?P<char>'" + _QUOTED_BODY.format(q="'") + "')",
            r"(?P<mline>\\\\(?:[^\x00-\x1f\x7f]|\r(?=\n))*(?=\n|\Z))",
            "(?!//)(?P<op>" + "|".join(re.escape(op) for op in _OPERATORS) + ")",
        )
    )
    + ")?"
)
_BAD_IN_LINE = re.compile(r"[\x00-\x09\x0b\x0c\x0e-\x1f\x7f]|\r(?!\n)")
_PUNCTUATION = frozenset(".{},=-")


class Token:
    """One token: ``kind`` is number, ident, qident, keyword, builtin, string, char, mline,
    eof, one of ``. { } , = -``, or op (any other Zig operator)."""

    __slots__ = ("end", "kind", "start", "text")

    def __init__(self, kind: str, start: int, end: int, text: str) -> None:
        self.kind = kind
        self.start = start
        self.end = end
        self.text = text

    def describe(self) -> str:
        """How an error message names this token."""
        if self.kind == "eof":
            return "end of file"
        if self.kind in ("string", "mline"):
            return "a string"
        if self.kind == "number":
            return f"number '{self.text}'"
        if self.kind == "char":
            return "a character literal"
        if self.kind == "keyword":
            return f"keyword '{self.text}'"
        return f"'{self.text}'"


class Lexer:
    """Lazily tokenizes ``text``; ``peek(k)`` looks ahead, ``next()`` consumes."""

    def __init__(self, text: str, filename: str, start: int = 0) -> None:
        self._text = text
        self._filename = filename
        self._pos = start
        self._ahead: deque[Token] = deque()
        self._consumed: tuple[Token | None, Token | None] = (None, None)

    def fail(self, offset: int, message: str) -> ZonError:
        """The ``ZonError`` for ``message`` at code point ``offset``."""
        line, col = position(self._text, offset)
        return ZonError(self._filename, line, col, message)

    def fail_expected(self, token: Token, message: str) -> ZonError:
        """Error for the just-consumed ``token`` where something else was expected.

        Like Zig, when ``token`` starts a new line the error points just after the previous
        token, where the missing ',' or '}' belongs.
        """
        previous, current = self._consumed
        if (
            current is token
            and previous is not None
            and "\n" in self._text[previous.start : token.start]
        ):
            return self.fail(previous.end, message)
        return self.fail(token.start, message)

    def peek(self, k: int = 0) -> Token:
        while len(self._ahead) <= k:
            self._ahead.append(self._scan())
        return self._ahead[k]

    def next(self) -> Token:
        token = self._ahead.popleft() if self._ahead else self._scan()
        self._consumed = (self._consumed[1], token)
        return token

    def _scan(self) -> Token:
        text = self._text
        match = _TOKEN.match(text, self._pos)
        assert match is not None  # every group is optional
        kind = match.lastgroup
        if kind is None:
            start = self._pos = match.end()
            if start == len(text):
                return Token("eof", start, start, "")
            raise self._diagnose(start)
        start, end = match.span(kind)
        self._pos = end
        token_text = text[start:end]
        if kind == "op" and token_text in _PUNCTUATION:
            kind = token_text
        elif kind == "ident" and token_text in KEYWORDS:
            kind = "keyword"
        return Token(kind, start, end, token_text)

    def _diagnose(self, start: int) -> ZonError:
        """Explain why no token starts at ``start``."""
        text = self._text
        if text.startswith("///", start) and not text.startswith("////", start):
            return self.fail(start, "doc comments ('///') are not allowed in ZON; use '//'")
        if text.startswith("//!", start):
            return self.fail(start, "doc comments ('//!') are not allowed in ZON; use '//'")
        if text.startswith("//", start):
            return self._bad_in_line(start, "a comment")
        c = text[start]
        if c in "\"'" or text.startswith('@"', start):
            return self._bad_quoted(start + 1 + (c == "@"), "'" if c == "'" else '"')
        if text.startswith("\\\\", start):
            return self._bad_in_line(start, "a multiline string")
        if c == "\\":
            return self.fail(start, "expected '\\\\' to start a multiline string line")
        if c == "@":
            return self.fail(start, "expected a builtin name or '\"' after '@'")
        return self.fail(start, f"{_name(c)} is not allowed here; expected a ZON token")

    def _bad_in_line(self, start: int, where: str) -> ZonError:
        bad = _BAD_IN_LINE.search(self._text, start)
        assert bad is not None  # the line did not match the token pattern
        if bad.group() == "\r":
            return self.fail(bad.start(), f"carriage return not followed by a line feed in {where}")
        return self.fail(bad.start(), f"{_name(bad.group())} is not allowed in {where}")

    def _bad_quoted(self, i: int, quote: str) -> ZonError:
        text = self._text
        what = "character literal" if quote == "'" else "string"
        while i < len(text):
            c = text[i]
            if c == "\n":
                break
            if c < " " or c == "\x7f":
                return self.fail(i, f"{_name(c)} is not allowed in a {what}; use an escape")
            escaped = text[i + 1 : i + 2] if c == "\\" else ""
            i += 2 if escaped and escaped >= " " and escaped != "\x7f" else 1
        return self.fail(i, f"unterminated {what}: expected {quote} before the end of the line")


def _name(c: str) -> str:
    if c == "\t":
        return "a tab character"
    if c < " " or c == "\x7f":
        return f"control character U+{ord(c):04X}"
    if not c.isprintable():
        return f"character U+{ord(c):04X}"
    return f"character '{c}' (U+{ord(c):04X})"
