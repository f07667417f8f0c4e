"""Hypothesis properties of compiled validators over generated descriptors and valid values.

Also: generated checks (runtime/_generated.py) agree with the closure validators on every
input. The generated code only accepts and otherwise defers to the closures, so for any
descriptor and value both must return equal values (same member order, same types) or raise
the same error.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from venom_proto import VenomError
from venom_schema.runtime import compile_descriptor, compile_params

NAMES = st.text(alphabet="abcdefgh_", min_size=1, max_size=6)
SAFE = 9007199254740991


def _scalar_descs() -> st.SearchStrategy[dict[str, Any]]:
    def bounded(kind: str, numbers: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
        def build(pair: tuple[Any, Any]) -> dict[str, Any]:
            low, high = sorted(pair)
            return {"kind": kind, "min": low, "max": high}

        return st.tuples(numbers, numbers).map(build) | st.just({"kind": kind})

    return st.one_of(
        st.just({"kind": "string"}),
        st.lists(NAMES, min_size=1, max_size=4, unique=True).map(
            lambda c: {"kind": "string", "choices": c}
        ),
        st.just({"kind": "boolean"}),
        st.just({"kind": "null"}),
        bounded("integer", st.integers(-1000, 1000)),
        # `+ 0.0` turns -0.0 into 0.0: sorted((0.0, -0.0)) would give hypothesis an empty range.
        bounded("number", st.floats(-1e6, 1e6, allow_nan=False).map(lambda x: x + 0.0)),
    )


def _with_nullable(desc: dict[str, Any], nullable: bool) -> dict[str, Any]:
    return {**desc, "nullable": True} if nullable else desc


def descriptors(*, nullable: bool) -> st.SearchStrategy[dict[str, Any]]:
    flag = st.booleans() if nullable else st.just(False)

    def extend(children: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
        field = st.fixed_dictionaries(
            {"name": NAMES, "summary": st.just("s"), "type": children, "required": st.booleans()}
        )
        objects = st.lists(field, max_size=4, unique_by=lambda f: f["name"]).map(
            lambda fields: {"kind": "object", "fields": fields}
        )
        arrays = children.map(lambda items: {"kind": "array", "items": items})
        return st.tuples(objects | arrays, flag).map(lambda p: _with_nullable(*p))

    leaves = st.tuples(_scalar_descs(), flag).map(lambda p: _with_nullable(*p))
    return st.recursive(leaves, extend, max_leaves=8)


def values_for(desc: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Valid values of ``desc`` (optional fields randomly present or absent)."""
    kind = desc["kind"]
    base: st.SearchStrategy[Any]
    if kind == "string":
        base = st.sampled_from(desc["choices"]) if "choices" in desc else st.text(max_size=5)
    elif kind == "boolean":
        base = st.booleans()
    elif kind == "null":
        base = st.none()
    elif kind == "integer":
        low, high = desc.get("min", -SAFE), desc.get("max", SAFE)
        base = st.integers(low, high) | st.integers(low, high).map(float)
    elif kind == "number":
        low, high = desc.get("min", -1e300), desc.get("max", 1e300)
        base = st.floats(low, high, allow_nan=False, allow_infinity=False)
    elif kind == "array":
        base = st.lists(values_for(desc["items"]), max_size=3)
    else:
        required = {f["name"]: values_for(f["type"]) for f in desc["fields"] if f["required"]}
        optional = {f["name"]: values_for(f["type"]) for f in desc["fields"] if not f["required"]}
        base = st.fixed_dictionaries(required, optional=optional)
    return base | st.none() if desc.get("nullable") else base


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), descriptors(nullable=False))
def test_params_validation_is_idempotent_and_pure(
    data: st.DataObject, desc: dict[str, Any]
) -> None:
    """Validating a valid value twice gives the same value; the input is never mutated."""
    value = data.draw(values_for(desc))
    snapshot = copy.deepcopy(value)
    validate = compile_descriptor(desc, kind="params")
    once = validate(value)
    assert value == snapshot
    twice = validate(once)
    assert twice == once
    assert validate(value) == once


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), descriptors(nullable=True))
def test_result_validation_is_idempotent_and_pure(
    data: st.DataObject, desc: dict[str, Any]
) -> None:
    """The same holds for result descriptors, where nullable may appear at any depth."""
    value = data.draw(values_for(desc))
    snapshot = copy.deepcopy(value)
    validate = compile_descriptor(desc, kind="result")
    once = validate(value)
    assert value == snapshot
    assert validate(once) == once
    if isinstance(value, dict | list):
        assert once is not value


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**60), 2**60)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet="abcdefgh_", max_size=4),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(NAMES, children, max_size=4),
    max_leaves=10,
)


def _outcome(validate: Any, value: Any) -> tuple[str, Any]:
    try:
        result = validate(value)
    except VenomError as exc:
        return "error", (exc.code, exc.message, exc.data)
    return "ok", _typed(result)


def _typed(value: Any) -> Any:
    """A comparable form that keeps member order and the int/float distinction."""
    if isinstance(value, dict):
        return ("dict", [(k, _typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [_typed(v) for v in value])
    return (type(value).__name__, value)


@st.composite
def _with_defaults(draw: st.DrawFn, desc: dict[str, Any]) -> dict[str, Any]:
    """Give some optional scalar-or-object fields a valid default, recursively."""
    if desc["kind"] == "array":
        return {**desc, "items": draw(_with_defaults(desc["items"]))}
    if desc["kind"] != "object":
        return desc
    fields = []
    for field in desc["fields"]:
        field = {**field, "type": draw(_with_defaults(field["type"]))}
        if not field["required"] and draw(st.booleans()):
            field["default"] = draw(values_for(field["type"]))
        fields.append(field)
    return {**desc, "fields": fields}


def _mutations(value: Any) -> st.SearchStrategy[Any]:
    """Near misses of a valid value: a member dropped, replaced, added, or retyped."""
    if not isinstance(value, dict) or not value:
        return JSON
    keys = sorted(value)
    return st.one_of(
        st.sampled_from(keys).map(lambda k: {m: v for m, v in value.items() if m != k}),
        st.tuples(st.sampled_from(keys), JSON).map(lambda p: {**value, p[0]: p[1]}),
        st.tuples(NAMES, JSON).map(lambda p: {**value, p[0]: p[1]}),
        st.sampled_from(keys).map(lambda k: {**value, k: "zz"}),  # never one of the choices
        st.sampled_from(keys).map(lambda k: {**value, k: float(1) if value[k] == 1 else 1}),
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), descriptors(nullable=True))
def test_generated_results_agree_with_closures(data: st.DataObject, desc: dict[str, Any]) -> None:
    """RFC-0004 §3: the same internal.result verdicts and the same checked values either way."""
    desc = data.draw(_with_defaults(desc))
    slow = compile_descriptor(desc, kind="result")
    fast = compile_descriptor(desc, kind="result", generate=True)
    valid = data.draw(values_for(desc))
    for value in (valid, data.draw(_mutations(valid)), data.draw(JSON)):
        snapshot = copy.deepcopy(value)
        assert _outcome(fast, value) == _outcome(slow, value)
        assert value == snapshot  # neither mutates its input


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.lists(st.fixed_dictionaries({"name": NAMES}), max_size=5))
def test_generated_params_agree_with_closures(
    data: st.DataObject, names: list[dict[str, str]]
) -> None:
    """RFC-0004 §2-3: defaults, invalid_params codes and data.param are identical either way."""
    desc = data.draw(descriptors(nullable=False).filter(lambda d: d["kind"] == "object"))
    desc = data.draw(_with_defaults(desc))
    slow = compile_params(desc["fields"])
    fast = compile_params(desc["fields"], generate=True)
    valid = data.draw(values_for(desc))
    for value in (valid, data.draw(_mutations(valid)), None, data.draw(JSON)):
        assert _outcome(fast, value) == _outcome(slow, value)


def test_generated_defaults_are_fresh_per_call() -> None:
    """A container default is copied per call, so one call's handler cannot change the next."""
    fields = [
        {
            "name": "tags",
            "summary": "s",
            "type": {"kind": "array", "items": {"kind": "string"}},
            "default": ["a"],
        }
    ]
    validate = compile_params(fields, generate=True)
    first = validate({})
    first["tags"].append("b")
    assert validate({}) == {"tags": ["a"]}


@pytest.mark.parametrize(
    ("value", "code", "param"),
    [
        ({"text": 1}, "invalid_params.type", "text"),
        ({}, "invalid_params.missing", "text"),
        ({"text": "x", "style": "loud"}, "invalid_params.enum", "style"),
        ({"text": "x", "extra": 1}, "invalid_params.unknown", "extra"),
        ([], "invalid_params.type", ""),
    ],
)
def test_generated_params_report_the_precise_error(value: Any, code: str, param: str) -> None:
    """The generated path defers every failure to the closures, which name the field."""
    fields: list[dict[str, Any]] = [
        {"name": "text", "summary": "s", "type": {"kind": "string"}, "required": True},
        {
            "name": "style",
            "summary": "s",
            "type": {"kind": "string", "choices": ["plain", "upper"]},
            "default": "plain",
        },
    ]
    validate = compile_params(fields, generate=True)
    assert validate({"text": "x"}) == {"text": "x", "style": "plain"}
    with pytest.raises(VenomError) as info:
        validate(value)
    assert info.value.code == code
    assert (info.value.data or {}).get("param", "") == param
