"""JSON rendering of ZON values that keeps every ZON value distinct (``venom-gen zon FILE``)."""

from __future__ import annotations

import math
from typing import Any, Final

from ._values import ZonChar, ZonEmpty, ZonEnum, ZonValue

__all__ = ("JSON_TAGS", "zon_to_json")

#: Keys of the one-member objects that stand for values JSON has no spelling for.
JSON_TAGS: Final = frozenset({"enum", "char", "empty", "int", "float", "struct"})
_MAX_SAFE_INT: Final = 2**53 - 1
_DIGITS_PER_CHUNK: Final = 1000


def zon_to_json(value: ZonValue) -> Any:
    """JSON-compatible data for ``value``; values without a JSON counterpart become tagged
    one-member objects, so the rendering is unambiguous:

    - ``.name`` -> ``{"enum": "name"}``, ``'a'`` -> ``{"char": 97}``, ``.{}`` -> ``{"empty": true}``
    - integers beyond +-(2**53 - 1) -> ``{"int": "<decimal digits>"}``
    - ``inf``, ``-inf``, ``nan`` -> ``{"float": "inf" | "-inf" | "nan"}``
    - a struct whose only field is named like a tag -> ``{"struct": {...}}``
    """
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value if -_MAX_SAFE_INT <= value <= _MAX_SAFE_INT else {"int": _decimal(value)}
    if isinstance(value, float):
        if math.isnan(value):
            return {"float": "nan"}
        if math.isinf(value):
            return {"float": "inf" if value > 0 else "-inf"}
        return value
    if isinstance(value, ZonEnum):
        return {"enum": value.name}
    if isinstance(value, ZonChar):
        return {"char": value.codepoint}
    if isinstance(value, ZonEmpty):
        return {"empty": True}
    if isinstance(value, list):
        return [zon_to_json(item) for item in value]
    fields = {name: zon_to_json(item) for name, item in value.items()}
    if len(fields) == 1 and next(iter(fields)) in JSON_TAGS:
        return {"struct": fields}
    return fields


def _decimal(value: int) -> str:
    """``str(value)`` without Python's 4300-digit conversion limit."""
    sign, value = ("-", -value) if value < 0 else ("", value)
    chunk = 10**_DIGITS_PER_CHUNK
    parts: list[str] = []
    while value >= chunk:
        value, low = divmod(value, chunk)
        parts.append(str(low).zfill(_DIGITS_PER_CHUNK))
    parts.append(str(value))
    return sign + "".join(reversed(parts))
