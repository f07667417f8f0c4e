"""Field steps: one closure per object field that reads, defaults and checks that one member.

A step is ``step(value, out) -> int``: it reads its member from the input object ``value``,
writes the checked (or default) value into the new object ``out`` and returns 1 when the member
was present, 0 when absent, so the object check can detect unknown members by counting.
Scalar fields get steps with the common case inlined (``type(v) is str`` and friends); anything
else falls back to the field's full check, which also produces the precise failure.
"""

from __future__ import annotations

from ._errors import Invalid

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would cost every CLI call ~3 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Collection
    from typing import Any

    from ._scalars import Check

    Step = Callable[[dict[Any, Any], dict[str, Any]], int]

__all__ = (
    "ABSENT",
    "choice_step",
    "deep_copy",
    "nested_step",
    "ranged_step",
    "typed_step",
)  # `Step` is type-only


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
