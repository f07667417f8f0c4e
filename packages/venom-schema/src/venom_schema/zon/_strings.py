"""Escape sequences of string, character and ``@"..."`` literals, and multiline strings.

Offsets in ``LiteralError`` are relative to the start of the token, as Zig reports them.
"""

from __future__ import annotations

import re

from ._errors import LiteralError

__all__ = ("decode_char", "decode_name", "decode_quoted")

_SIMPLE = {"n": 0x0A, "r": 0x0D, "t": 0x09, "\\": 0x5C, "'": 0x27, '"': 0x22}
_HEX = frozenset("0123456789abcdefABCDEF")
_MAX_CODEPOINT = 0x10FFFF
_BACKSLASH = re.compile(r"\\")


def _escape(token: str, i: int) -> tuple[int, int, bool]:
    """Decode the escape whose backslash is at ``token[i]``: (value, next index, is_unicode)."""
    c = token[i + 1]
    if c in _SIMPLE:
        return _SIMPLE[c], i + 2, False
    if c == "x":
        for j in (i + 2, i + 3):
            if token[j] not in _HEX:
                raise LiteralError(
                    f"expected a hex digit in '\\x' escape, found {_show(token, j)}", j
                )
        return int(token[i + 2 : i + 4], 16), i + 4, False
    if c == "u":
        return _unicode_escape(token, i + 2)
    raise LiteralError(
        f"invalid escape sequence '\\{c}' (valid: \\n \\r \\t \\\\ \\' \\\" \\xHH \\u{{HEX}})",
        i + 1,
    )


def _unicode_escape(token: str, j: int) -> tuple[int, int, bool]:
    if token[j] != "{":
        raise LiteralError(f"expected '{{' after '\\u', found {_show(token, j)}", j)
    j += 1
    if token[j] == "}":
        raise LiteralError("empty unicode escape sequence '\\u{}'", j)
    value = 0
    while token[j] != "}":
        if token[j] not in _HEX:
            raise LiteralError(f"expected a hex digit or '}}', found {_show(token, j)}", j)
        value = value * 16 + int(token[j], 16)
        if value > _MAX_CODEPOINT:
            raise LiteralError("unicode escape is larger than U+10FFFF", j)
        j += 1
    return value, j + 1, True


def _show(token: str, j: int) -> str:
    return "the end of the literal" if j == len(token) - 1 else f"'{token[j]}'"


def decode_quoted(token: str) -> str:
    """Value of a ``"..."`` token (quotes included), or of the quoted part of ``@"..."``."""
    body = token[1:-1]
    if "\\" not in body:
        return body
    out = bytearray()
    byte_escapes: dict[int, int] = {}  # output byte offset -> token offset, for UTF-8 errors
    i, last = 1, 1
    for match in _BACKSLASH.finditer(token, 1, len(token) - 1):
        if match.start() < i:  # an escaped backslash already consumed this one
            continue
        out += token[last : match.start()].encode()
        value, i, is_unicode = _escape(token, match.start())
        if is_unicode:
            if 0xD800 <= value <= 0xDFFF:
                raise LiteralError(
                    "unicode escape is a surrogate, not a scalar value", match.start() + 2
                )
            out += chr(value).encode()
        else:
            if value >= 0x80:
                byte_escapes[len(out)] = match.start()
            out.append(value)
        last = i
    out += token[last:-1].encode()
    try:
        return out.decode()
    except UnicodeDecodeError as exc:
        raise LiteralError(
            "string is not valid UTF-8 after decoding '\\x' escapes "
            "(ZON allows any bytes; venom manifests must be text)",
            byte_escapes.get(exc.start, 0),
        ) from None


def decode_name(token: str) -> str:
    """Name of an identifier token: ``foo`` or ``@"any text"`` (offsets include the ``@``)."""
    if not token.startswith("@"):
        return token
    try:
        name = decode_quoted(token[1:])
    except LiteralError as exc:
        raise LiteralError(exc.message, exc.offset + 1) from None
    if not name:
        raise LiteralError('a quoted name @"" cannot be empty')
    if "\0" in name:
        raise LiteralError("a quoted name cannot contain a NUL character")
    return name


def decode_char(token: str) -> int:
    """Code point of a ``'...'`` token; like Zig, escapes may name any value up to U+10FFFF."""
    if len(token) == 2:
        raise LiteralError("empty character literal")
    if token[1] == "\\":
        value, end, _ = _escape(token, 1)
    else:
        value, end = ord(token[1]), 2
    if end != len(token) - 1:
        raise LiteralError("a character literal holds exactly one character", end)
    return value
