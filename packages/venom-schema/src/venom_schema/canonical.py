"""Canonical JSON and the schema digest of RFC-0004 §7.

Rules (each is a decision where §7 leaves room, documented here and in the tests):

* Object keys sort by their UTF-8 bytes. For valid Unicode this equals code point order; it
  differs from the UTF-16 order of RFC 8785 (JCS), e.g. U+FFFF sorts before U+1F600 here.
* Strings escape only ``"``, ``\\`` and U+0000..U+001F, the latter always as lowercase
  ``\\u00xx`` (no ``\\n`` short forms). U+007F is not a JSON control character (RFC 8259 §7)
  and is written raw, like every other character. Lone surrogates are rejected.
* ``True``/``False``/``None`` are ``true``/``false``/``null``; Python ints print in decimal.
* Floats follow ECMAScript ``Number::toString`` (the JCS rule) minus the exponent's ``+`` sign:
  shortest round-trip digits; plain decimal when the decimal exponent lies in [-6, 21), so
  integral floats such as ``1.0`` or ``2.0**53 - 1`` print exactly like the integer and
  ``-0.0`` prints ``0``; otherwise exponent form ``1e21``, ``1e-7``, ``5e-324``, ``1.5e300``.
  Non-finite floats are rejected.
* No whitespace, no trailing newline.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ("canonical_json", "digest", "format_number")

_ESCAPES = {'"': '\\"', "\\": "\\\\"} | {chr(c): f"\\u{c:04x}" for c in range(0x20)}


def canonical_json(value: Any) -> bytes:
    """Serialize a JSON-compatible value canonically (RFC-0004 §7); raises ``ValueError``."""
    parts: list[str] = []
    _write(value, parts)
    try:
        return "".join(parts).encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError("canonical JSON: string is not valid Unicode (lone surrogate)") from exc


def digest(model: Any) -> str:
    """``sha256:`` + 64 lowercase hex digits over the canonical JSON of ``model``."""
    return "sha256:" + hashlib.sha256(canonical_json(model)).hexdigest()


def format_number(value: int | float) -> str:
    """The canonical text of a number (see the module docstring)."""
    if isinstance(value, int):
        return str(value)
    if not math.isfinite(value):
        raise ValueError(f"canonical JSON: non-finite number {value!r}")
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    mantissa, _, exp_text = repr(abs(value)).partition("e")
    int_part, _, frac_part = mantissa.partition(".")
    digits = (int_part + frac_part).lstrip("0")
    stripped = digits.rstrip("0")
    # value = int(stripped) * 10**exponent, written with k significant digits
    exponent = (int(exp_text) if exp_text else 0) - len(frac_part) + len(digits) - len(stripped)
    k = len(stripped)
    n = k + exponent  # ECMAScript's n: value = 0.d1d2... * 10**n
    if k <= n <= 21:
        text = stripped + "0" * (n - k)
    elif 0 < n <= 21:
        text = stripped[:n] + "." + stripped[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * -n + stripped
    else:
        head = stripped[0] + ("." + stripped[1:] if k > 1 else "")
        text = f"{head}e{n - 1}"
    return sign + text


def _write_string(text: str, parts: list[str]) -> None:
    parts.append('"')
    parts.append("".join(_ESCAPES.get(char, char) for char in text))
    parts.append('"')


def _sort_key(key: str) -> bytes:
    try:
        return key.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError("canonical JSON: key is not valid Unicode (lone surrogate)") from exc


def _write(value: Any, parts: list[str]) -> None:
    if value is None:
        parts.append("null")
    elif value is True:
        parts.append("true")
    elif value is False:
        parts.append("false")
    elif isinstance(value, str):
        _write_string(value, parts)
    elif isinstance(value, int | float):
        parts.append(format_number(value))
    elif isinstance(value, Mapping):
        keys = list(value)
        if not all(isinstance(key, str) for key in keys):
            raise ValueError("canonical JSON: object keys must be strings")
        parts.append("{")
        for index, key in enumerate(sorted(keys, key=_sort_key)):
            if index:
                parts.append(",")
            _write_string(key, parts)
            parts.append(":")
            _write(value[key], parts)
        parts.append("}")
    elif isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        parts.append("[")
        for index, item in enumerate(value):
            if index:
                parts.append(",")
            _write(item, parts)
        parts.append("]")
    else:
        raise ValueError(f"canonical JSON: unsupported value of type {type(value).__name__}")
