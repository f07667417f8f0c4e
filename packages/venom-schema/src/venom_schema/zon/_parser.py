"""The ZON document parser: an iterative (explicit stack) recursive-descent reader.

Like Zig, syntax errors win over literal errors: a bad number, escape, name or a duplicate
field is remembered and raised only once the whole document has parsed, so the reported
error is the one ``zig ast-check --zon`` reports first in almost every case.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, TypeVar

from ._errors import LiteralError, ZonError, position
from ._lexer import Lexer, Token
from ._numbers import parse_number
from ._strings import decode_char, decode_name, decode_quoted
from ._values import ZON_EMPTY, ZonChar, ZonEnum, ZonValue

__all__ = ("MAX_DEPTH", "parse_zon")

#: Deepest nesting of ``.{ }`` accepted; deeper documents get a ``ZonError``.
MAX_DEPTH: Final = 256

_IDENTIFIERS: Final[dict[str, ZonValue]] = {
    "true": True,
    "false": False,
    "null": None,
    "inf": float("inf"),
    "nan": float("nan"),
}
_NAMES: Final = ("ident", "qident")
_T = TypeVar("_T")


class _Frame:
    """A ``.{`` whose elements are being read: a struct (``fields``) or a tuple (``items``)."""

    __slots__ = ("fields", "items", "key", "name_at", "start")

    def __init__(self, start: int, is_struct: bool) -> None:
        self.start = start
        self.items: list[ZonValue] | None = None if is_struct else []
        self.fields: dict[str, ZonValue] = {}
        self.name_at: dict[str, int] = {}
        self.key: str | None = None

    def add(self, value: ZonValue) -> None:
        if self.items is not None:
            self.items.append(value)
        elif self.key is not None:
            self.fields[self.key] = value

    def finish(self) -> ZonValue:
        return self.items if self.items is not None else self.fields


class _Opened:
    """Returned instead of a value when a ``.{`` frame was pushed."""


_OPENED: Final = _Opened()


class _Parser:
    def __init__(self, text: str, filename: str) -> None:
        self._text = text
        self._lexer = Lexer(text, filename)
        self._deferred: ZonError | None = None

    def _defer(self, offset: int, message: str) -> None:
        if self._deferred is None:
            self._deferred = self._lexer.fail(offset, message)

    def _where(self, offset: int) -> str:
        line, col = position(self._text, offset)
        return f"{line}:{col}"

    def parse(self) -> ZonValue:
        lexer = self._lexer
        stack: list[_Frame] = []
        while True:
            value = self._value(stack)
            if isinstance(value, _Opened):
                continue
            while True:  # the value is complete: attach it, closing finished containers
                if not stack:
                    return self._end(value)
                frame = stack[-1]
                frame.add(value)
                token = lexer.next()
                if token.kind == "," and lexer.peek().kind != "}":
                    if frame.items is None:
                        self._field_name(frame)
                    break
                if token.kind == ",":
                    token = lexer.next()
                if token.kind != "}":
                    raise lexer.fail_expected(token, self._after_element(frame, token))
                value = frame.finish()
                stack.pop()

    def _end(self, value: ZonValue) -> ZonValue:
        token = self._lexer.next()
        if token.kind != "eof":
            raise self._lexer.fail_expected(
                token,
                f"expected end of file after the value, found {token.describe()} "
                "(a ZON document holds exactly one value)",
            )
        if self._deferred is not None:
            raise self._deferred
        return value

    def _value(self, stack: list[_Frame]) -> ZonValue | _Opened:
        lexer = self._lexer
        token = lexer.next()
        while token.kind == "-":
            following = lexer.peek()
            if following.kind == "number":
                return self._number(lexer.next(), negative=True)
            if following.kind == "ident" and following.text == "inf":
                lexer.next()
                return float("-inf")
            self._defer(token.start, "expected a number or 'inf' after '-'")
            token = lexer.next()
        kind = token.kind
        if kind == "number":
            return self._number(token, negative=False)
        if kind == "string":
            return self._literal(token, decode_quoted)
        if kind == "mline":
            lines = [token.text[2:].removesuffix("\r")]
            while lexer.peek().kind == "mline":
                lines.append(lexer.next().text[2:].removesuffix("\r"))
            return "\n".join(lines)
        if kind == "char":
            codepoint = self._literal(token, decode_char)
            return None if codepoint is None else ZonChar(codepoint)
        if kind == "ident":
            if token.text in _IDENTIFIERS:
                return _IDENTIFIERS[token.text]
            self._defer(
                token.start,
                f"invalid value '{token.text}': ZON allows the identifiers true, false, null, "
                f"inf and nan (write '.{token.text}' for an enum literal)",
            )
            return None
        if kind == ".":
            return self._after_period(token, stack)
        raise lexer.fail_expected(token, _unexpected_value(token))

    def _after_period(self, period: Token, stack: list[_Frame]) -> ZonValue | _Opened:
        lexer = self._lexer
        token = lexer.next()
        if token.kind in _NAMES:
            name = self._literal(token, decode_name)
            return None if name is None else ZonEnum(name)
        if token.kind != "{":
            raise lexer.fail(period.start, _bad_name(token, "a name or '{'"))
        if lexer.peek().kind == "}":
            lexer.next()
            return ZON_EMPTY
        if len(stack) >= MAX_DEPTH:
            raise lexer.fail(period.start, f"nesting deeper than {MAX_DEPTH} levels")
        is_struct = (
            lexer.peek().kind == "." and lexer.peek(1).kind in _NAMES and lexer.peek(2).kind == "="
        )
        frame = _Frame(period.start, is_struct)
        if is_struct:
            self._field_name(frame)
        stack.append(frame)
        return _OPENED

    def _field_name(self, frame: _Frame) -> None:
        """Read ``.name =`` and make it the key for the next value of the struct ``frame``."""
        lexer = self._lexer
        period = lexer.next()
        if period.kind != ".":
            opened = self._where(frame.start)
            raise lexer.fail(
                period.start,
                f"expected a field '.name = value' in the struct opened at {opened}, found "
                f"{period.describe()} (a struct cannot also hold tuple elements)",
            )
        token = lexer.next()
        if token.kind not in _NAMES:
            raise lexer.fail(period.start, _bad_name(token, "a field name"))
        equal = lexer.next()
        if equal.kind != "=":
            raise lexer.fail(
                equal.start,
                f"expected '=' after field name '{token.text}', found {equal.describe()}",
            )
        name = self._literal(token, decode_name)
        frame.key = name
        if name is None:
            return
        if name in frame.name_at:
            self._defer(
                token.start,
                f"duplicate field name '{name}' (first at {self._where(frame.name_at[name])})",
            )
        else:
            frame.name_at[name] = token.start

    def _after_element(self, frame: _Frame, token: Token) -> str:
        opened, found = self._where(frame.start), token.describe()
        if frame.items is None:
            return f"expected ',' or '}}' after the field value, found {found} (struct at {opened})"
        if token.kind == "=":
            return (
                f"unexpected '=': the '.{{' at {opened} is a tuple because its first element is "
                "not a '.name = value' field, and ZON cannot mix fields with tuple elements"
            )
        return f"expected ',' or '}}' after the tuple element, found {found} (tuple at {opened})"

    def _number(self, token: Token, *, negative: bool) -> ZonValue:
        value = self._literal(token, parse_number)
        if value is None or not negative:
            return value
        if value == 0 and isinstance(value, int):
            self._defer(
                token.start,
                "integer '-0' is ambiguous: write 0 for an integer or -0.0 for a negative float",
            )
            return None
        return -value

    def _literal(self, token: Token, decode: Callable[[str], _T]) -> _T | None:
        try:
            return decode(token.text)
        except LiteralError as exc:
            self._defer(token.start + exc.offset, exc.message)
            return None


def _bad_name(token: Token, expected: str) -> str:
    if token.kind == "keyword":
        return (
            f"expected {expected} after '.', found keyword '{token.text}' "
            f'(write .@"{token.text}" to use a keyword as a name)'
        )
    return f"expected {expected} after '.', found {token.describe()}"


def _unexpected_value(token: Token) -> str:
    kind, text = token.kind, token.text
    if kind == "keyword":
        return f"keyword '{text}' is not allowed in ZON; expected a value"
    if kind == "builtin":
        return f"builtin calls such as '{text}' are not allowed in ZON; expected a value"
    if kind == "qident":
        return f"expected a value, found the name {text} (write .{text} for an enum literal)"
    if kind == "{":
        return "expected a value, found '{' (structs and tuples are written '.{ ... }')"
    if text == "(":
        return "expected a value, found '(' (parentheses are not allowed in ZON)"
    return f"expected a value, found {token.describe()}"


def parse_zon(text: str | bytes, filename: str = "<input>") -> ZonValue:
    """Parse one ZON document; any invalid input raises ``ZonError`` (``file:line:col: msg``).

    Bytes must be UTF-8; an optional leading BOM is skipped (columns count from after it).
    """
    if isinstance(text, bytes):
        try:
            source = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            valid = text[: exc.start].decode("utf-8").removeprefix("\ufeff")
            line, col = position(valid, len(valid))
            raise ZonError(
                filename, line, col, f"invalid UTF-8 (byte 0x{text[exc.start]:02X})"
            ) from None
    else:
        source = text
    source = source.removeprefix("\ufeff")
    try:
        source.encode("utf-8")
    except UnicodeEncodeError as exc:
        line, col = position(source, exc.start)
        raise ZonError(
            filename, line, col, f"lone surrogate U+{ord(source[exc.start]):04X} is not text"
        ) from None
    return _Parser(source, filename).parse()
