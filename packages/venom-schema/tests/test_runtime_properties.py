"""Hypothesis properties of compiled validators over generated descriptors and valid values."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from venom_schema.runtime import compile_descriptor

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
        bounded("number", st.floats(-1e6, 1e6, allow_nan=False)),
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
