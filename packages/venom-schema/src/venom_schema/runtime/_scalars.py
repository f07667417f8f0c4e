"""Compiled checks for the scalar kinds: string, boolean, integer, number, null.

Each builder returns a ``Check`` (value -> value) that raises `Invalid` with an empty path.
JSON semantics, no coercion (RFC-0004 §3):

- ``bool`` is never an integer or a number, although Python's bool subclasses int.
- An integral float (``1.0``, ``-0.0``) IS an integer: JSON has one number type and JSON Schema's
  ``type: integer`` accepts any number with a zero fraction. It is returned as a Python ``int``.
- Integers (in integer and number fields alike) must lie within ±(2^53-1) (RFC-0002 §4.1);
  outside that they fail with ``range``.
- Numbers accept ints and finite floats; NaN and ±inf fail with ``type`` (they are not JSON).
- Strings are never parsed as numbers or booleans.
"""

from __future__ import annotations

import sys

from ._errors import Invalid, json_type_name, short_repr

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would cost every CLI call ~3 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    #: Validator of one value: returns the (possibly normalized) value or raises `Invalid`.
    Check = Callable[[Any], Any]

__all__ = (
    "FLOAT_MAX",
    "SAFE_INT",
    "boolean_check",
    "integer_check",
    "null_check",
    "number_check",
    "string_check",
    "type_error",
)

SAFE_INT = 9007199254740991
#: Finite float bounds: ``-FLOAT_MAX <= v <= FLOAT_MAX`` is false for NaN and both infinities.
FLOAT_MAX = sys.float_info.max


def type_error(expected: str, value: Any) -> Invalid:
    """The ``type`` failure for ``value`` where ``expected`` (a JSON type phrase) was wanted."""
    return Invalid("type", f"expected {expected}, got {json_type_name(value)}")


def string_check(choices: Sequence[str] | None, expected: str = "string") -> Check:
    """A string, optionally one of ``choices`` (``enum`` failure otherwise)."""
    if choices is None:

        def check_string(value: Any) -> Any:
            if isinstance(value, str):
                return value
            raise type_error(expected, value)

        return check_string

    allowed = frozenset(choices)
    listing = ", ".join(repr(c) for c in choices)

    def check_choice(value: Any) -> Any:
        if isinstance(value, str):
            if value in allowed:
                return value
            raise Invalid("enum", f"must be one of {listing}, got {short_repr(value)}")
        raise type_error(expected, value)

    return check_choice


def boolean_check(expected: str = "boolean") -> Check:
    """Exactly ``True`` or ``False``; 0 and 1 are integers, not booleans."""

    def check_boolean(value: Any) -> Any:
        if value is True or value is False:
            return value
        raise type_error(expected, value)

    return check_boolean


def null_check(expected: str = "null") -> Check:
    """Exactly ``None``."""

    def check_null(value: Any) -> Any:
        if value is None:
            return None
        raise type_error(expected, value)

    return check_null


def _bounds_problem(value: Any, low: Any, high: Any) -> str:
    shown = short_repr(value)
    if low is not None and value < low:
        return f"must be >= {low}, got {shown}"
    if high is not None and value > high:
        return f"must be <= {high}, got {shown}"
    return f"must be within ±{SAFE_INT} (RFC-0002 §4.1), got {shown}"


def integer_check(low: int | None, high: int | None, expected: str = "integer") -> Check:
    """An int (not bool) or an integral float, within ``[low, high]`` and ±(2^53-1)."""
    lo = -SAFE_INT if low is None else max(low, -SAFE_INT)
    hi = SAFE_INT if high is None else min(high, SAFE_INT)

    def check_integer(value: Any) -> Any:
        if type(value) is int:
            number = value
        elif isinstance(value, bool):
            raise type_error(expected, value)
        elif isinstance(value, int):
            number = int(value)  # an IntEnum or other subclass becomes a plain int
        elif isinstance(value, float) and value.is_integer():
            if not -SAFE_INT <= value <= SAFE_INT:
                raise Invalid("range", _bounds_problem(value, low, high))
            number = int(value)
        else:
            raise type_error(expected, value)
        if lo <= number <= hi:
            return number
        raise Invalid("range", _bounds_problem(number, low, high))

    return check_integer


def number_check(
    low: int | float | None, high: int | float | None, expected: str = "number"
) -> Check:
    """An int (not bool, within ±(2^53-1)) or a finite float, within ``[low, high]``."""
    lo: float = -FLOAT_MAX if low is None else low
    hi: float = FLOAT_MAX if high is None else high

    def check_number(value: Any) -> Any:
        if isinstance(value, float):
            if not -FLOAT_MAX <= value <= FLOAT_MAX:
                raise type_error(f"finite {expected}", value)
        elif isinstance(value, int) and not isinstance(value, bool):
            if not -SAFE_INT <= value <= SAFE_INT:
                raise Invalid("range", _bounds_problem(value, None, None))
        else:
            raise type_error(expected, value)
        if lo <= value <= hi:
            return value
        raise Invalid("range", _bounds_problem(value, low, high))

    return check_number
