"""Shape checks on raw ZON values, shared by the per-topic validators.

``.{}`` (``ZON_EMPTY``) is accepted wherever a tuple or a struct is expected.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from venom_schema.manifest._errors import Problems
from venom_schema.zon._values import ZON_EMPTY, ZonChar, ZonEmpty, ZonEnum, ZonValue

__all__ = (
    "MAX_SAFE_INTEGER",
    "check_members",
    "check_text",
    "describe",
    "enum_choice",
    "expect_bool",
    "expect_struct",
    "expect_tuple",
    "is_number",
    "list_enums",
    "quote",
)

#: RFC-0004 §3: integers stay within ±(2**53 - 1) for lossless JSON interchange.
MAX_SAFE_INTEGER: Final = 9007199254740991


def describe(value: object) -> str:
    """A short human name for a raw value, used in ``expected X, got Y`` messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, int):
        return f"integer {value}"
    if isinstance(value, float):
        return f"number {value!r}"
    if isinstance(value, str):
        return f"string {quote(value)}"
    if isinstance(value, ZonEnum):
        return f"enum literal .{value.name}"
    if isinstance(value, ZonChar):
        return "character literal"
    if isinstance(value, ZonEmpty):
        return "empty .{}"
    if isinstance(value, dict):
        return "struct"
    if isinstance(value, list):
        return "tuple"
    return type(value).__name__


def quote(text: str) -> str:
    """``text`` in double quotes, controls escaped, long text shortened (for messages)."""
    shown = text if len(text) <= 40 else text[:37] + "..."
    # Escape only what would make the message ambiguous or unprintable; keep other text as is.
    escaped = "".join(
        f"\\u{ord(c):04x}"
        if ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F or 0xD800 <= ord(c) < 0xE000
        else "\\" + c
        if c in '"\\'
        else c
        for c in shown
    )
    return f'"{escaped}"'


def expect_struct(value: ZonValue, path: str, problems: Problems) -> dict[str, ZonValue] | None:
    if value is ZON_EMPTY:
        return {}
    if isinstance(value, dict):
        return value
    problems.add(path, f"expected a struct, got {describe(value)}")
    return None


def expect_tuple(value: ZonValue, path: str, problems: Problems) -> list[ZonValue] | None:
    if value is ZON_EMPTY:
        return []
    if isinstance(value, list):
        return value
    problems.add(path, f"expected a tuple, got {describe(value)}")
    return None


def expect_bool(value: ZonValue, path: str, problems: Problems) -> bool | None:
    if isinstance(value, bool):
        return value
    problems.add(path, f"expected a boolean, got {describe(value)}")
    return None


def is_number(value: object) -> bool:
    """True for a ZON int or float (never a bool)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def check_members(
    record: dict[str, ZonValue],
    path: str,
    problems: Problems,
    *,
    allowed: Iterable[str],
    required: Iterable[str] = (),
    context: str = "",
) -> bool:
    """Report unknown and missing members; True when none were missing."""
    allowed_set = set(allowed)
    for name in record:
        if name not in allowed_set:
            problems.add(path, f'unknown member "{name}"{context}')
    complete = True
    for name in required:
        if name not in record:
            problems.add(path, f'missing required member "{name}"')
            complete = False
    return complete


def check_text(
    value: ZonValue, path: str, problems: Problems, *, nonempty: bool = True
) -> str | None:
    """A name or summary: a string, valid UTF-8, free of control characters (RFC-0004 §2)."""
    if not isinstance(value, str):
        problems.add(path, f"expected a string, got {describe(value)}")
        return None
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        problems.add(path, "is not valid UTF-8 (lone surrogate)")
        return None
    for char in value:
        if ord(char) < 0x20 or 0x7F <= ord(char) <= 0x9F:
            problems.add(path, f"contains control character U+{ord(char):04X}")
            return None
    if nonempty and not value.strip():
        problems.add(path, "must not be empty")
        return None
    return value


def list_enums(names: Iterable[str]) -> str:
    return ", ".join(f".{name}" for name in names)


def enum_choice(
    value: ZonValue, names: tuple[str, ...], path: str, problems: Problems
) -> str | None:
    """An enum literal naming one of ``names``; metadata enums are never strings (§2)."""
    if isinstance(value, ZonEnum):
        if value.name in names:
            return value.name
        problems.add(path, f"unknown .{value.name}; expected one of {list_enums(names)}")
        return None
    problems.add(path, f"expected an enum literal ({list_enums(names)}), got {describe(value)}")
    return None
