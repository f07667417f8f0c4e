"""Compile normalized type descriptors (docs/architecture.md) into validator closures, and one
normalized verb into its `CompiledVerb`.

The descriptor dict is read once, here; the returned closures never look at it again.
Failure order is deterministic: within an object, declared fields are checked in declaration
order, each one completely (depth first) before the next; unknown members are reported after
all declared fields passed, the first one in input order. Arrays are checked in index order.
"""

from __future__ import annotations

# The same class as collections.abc.Mapping, from the module `os` has already loaded:
# `collections.abc` would import `collections` (~1 ms of every CLI call).
from _collections_abc import Mapping  # isinstance checks at run time

from venom_proto import VenomError

from ._checks import (
    ABSENT,
    FLOAT_MAX,
    SAFE_INT,
    DescriptorError,
    Invalid,
    boolean_check,
    choice_step,
    deep_copy,
    integer_check,
    nested_step,
    null_check,
    number_check,
    object_check,
    ranged_step,
    string_check,
    to_error,
    type_error,
    typed_step,
)

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would cost every CLI call ~3 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, NoReturn

    from ._checks import Check, Kind, Step
    from ._generated import FieldPlan

    #: A compiled validator: returns a new value with defaults inserted, or raises `VenomError`.
    Validator = Callable[[Any], Any]

__all__ = (
    "CompiledVerb",
    "compile_descriptor",
    "compile_params",
    "compile_verb",
    "object_plans",
)  # `Validator` is type-only

_SCALARS = (str, bool, int, float, type(None))


def compile_descriptor(
    desc: Mapping[str, Any], *, kind: Kind = "params", generate: bool = False
) -> Validator:
    """Compile one type descriptor.

    ``kind="params"`` fails with ``invalid_params.<reason>`` and ``data.param``; ``"result"`` and
    ``"item"`` fail with ``internal.result`` whose data names the path. The input is never
    mutated; objects and arrays are always rebuilt. Raises `DescriptorError` for a malformed
    descriptor. ``generate`` trades a compile step (~0.1 ms per object) for checks about twice as
    fast (``_generated``): worth it in a daemon, not in a one-shot CLI.
    """
    validate = _boundary(_check_for(desc, kind, generate), kind)
    return _generated_top(desc, kind, validate) if generate else validate


def compile_params(fields: Sequence[Mapping[str, Any]], *, generate: bool = False) -> Validator:
    """Compile a verb's params field list; ``None`` (params omitted, RFC-0002 §4.2) means ``{}``."""
    desc = {"kind": "object", "fields": fields}
    check = _check_for(desc, "params", generate)

    def validate(value: Any) -> Any:
        try:
            return check({} if value is None else value)
        except Invalid as invalid:
            raise to_error(invalid, "params") from None

    return _generated_top(desc, "params", validate) if generate else validate


def _generated_top(desc: Mapping[str, Any], where: str, validate: Validator) -> Validator:
    """The boundary itself generated, for a plain object: one frame for the common request."""
    plans = object_plans(desc, where)
    if plans is None:
        return validate
    from ._generated import generated_object_check  # daemon-only: spares each CLI call 0.1 ms

    return generated_object_check(plans, validate)


def object_plans(desc: Mapping[str, Any], where: str) -> list[FieldPlan] | None:
    """The field plans of a non-nullable object descriptor (None for any other kind)."""
    if desc.get("kind") != "object" or desc.get("nullable", False) is True:
        return None
    return [_field_step(f, where, set(), True)[1] for f in desc["fields"]]


def _boundary(check: Check, kind: Kind) -> Validator:
    def validate(value: Any) -> Any:
        try:
            return check(value)
        except Invalid as invalid:
            raise to_error(invalid, kind) from None

    return validate


def _bad(where: str, problem: str) -> NoReturn:
    raise DescriptorError(f"{where}: {problem}")


def _bound(desc: Mapping[str, Any], key: str, where: str, *, integral: bool) -> Any:
    value = desc.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        _bad(where, f"{key} must be a number")
    if integral and not isinstance(value, int):
        _bad(where, f"{key} of an integer must be an integer")
    import math  # here, not at the top: most verbs declare no bounds; it spares the CLI ~0.1 ms

    if not math.isfinite(value):
        _bad(where, f"{key} must be finite")
    return value


def _check_for(desc: Any, where: str, generate: bool = False) -> Check:
    if not isinstance(desc, Mapping):
        _bad(where, "type descriptor must be an object")
    kind = desc.get("kind")
    nullable = desc.get("nullable", False) is True
    expected = f"{kind} or null" if nullable else str(kind)
    check: Check
    if kind == "string":
        choices = desc.get("choices")
        if choices is not None and (
            not isinstance(choices, list) or not all(isinstance(c, str) for c in choices)
        ):
            _bad(where, "choices must be a list of strings")
        check = string_check(choices, expected)
    elif kind == "boolean":
        check = boolean_check(expected)
    elif kind == "integer":
        low = _bound(desc, "min", where, integral=True)
        check = integer_check(low, _bound(desc, "max", where, integral=True), expected)
    elif kind == "number":
        low = _bound(desc, "min", where, integral=False)
        check = number_check(low, _bound(desc, "max", where, integral=False), expected)
    elif kind == "null":
        return null_check()
    elif kind == "array":
        check = _array_check(_check_for(desc.get("items"), f"{where}[]", generate), expected)
    elif kind == "object":
        check = _object_check(desc.get("fields"), where, expected, generate)
    else:
        _bad(where, f"unknown kind {kind!r}")
    return _or_null(check) if nullable else check


def _or_null(check: Check) -> Check:
    def check_nullable(value: Any) -> Any:
        return None if value is None else check(value)

    return check_nullable


def _array_check(item: Check, expected: str) -> Check:
    def check_array(value: Any) -> Any:
        if not isinstance(value, list):
            raise type_error(expected, value)
        try:
            return [item(element) for element in value]
        except Invalid as first:
            _raise_at_index(item, value, first)

    return check_array


def _raise_at_index(item: Check, value: list[Any], first: Invalid) -> NoReturn:
    # The comprehension above is the fast path but loses the index; checks are pure, so
    # re-running them up to the failing element finds it.
    for index, element in enumerate(value):
        try:
            item(element)
        except Invalid as invalid:
            invalid.path.append(str(index))
            raise
    raise first


def _object_check(fields: Any, where: str, expected: str, generate: bool) -> Check:
    if not isinstance(fields, list):
        _bad(where, "fields must be a list")
    steps: list[Step] = []
    plans: list[FieldPlan] = []
    names: set[str] = set()
    for position, field in enumerate(fields):
        step, plan = _field_step(field, f"{where}.fields[{position}]", names, generate)
        steps.append(step)
        plans.append(plan)
    check = object_check(tuple(steps), frozenset(names), expected)
    if not generate:
        return check
    from ._generated import generated_object_check

    return generated_object_check(plans, check)


def _field_step(field: Any, where: str, names: set[str], generate: bool) -> tuple[Step, FieldPlan]:
    """The field's closure step and its plan for generated code (same tests, same default)."""
    if not isinstance(field, Mapping):
        _bad(where, "field must be an object")
    name = field.get("name")
    if not isinstance(name, str) or not name:
        _bad(where, "field name must be a nonempty string")
    if name in names:
        _bad(where, f"duplicate field {name!r}")
    names.add(name)
    where = f"{where}({name})"
    desc: Any = field.get("type")
    check = _check_for(desc, where, generate)
    required = field.get("required", False) is True
    default = ABSENT
    if not required and "default" in field:
        try:
            default = check(field["default"])  # defaults get their own nested defaults once
        except Invalid as invalid:
            _bad(where, f"invalid default: {invalid.problem}")
    kind = desc.get("kind")
    if desc.get("nullable", False) is not True:
        if kind == "string" and desc.get("choices") is not None:
            plan = (name, "choice", desc["choices"], required, default, check)
            return choice_step(name, desc["choices"], required, default, check), plan
        if kind in ("string", "boolean"):
            exact: type[Any] = str if kind == "string" else bool
            plan = (name, "type", exact, required, default, check)
            return typed_step(name, exact, required, default, check), plan
        if kind in ("integer", "number"):
            number: type[Any] = int if kind == "integer" else float
            low, high = _fast_range(desc, SAFE_INT if kind == "integer" else FLOAT_MAX)
            plan = (name, "range", (number, low, high), required, default, check)
            return ranged_step(name, number, low, high, required, default, check), plan
    plan = (name, "nested", None, required, default, check)
    return nested_step(name, required, _default_maker(default), check), plan


def _fast_range(desc: Mapping[str, Any], limit: float) -> tuple[float, float]:
    low, high = desc.get("min"), desc.get("max")
    return (
        -limit if low is None else max(low, -limit),
        limit if high is None else min(high, limit),
    )


def _default_maker(default: Any) -> Callable[[], Any] | None:
    """A factory of fresh default values, so no two calls share a mutable default."""
    if default is ABSENT:
        return None
    if isinstance(default, _SCALARS):
        return lambda: default
    if isinstance(default, dict | list) and all(isinstance(v, _SCALARS) for v in _values(default)):
        return default.copy
    return lambda: deep_copy(default)


def _values(container: dict[str, Any] | list[Any]) -> Any:
    return container.values() if isinstance(container, dict) else container


class CompiledVerb:
    """The validators of one normalized verb (RFC-0004 §2/§3), compiled once.

    ``params(p)`` returns the params with defaults inserted (``None`` means ``{}``) or raises
    ``invalid_params.*``; ``result(v)`` and ``item(v)`` return the checked value or raise
    ``internal.result``.
    """

    __slots__ = (
        "grant",
        "item",
        "name",
        "params",
        "params_plans",
        "result",
        "result_plans",
        "streams",
        "verb",
    )

    def __init__(self, verb: Mapping[str, Any], *, generate: bool = False) -> None:
        if not isinstance(verb, Mapping) or not isinstance(verb.get("name"), str):
            raise DescriptorError("verb must be an object with a string name")
        name: str = verb["name"]
        params = verb.get("params", [])
        if not isinstance(params, list):
            raise DescriptorError(f"verb {name!r}: params must be a list of fields")
        if "result" not in verb:
            raise DescriptorError(f"verb {name!r}: result descriptor is required")
        self.verb: Mapping[str, Any] = verb
        self.name: str = name
        self.grant: str = str(verb.get("grant", ""))
        self.streams: bool = verb.get("streams", False) is True
        self.params: Validator = compile_params(params, generate=generate)
        # With ``generate``, the plans let the registry inline both checks into one function.
        self.params_plans: list[FieldPlan] | None = None
        self.result_plans: list[FieldPlan] | None = None
        if generate:
            self.params_plans = object_plans({"kind": "object", "fields": params}, "params")
            self.result_plans = object_plans(verb["result"], "result")
        self.result: Validator = compile_descriptor(
            verb["result"], kind="result", generate=generate
        )
        if self.streams:
            if "item" not in verb:
                raise DescriptorError(f"verb {name!r}: a streaming verb needs an item descriptor")
            self.item: Validator = compile_descriptor(verb["item"], kind="item", generate=generate)
        else:
            self.item = _no_items(name)

    def __repr__(self) -> str:
        return f"CompiledVerb({self.name!r})"


def _no_items(name: str) -> Validator:
    def refuse(value: Any) -> Any:
        raise VenomError(
            "internal.result",
            f"verb '{name}' does not stream, so it cannot emit items",
            {"path": "", "reason": "type"},
        )

    return refuse


def compile_verb(verb: Mapping[str, Any], *, generate: bool = False) -> CompiledVerb:
    """Compile the params, result and item validators of a normalized verb.

    ``generate``: faster generated checks for long-running processes (see `compile_descriptor`).
    """
    return CompiledVerb(verb, generate=generate)
