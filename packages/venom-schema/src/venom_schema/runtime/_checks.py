"""The building blocks of the compiled validators: the failure signal and its wire form, the
scalar checks, the field steps and the object check (one module, as they are one job on the
CLI's verb-call path, where each module costs a call ~0.15 ms however small).

Compiled validators never build paths on the success path. A failure raises `Invalid` with the
innermost path component; every enclosing object or array appends its own component while the
exception unwinds, so the path is stored innermost-first and reversed once at the boundary.
"""

from __future__ import annotations

import sys

from venom_proto import VenomError

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would cost every CLI call ~3 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Sequence
    from typing import Any, Literal, NoReturn

    #: Which boundary a validator guards: caller input, a final result, or one stream item.
    Kind = Literal["params", "result", "item"]
    #: The refinement of ``invalid_params`` (RFC-0004 §3) that a failure maps to.
    Reason = Literal["unknown", "missing", "type", "enum", "range"]
    #: Validator of one value: returns the (possibly normalized) value or raises `Invalid`.
    Check = Callable[[Any], Any]
    #: One field's step: ``step(value, out) -> int`` (see "Field steps" below).
    Step = Callable[[dict[Any, Any], dict[str, Any]], int]

__all__ = (
    "ABSENT",
    "FLOAT_MAX",
    "SAFE_INT",
    "DescriptorError",
    "Invalid",
    "boolean_check",
    "choice_step",
    "deep_copy",
    "integer_check",
    "json_type_name",
    "nested_step",
    "null_check",
    "number_check",
    "object_check",
    "ranged_step",
    "short_repr",
    "string_check",
    "to_error",
    "type_error",
    "typed_step",
)  # `Check`, `Kind`, `Reason` and `Step` are type-only


_MAX_REPR = 60
_MAX_PATH = 120


class DescriptorError(ValueError):
    """Raised by `compile_descriptor`/`compile_verb` for a descriptor that is not normalized."""


class Invalid(Exception):
    """A value failed a compiled check; ``path`` holds components innermost-first."""

    __slots__ = ("path", "problem", "reason")

    def __init__(self, reason: Reason, problem: str, path: list[str] | None = None) -> None:
        super().__init__(reason, problem)
        self.reason: Reason = reason
        self.problem = problem
        self.path: list[str] = [] if path is None else path


_TYPE_NAMES: dict[type, str] = {
    bool: "boolean",
    type(None): "null",
    int: "integer",
    float: "number",
    str: "string",
    list: "array",
    dict: "object",
}


def json_type_name(value: Any) -> str:
    """The JSON type of ``value`` for messages (``boolean`` before ``integer``: bool is an int)."""
    for cls, name in _TYPE_NAMES.items():
        if isinstance(value, cls):
            return name
    return type(value).__name__


def short_repr(value: Any) -> str:
    """A one-line, bounded rendering of a scalar for an error message."""
    try:
        text = repr(value)
    except ValueError:  # ints beyond sys.get_int_max_str_digits() refuse to print
        return "<integer too large to print>"
    return text if len(text) <= _MAX_REPR else text[: _MAX_REPR - 3] + "..."


def _shown(path: str) -> str:
    """The path as a message shows it: one line (RFC-0002 §7.1) and bounded.

    Unknown member names come from the caller and may hold newlines or be huge; ``data`` keeps
    the exact path, the message only needs to be readable.
    """
    if not path.isprintable():
        path = path.encode("unicode_escape").decode("ascii")
    return path if len(path) <= _MAX_PATH else path[: _MAX_PATH - 3] + "..."


def to_error(invalid: Invalid, kind: Kind) -> VenomError:
    """The RFC-0004 §3 error for a failure: ``invalid_params.*`` or ``internal.result``."""
    path = ".".join(reversed(invalid.path))
    shown = _shown(path)
    if kind == "params":
        if invalid.reason == "missing":
            message = f"missing required param '{shown}'"
        elif invalid.reason == "unknown":
            message = f"unknown param '{shown}'"
        elif path:
            message = f"param '{shown}': {invalid.problem}"
        else:
            message = f"params: {invalid.problem}"
        return VenomError(f"invalid_params.{invalid.reason}", message, {"param": path})
    where = f"invalid {kind} at '{shown}'" if path else f"invalid {kind}"
    return VenomError(
        "internal.result",
        f"{where}: {invalid.problem}",
        {"path": path, "reason": invalid.reason},
    )


# ------------------------------------------------------------------------------------------------
# Compiled checks for the scalar kinds: string, boolean, integer, number, null.
#
# Each builder returns a ``Check`` (value -> value) that raises `Invalid` with an empty path.
# JSON semantics, no coercion (RFC-0004 §3):
#
# - ``bool`` is never an integer or a number, although Python's bool subclasses int.
# - An integral float (``1.0``, ``-0.0``) IS an integer: JSON has one number type and JSON Schema's
#   ``type: integer`` accepts any number with a zero fraction. It is returned as a Python ``int``.
# - Integers (in integer and number fields alike) must lie within ±(2^53-1) (RFC-0002 §4.1);
#   outside that they fail with ``range``.
# - Numbers accept ints and finite floats; NaN and ±inf fail with ``type`` (they are not JSON).
# - Strings are never parsed as numbers or booleans.


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


# ------------------------------------------------------------------------------------------------
# Field steps: one closure per object field that reads, defaults and checks that one member.
#
# A step is ``step(value, out) -> int``: it reads its member from the input object ``value``,
# writes the checked (or default) value into the new object ``out`` and returns 1 when the member
# was present, 0 when absent, so the object check can detect unknown members by counting.
# Scalar fields get steps with the common case inlined (``type(v) is str`` and friends); anything
# else falls back to the field's full check, which also produces the precise failure.


class _Absent:
    __slots__ = ()

    def __repr__(self) -> str:
        return "ABSENT"


#: Marks a member missing from the input (None is a value: absent and null differ, RFC-0004 §2).
ABSENT: Any = _Absent()


def deep_copy(value: Any) -> Any:
    """A fresh copy of a JSON value (for defaults, so no two calls share a mutable one)."""
    if isinstance(value, dict):
        return {k: deep_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [deep_copy(v) for v in value]
    return value


def _missing(name: str) -> Invalid:
    return Invalid("missing", "missing required field", [name])


def _checked(check: Check, value: Any, name: str) -> Any:
    """The slow path: full check, naming the field when it fails."""
    try:
        return check(value)
    except Invalid as invalid:
        invalid.path.append(name)
        raise


def typed_step(name: str, fast: type[Any], required: bool, default: Any, check: Check) -> Step:
    """A field whose common valid values are exactly of type ``fast`` (str, bool)."""

    def step(value: dict[Any, Any], out: dict[str, Any]) -> int:
        v = value.get(name, ABSENT)
        if type(v) is fast:
            out[name] = v
            return 1
        if v is ABSENT:
            if default is not ABSENT:
                out[name] = default
            elif required:
                raise _missing(name)
            return 0
        out[name] = _checked(check, v, name)
        return 1

    return step


def choice_step(
    name: str, allowed: Collection[str], required: bool, default: Any, check: Check
) -> Step:
    """A string field restricted to ``allowed``."""
    allowed = frozenset(allowed)

    def step(value: dict[Any, Any], out: dict[str, Any]) -> int:
        v = value.get(name, ABSENT)
        if type(v) is str and v in allowed:
            out[name] = v
            return 1
        if v is ABSENT:
            if default is not ABSENT:
                out[name] = default
            elif required:
                raise _missing(name)
            return 0
        out[name] = _checked(check, v, name)
        return 1

    return step


def ranged_step(
    name: str, fast: type[Any], low: float, high: float, required: bool, default: Any, check: Check
) -> Step:
    """An integer (``fast=int``) or number (``fast=float``) field with inclusive bounds."""

    def step(value: dict[Any, Any], out: dict[str, Any]) -> int:
        v = value.get(name, ABSENT)
        if type(v) is fast and low <= v <= high:
            out[name] = v
            return 1
        if v is ABSENT:
            if default is not ABSENT:
                out[name] = default
            elif required:
                raise _missing(name)
            return 0
        out[name] = _checked(check, v, name)
        return 1

    return step


def nested_step(
    name: str, required: bool, make_default: Callable[[], Any] | None, check: Check
) -> Step:
    """Any other field: objects, arrays, null and nullable kinds."""

    def step(value: dict[Any, Any], out: dict[str, Any]) -> int:
        v = value.get(name, ABSENT)
        if v is ABSENT:
            if make_default is not None:
                out[name] = make_default()
            elif required:
                raise _missing(name)
            return 0
        try:
            out[name] = check(v)
        except Invalid as invalid:
            invalid.path.append(name)
            raise
        return 1

    return step


# ------------------------------------------------------------------------------------------------
# The object check: run each field's step into a new dict, then catch unknown members.
#
# Objects with up to four fields get an unrolled check: on CPython 3.11 the ``for`` loop over the
# steps costs about a quarter of the whole validation of a typical request (measured by
# bench/bench_validation.py), and most verbs and nested objects have few fields.
#
# The output is always a new dict, even when no default was inserted: checking without copying
# measured about 20% faster on the benchmark request, but copy-on-change would still pay for
# tracking changes and would hand the caller's own dicts to handlers. A new object is simpler
# and keeps caller and handler from sharing mutable state.


def _raise_unknown(value: dict[Any, Any], declared: frozenset[str]) -> NoReturn:
    """Report the first member of ``value``, in input order, that is not declared."""
    for key in value:
        if key not in declared:
            raise Invalid("unknown", "unknown field", [str(key)])
    raise AssertionError("member count mismatch without an unknown member")


def object_check(steps: tuple[Step, ...], declared: frozenset[str], expected: str) -> Check:
    """Check a dict against its field steps; the result is always a new dict.

    Every step returns 1 for a present member, so a count below ``len(value)`` means the input
    has members that no field declares.
    """
    count = len(steps)
    if count == 0:

        def check_empty(value: Any) -> Any:
            if type(value) is not dict and not isinstance(value, dict):
                raise type_error(expected, value)
            if value:
                _raise_unknown(value, declared)
            return {}

        return check_empty
    if count == 1:
        (a,) = steps

        def check_one(value: Any) -> Any:
            if type(value) is not dict and not isinstance(value, dict):
                raise type_error(expected, value)
            out: dict[str, Any] = {}
            if a(value, out) != len(value):
                _raise_unknown(value, declared)
            return out

        return check_one
    if count == 2:
        a, b = steps

        def check_two(value: Any) -> Any:
            if type(value) is not dict and not isinstance(value, dict):
                raise type_error(expected, value)
            out: dict[str, Any] = {}
            if a(value, out) + b(value, out) != len(value):
                _raise_unknown(value, declared)
            return out

        return check_two
    if count == 3:
        a, b, c = steps

        def check_three(value: Any) -> Any:
            if type(value) is not dict and not isinstance(value, dict):
                raise type_error(expected, value)
            out: dict[str, Any] = {}
            if a(value, out) + b(value, out) + c(value, out) != len(value):
                _raise_unknown(value, declared)
            return out

        return check_three
    if count == 4:
        a, b, c, d = steps

        def check_four(value: Any) -> Any:
            if type(value) is not dict and not isinstance(value, dict):
                raise type_error(expected, value)
            out: dict[str, Any] = {}
            if a(value, out) + b(value, out) + c(value, out) + d(value, out) != len(value):
                _raise_unknown(value, declared)
            return out

        return check_four

    def check_many(value: Any) -> Any:
        if type(value) is not dict and not isinstance(value, dict):
            raise type_error(expected, value)
        out: dict[str, Any] = {}
        present = 0
        for step in steps:
            present += step(value, out)
        if present != len(value):
            _raise_unknown(value, declared)
        return out

    return check_many
