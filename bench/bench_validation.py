"""Params validation speed: venom_schema.runtime vs pydantic-core on the same strict schema.

The request is typical of a verb call: three params, one of them a nested object, with defaults
to insert (``count`` absent at the top, ``upper`` absent in the nested object). pydantic-core
validates the equivalent strict typed dict (``strict=True``, ``extra_behavior="forbid"``,
defaults through ``with_default_schema``), which also returns a new dict.
Floor: ours >= 0.5x pydantic-core's rate. Run ``python bench/bench_validation.py``.
"""

from __future__ import annotations

import json
import timeit
from collections.abc import Callable
from typing import Any

from pydantic_core import SchemaValidator
from pydantic_core import core_schema as cs

from venom_schema.runtime import compile_params

FLOOR = 0.5
NUMBER = 100_000
REPEAT = 9


def _field(
    name: str, type_: dict[str, Any], *, required: bool = False, **extra: Any
) -> dict[str, Any]:
    return {"name": name, "summary": name, "type": type_, "required": required, **extra}


#: The normalized params of the benchmark verb.
FIELDS = [
    _field("text", {"kind": "string"}, required=True),
    _field("count", {"kind": "integer", "min": 1, "max": 100}, default=1),
    _field(
        "options",
        {
            "kind": "object",
            "fields": [
                _field("upper", {"kind": "boolean"}, default=False),
                _field("prefix", {"kind": "string"}),
            ],
        },
        default={},
    ),
]
REQUEST: dict[str, Any] = {"text": "hello", "options": {"prefix": ">"}}
EXPECTED = {"text": "hello", "count": 1, "options": {"upper": False, "prefix": ">"}}


def pydantic_validator() -> SchemaValidator:
    """The same params as a strict pydantic-core typed dict."""

    def optional(schema: cs.CoreSchema, default: Any) -> cs.TypedDictField:
        return cs.typed_dict_field(cs.with_default_schema(schema, default=default), required=False)

    options = cs.typed_dict_schema(
        {
            "upper": optional(cs.bool_schema(strict=True), False),
            "prefix": cs.typed_dict_field(cs.str_schema(strict=True), required=False),
        },
        extra_behavior="forbid",
        strict=True,
    )
    schema = cs.typed_dict_schema(
        {
            "text": cs.typed_dict_field(cs.str_schema(strict=True), required=True),
            "count": optional(cs.int_schema(strict=True, ge=1, le=100), 1),
            "options": optional(options, {}),
        },
        extra_behavior="forbid",
        strict=True,
    )
    return SchemaValidator(schema)


def _rates(*validators: Callable[[Any], Any]) -> list[float]:
    """Best-of-``REPEAT`` validations per second for each validator.

    Rounds alternate between the validators, so a burst of load from other processes on the
    machine hits both rather than skewing the ratio.
    """
    timers = [
        timeit.Timer("validate(request)", globals={"validate": v, "request": REQUEST})
        for v in validators
    ]
    best = [float("inf")] * len(timers)
    for _ in range(REPEAT):
        for index, timer in enumerate(timers):
            best[index] = min(best[index], timer.timeit(NUMBER))
    return [NUMBER / seconds for seconds in best]


def run() -> dict[str, Any]:
    """Measure both validators; the result says whether the floor holds."""
    ours = compile_params(FIELDS)
    generated = compile_params(FIELDS, generate=True)  # what the daemon's registry uses
    theirs = pydantic_validator().validate_python
    assert ours(REQUEST) == generated(REQUEST) == EXPECTED == theirs(REQUEST)
    ours_rate, generated_rate, theirs_rate = _rates(ours, generated, theirs)
    ratio = ours_rate / theirs_rate
    return {
        "name": "params validation (3 params, nested object, defaults)",
        "ours_per_s": round(ours_rate),
        "generated_per_s": round(generated_rate),
        "pydantic_core_per_s": round(theirs_rate),
        "ratio": round(ratio, 3),
        "floor": FLOOR,
        "ok": ratio >= FLOOR,
    }


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
