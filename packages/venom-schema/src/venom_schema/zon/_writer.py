"""The ZON writer: raw ZON values (as `parse_zon` returns them) back to text.

``parse_zon(dump_zon(value))`` gives ``value`` again. A struct or tuple stays on one line when
it fits the width, else it opens one member per line, indented four spaces: the layout of a
hand-written ``verbs.zon``.
"""

from __future__ import annotations

import math
import re
from typing import Final

from ._lexer import KEYWORDS
from ._values import ZonChar, ZonEmpty, ZonEnum, ZonValue

__all__ = ("dump_zon",)

_IDENT: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
#: Names that read as something else bare: `.@"true"` keeps them plain names.
_PRIMITIVES: Final = frozenset({"true", "false", "null", "undefined", "inf", "nan"})
_ESCAPES: Final = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_INDENT: Final = "    "


def dump_zon(value: ZonValue, *, width: int = 100, header: str | None = None) -> str:
    """``value`` as ZON text with a final newline; ``header`` becomes leading ``//`` lines."""
    lines = [f"// {line}".rstrip() for line in header.splitlines()] if header else []
    lines.append(_render(value, 0, 0, width))
    return "\n".join(lines) + "\n"


def _name(name: str) -> str:
    if _IDENT.match(name) and name not in KEYWORDS and name not in _PRIMITIVES:
        return name
    return "@" + _string(name)


def _string(text: str) -> str:
    out = []
    for char in text:
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\x{ord(char):02x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def _scalar(value: ZonValue) -> str | None:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        # Past CPython's int-to-decimal limit (4300 digits), hex has none.
        return str(value) if value.bit_length() < 14000 else hex(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "-inf" if value < 0 else "inf"
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, ZonEnum):
        return "." + _name(value.name)
    if isinstance(value, ZonChar):
        return f"'\\u{{{value.codepoint:x}}}'"
    if isinstance(value, ZonEmpty):
        return ".{}"
    return None


def _members(value: dict[str, ZonValue] | list[ZonValue]) -> list[tuple[str, ZonValue]]:
    if isinstance(value, dict):
        return [(f".{_name(k)} = ", v) for k, v in value.items()]
    return [("", v) for v in value]


def _inline(value: ZonValue) -> str:
    scalar = _scalar(value)
    if scalar is not None:
        return scalar
    if not isinstance(value, dict | list):
        raise TypeError(f"{type(value).__name__} is not a ZON value")
    members = _members(value)
    if not members:
        return ".{}"
    return ".{ " + ", ".join(prefix + _inline(v) for prefix, v in members) + " }"


def _render(value: ZonValue, depth: int, used: int, width: int) -> str:
    """``value`` at nesting ``depth``, ``used`` columns already taken on its first line."""
    flat = _inline(value)
    if not isinstance(value, dict | list) or not value:
        return flat
    if len(_INDENT) * depth + used + len(flat) + 1 <= width:
        return flat
    inner = _INDENT * (depth + 1)
    lines = [".{"]
    for prefix, member in _members(value):
        text = _render(member, depth + 1, len(prefix), width)
        lines.append(f"{inner}{prefix}{text},")
    lines.append(_INDENT * depth + "}")
    return "\n".join(lines)
