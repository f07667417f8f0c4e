"""Number literals: Zig's digit, separator, base and exponent rules, then the Python value."""

from __future__ import annotations

import math
from fractions import Fraction

from ._errors import LiteralError

__all__ = ("parse_number",)

_BASES = {"b": 2, "o": 8, "x": 16}
_BASE_NAMES = {2: "binary", 8: "octal", 10: "decimal", 16: "hex"}
# Python refuses str->int conversions of more than 4300 decimal digits by default; convert in
# chunks instead so that arbitrary-size integers (legal in ZON) never raise ValueError.
_CHUNK = 1000
_F128_FRACTION_BITS = 112
_F128_MIN_SHIFT = -16494  # the quantum of binary128 subnormals
_HUGE_BITS = 20_000  # far outside binary64 (and binary128): the result is inf or 0 for sure


def parse_number(text: str) -> int | float:
    """Value of a number token (unsigned); raises ``LiteralError`` with the offending offset."""
    base, start = 10, 0
    if len(text) >= 2 and text[0] == "0":
        second = text[1]
        if second in _BASES:
            base, start = _BASES[second], 2
        elif second in "BOX":
            raise LiteralError("base prefix must be lowercase", 1)
        elif second not in ".eE":
            raise LiteralError(f"number '{text}' has a leading zero (use '0o' for octal)")
    if start == 2 and len(text) == 2:
        raise LiteralError("expected a digit after the base prefix", 0)
    is_float = _check_digits(text, base, start)
    digits = text[start:].replace("_", "")
    if base == 16 and digits.startswith((".p", ".P")):
        # Zig's tokenizer and ZonGen accept `0x.p1`, then its float parser fails on it
        # (a compiler crash); there is no digit at all, so it is an error here.
        raise LiteralError("expected a hex digit before the exponent", 2)
    if is_float:
        return _to_float(digits, base)
    if base == 10:
        return _decimal_to_int(digits)
    return int(digits, base)


def _check_digits(text: str, base: int, start: int) -> bool:
    """Validate separators, periods and exponents; True when the literal is a float."""
    underscore = exponent = is_float = False
    special = ""
    exponent_marks = "eE" if base == 10 else "pP" if base == 16 else ""
    for i in range(start, len(text)):
        c = text[i]
        if c == "_":
            if special or i == start:
                raise LiteralError("expected a digit before the digit separator '_'", i)
            if underscore:
                raise LiteralError("repeated digit separator '_'", i)
            underscore = True
            continue
        if c in exponent_marks:
            if start == 2 and i == 2:
                raise LiteralError("expected a digit after the base prefix", 0)
            if exponent:
                raise LiteralError("duplicate exponent", i)
            if underscore:
                raise LiteralError("expected a digit before the exponent", i)
            is_float = exponent = True
            special = c
            continue
        if c == ".":
            if exponent:
                raise LiteralError("unexpected period after the exponent", i)
            if base not in (10, 16):
                raise LiteralError(f"{_BASE_NAMES[base]} literals cannot have a fraction", 1)
            if underscore:
                raise LiteralError("expected a digit before '.'", i)
            is_float = True
            special = c
            continue
        if c in "+-":
            if special not in ("p", "P") and not (special in ("e", "E") and base == 10):
                raise LiteralError(f"sign '{c}' must directly follow an exponent mark", i)
            special = c
            continue
        digit = int(c, 36)  # the tokenizer only lets [0-9A-Za-z_.+-] into a number token
        if digit >= base:
            raise LiteralError(f"invalid digit '{c}' for a {_BASE_NAMES[base]} number", i)
        if exponent and digit >= 10:
            raise LiteralError(f"invalid digit '{c}' in the exponent", i)
        underscore = False
        special = ""
    if underscore:
        raise LiteralError("trailing digit separator '_'", len(text) - 1)
    if special:
        raise LiteralError(f"expected a digit after '{special}'", len(text) - 1)
    return is_float


def _to_float(digits: str, base: int) -> float:
    """The 64-bit float Zig reads: the literal rounded to f128 first, then to f64.

    Rounding twice differs from rounding once only for literals with more than 33 significant
    digits lying next to a tie, but this keeps even those equal to what Zig reads.
    """
    if base == 10:
        mantissa, _, exponent_text = digits.lower().partition("e")
        whole, _, fraction = mantissa.partition(".")
        numerator, scale = _decimal_to_int(whole + fraction), 10
    else:
        mantissa, _, exponent_text = digits.lower().partition("p")
        whole, _, fraction = mantissa.partition(".")
        numerator, scale = int((whole + fraction) or "0", 16), 2
    exponent = int(exponent_text or "0") - len(fraction) * (1 if base == 10 else 4)
    if numerator == 0:
        return 0.0
    # digits (or bits) before the point; not str(numerator): that fails past 4300 digits
    magnitude = len((whole + fraction).lstrip("0")) if base == 10 else numerator.bit_length()
    if (magnitude + exponent) * (4 if base == 10 else 1) > _HUGE_BITS:
        return math.inf
    if (magnitude + exponent) * (3 if base == 10 else 1) < -_HUGE_BITS:
        return 0.0
    value = Fraction(numerator) * Fraction(scale) ** exponent
    return _round_f128_to_float(value)


def _round_f128_to_float(value: Fraction) -> float:
    """``float(value)`` after first rounding ``value`` (> 0) to IEEE binary128."""
    top, bottom = value.numerator, value.denominator
    log2 = top.bit_length() - bottom.bit_length()  # floor(log2(value)) or one more
    below = top < (bottom << log2) if log2 >= 0 else (top << -log2) < bottom
    log2 -= below
    shift = max(log2 - _F128_FRACTION_BITS, _F128_MIN_SHIFT)
    if shift >= 0:
        quotient, remainder = divmod(top, bottom << shift)
        half = bottom << shift
    else:
        quotient, remainder = divmod(top << -shift, bottom)
        half = bottom
    if 2 * remainder > half or (2 * remainder == half and quotient & 1):
        quotient += 1
    try:
        return float(quotient << shift) if shift >= 0 else quotient / (1 << -shift)
    except OverflowError:
        return math.inf


def _decimal_to_int(digits: str) -> int:
    value = 0
    for i in range(0, len(digits), _CHUNK):
        chunk = digits[i : i + _CHUNK]
        value = value * 10 ** len(chunk) + int(chunk)
    return value
