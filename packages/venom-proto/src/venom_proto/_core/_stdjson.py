"""Strict JSON on the standard library, for the light sync-client path (no orjson import).

Same contract as the orjson twin in ``_json``: NaN/Infinity, out-of-range floats, invalid UTF-8,
a BOM, lone surrogates (raw or escaped) and nesting deeper than :data:`MAX_DEPTH` all raise
``ValueError``. Integers outside orjson's exact range (-2**63 .. 2**64-1) decode as floats, as
orjson does, so both twins return equal values for equal input.
"""

from __future__ import annotations

import json
import math
import re
import sys
from itertools import accumulate

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would cost the CLI ~2 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ("MAX_DEPTH", "std_dumps", "std_loads")

#: Deepest array/object nesting accepted; orjson's own parser limit.
MAX_DEPTH = 1024
# Below this many brackets the input cannot nest deeper than the stdlib's recursion budget.
_CHEAP_BRACKETS = 512
_INT_MIN, _INT_MAX = -(2**63), 2**64 - 1
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")
_BRACKET_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _parse_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError("number is infinity when parsed as double")
    return value


def _parse_int(text: str) -> int | float:
    value = int(text)
    if _INT_MIN <= value <= _INT_MAX:
        return value
    return _parse_float(text)


_DECODER = json.JSONDecoder(
    parse_float=_parse_float, parse_int=_parse_int, parse_constant=_reject_constant
)
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _depth(data: bytes) -> int:
    brackets = _STRING.sub(b"", data).translate(None, _NOT_BRACKET)
    return max(accumulate(map(_BRACKET_STEP.__getitem__, brackets)), default=0)


def std_loads(data: bytes) -> Any:
    """Decode one JSON document strictly; any defect raises ``ValueError``."""
    text = bytes(data).decode("utf-8")  # strict: invalid UTF-8 and encoded surrogates fail
    deep = data.count(b"[") + data.count(b"{") > _CHEAP_BRACKETS
    if deep and _depth(data) > MAX_DEPTH:
        raise ValueError(f"JSON nesting deeper than {MAX_DEPTH}")
    try:
        if deep:
            # The C scanner recurses once per level; give it room for MAX_DEPTH levels.
            limit = sys.getrecursionlimit()
            sys.setrecursionlimit(limit + MAX_DEPTH + 64)
            try:
                value = _DECODER.decode(text)
            finally:
                sys.setrecursionlimit(limit)
        else:
            value = _DECODER.decode(text)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    if "\\u" in text:
        # An escaped lone surrogate decodes fine but cannot be encoded back to UTF-8.
        try:
            _ENCODER.encode(value).encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError("lone surrogate in JSON string") from None
    return value


def std_dumps(value: Any) -> bytes:
    """Encode compactly as UTF-8 bytes; NaN/Infinity and lone surrogates raise ``ValueError``."""
    return _ENCODER.encode(value).encode("utf-8")
