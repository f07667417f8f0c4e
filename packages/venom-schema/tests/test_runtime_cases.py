"""Table-driven params validation: every kind, nesting, arrays, defaults, bounds and paths.

Each case names a field list, an input and either the expected output (defaults inserted) or the
expected ``invalid_params`` refinement with its ``data.param`` path (RFC-0004 §3).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import pytest

from venom_proto import VenomError
from venom_schema.runtime import compile_params


def field(
    name: str, type_: dict[str, Any], *, required: bool = False, **extra: Any
) -> dict[str, Any]:
    return {"name": name, "summary": f"the {name}", "type": type_, "required": required, **extra}


STRING = {"kind": "string"}
ECHO = [
    field("text", STRING, required=True),
    field("style", {"kind": "string", "choices": ["plain", "upper"]}, default="plain"),
]
COUNT = [field("count", {"kind": "integer", "min": 1, "max": 10})]
INT = [field("n", {"kind": "integer"})]
NUM = [field("x", {"kind": "number", "min": 0.5, "max": 2})]
ANYNUM = [field("x", {"kind": "number"})]
FLAG = [field("on", {"kind": "boolean"})]
NULL = [field("nothing", {"kind": "null"})]
TAGS = [field("tags", {"kind": "array", "items": STRING})]
ROW = {
    "kind": "object",
    "fields": [field("name", STRING, required=True), field("size", {"kind": "integer"}, default=0)],
}
ROWS = [field("items", {"kind": "array", "items": ROW})]
OPTS = {
    "kind": "object",
    "fields": [
        field("upper", {"kind": "boolean"}, default=False),
        field("prefix", STRING),
    ],
}
WITH_OPTS = [
    field("text", STRING, required=True),
    field("opts", OPTS, default={}),
    field("extra", OPTS),
]
DEEP = [
    field(
        "a",
        {
            "kind": "object",
            "fields": [
                field(
                    "b",
                    {"kind": "object", "fields": [field("c", {"kind": "integer"}, required=True)]},
                    required=True,
                )
            ],
        },
        required=True,
    )
]
MATRIX = [field("m", {"kind": "array", "items": {"kind": "array", "items": {"kind": "integer"}}})]
LIST_DEFAULT = [field("tags", {"kind": "array", "items": STRING}, default=["a", "b"])]


@dataclass(frozen=True)
class Case:
    id: str
    fields: list[dict[str, Any]]
    value: Any
    ok: Any = None
    code: str | None = None
    param: str | None = None


OK_CASES = [
    Case("echo-default-inserted", ECHO, {"text": "hi"}, ok={"text": "hi", "style": "plain"}),
    Case(
        "echo-explicit-choice",
        ECHO,
        {"text": "hi", "style": "upper"},
        ok={"text": "hi", "style": "upper"},
    ),
    Case("echo-empty-string", ECHO, {"text": ""}, ok={"text": "", "style": "plain"}),
    Case("int-plain", INT, {"n": -5}, ok={"n": -5}),
    Case("int-integral-float-is-int", INT, {"n": 3.0}, ok={"n": 3}),
    Case("int-negative-zero-float", INT, {"n": -0.0}, ok={"n": 0}),
    Case("int-max-safe", INT, {"n": 9007199254740991}, ok={"n": 9007199254740991}),
    Case("int-min-safe", INT, {"n": -9007199254740991}, ok={"n": -9007199254740991}),
    Case("int-bounds-inclusive-low", COUNT, {"count": 1}, ok={"count": 1}),
    Case("int-bounds-inclusive-high", COUNT, {"count": 10}, ok={"count": 10}),
    Case("int-optional-absent", COUNT, {}, ok={}),
    Case("number-int-accepted", NUM, {"x": 1}, ok={"x": 1}),
    Case("number-float", NUM, {"x": 1.25}, ok={"x": 1.25}),
    Case("number-bounds-inclusive", NUM, {"x": 0.5}, ok={"x": 0.5}),
    Case("number-unbounded-huge", ANYNUM, {"x": 1e308}, ok={"x": 1e308}),
    Case("bool-true", FLAG, {"on": True}, ok={"on": True}),
    Case("bool-false", FLAG, {"on": False}, ok={"on": False}),
    Case("null-kind", NULL, {"nothing": None}, ok={"nothing": None}),
    Case("array-strings", TAGS, {"tags": ["a", "b"]}, ok={"tags": ["a", "b"]}),
    Case("array-empty", TAGS, {"tags": []}, ok={"tags": []}),
    Case(
        "array-object-defaults-per-element",
        ROWS,
        {"items": [{"name": "a"}, {"name": "b", "size": 2}]},
        ok={"items": [{"name": "a", "size": 0}, {"name": "b", "size": 2}]},
    ),
    Case("array-nested", MATRIX, {"m": [[1, 2], [], [3.0]]}, ok={"m": [[1, 2], [], [3]]}),
    Case(
        "object-absent-default-gets-nested-defaults",
        WITH_OPTS,
        {"text": "t"},
        ok={"text": "t", "opts": {"upper": False}},
    ),
    Case(
        "object-present-gets-nested-defaults",
        WITH_OPTS,
        {"text": "t", "opts": {"prefix": ">"}, "extra": {}},
        ok={"text": "t", "opts": {"upper": False, "prefix": ">"}, "extra": {"upper": False}},
    ),
    Case("deep-ok", DEEP, {"a": {"b": {"c": 1}}}, ok={"a": {"b": {"c": 1}}}),
    Case("empty-fields-empty-input", [], {}, ok={}),
    Case("params-none-is-empty", [], None, ok={}),
    Case("list-default-inserted", LIST_DEFAULT, {}, ok={"tags": ["a", "b"]}),
]

ERR_CASES = [
    Case("echo-missing", ECHO, {}, code="missing", param="text"),
    Case("echo-none-params-missing", ECHO, None, code="missing", param="text"),
    Case("echo-text-wrong-type", ECHO, {"text": 1}, code="type", param="text"),
    Case("echo-bad-choice", ECHO, {"text": "hi", "style": "loud"}, code="enum", param="style"),
    Case("echo-choice-wrong-type", ECHO, {"text": "hi", "style": 1}, code="type", param="style"),
    Case("echo-null-not-absent", ECHO, {"text": "hi", "style": None}, code="type", param="style"),
    Case("required-null-is-type", ECHO, {"text": None}, code="type", param="text"),
    Case("echo-unknown", ECHO, {"text": "hi", "colour": 1}, code="unknown", param="colour"),
    Case("params-not-object", ECHO, ["text"], code="type", param=""),
    Case("int-bool-true", INT, {"n": True}, code="type", param="n"),
    Case("int-bool-false", INT, {"n": False}, code="type", param="n"),
    Case("int-fraction", INT, {"n": 1.5}, code="type", param="n"),
    Case("int-no-string-coercion", INT, {"n": "1"}, code="type", param="n"),
    Case("int-nan", INT, {"n": math.nan}, code="type", param="n"),
    Case("int-below-min", COUNT, {"count": 0}, code="range", param="count"),
    Case("int-above-max", COUNT, {"count": 11}, code="range", param="count"),
    Case("int-float-above-max", COUNT, {"count": 11.0}, code="range", param="count"),
    Case("int-beyond-safe", INT, {"n": 9007199254740992}, code="range", param="n"),
    Case("int-huge-float", INT, {"n": 1e300}, code="range", param="n"),
    Case("number-bool", ANYNUM, {"x": True}, code="type", param="x"),
    Case("number-nan", ANYNUM, {"x": math.nan}, code="type", param="x"),
    Case("number-inf", ANYNUM, {"x": math.inf}, code="type", param="x"),
    Case("number-neg-inf", ANYNUM, {"x": -math.inf}, code="type", param="x"),
    Case("number-no-string-coercion", ANYNUM, {"x": "1.5"}, code="type", param="x"),
    Case("number-below-min", NUM, {"x": 0.4}, code="range", param="x"),
    Case("number-above-max", NUM, {"x": 3}, code="range", param="x"),
    Case("number-int-beyond-safe", ANYNUM, {"x": 2**60}, code="range", param="x"),
    Case("bool-int-one", FLAG, {"on": 1}, code="type", param="on"),
    Case("bool-string", FLAG, {"on": "true"}, code="type", param="on"),
    Case("null-zero", NULL, {"nothing": 0}, code="type", param="nothing"),
    Case("array-not-list", TAGS, {"tags": "a"}, code="type", param="tags"),
    Case("array-tuple-is-not-array", TAGS, {"tags": ("a",)}, code="type", param="tags"),
    Case("array-bad-element", TAGS, {"tags": ["a", 1]}, code="type", param="tags.1"),
    Case(
        "array-object-missing",
        ROWS,
        {"items": [{"name": "a"}, {"name": "b"}, {"size": 1}]},
        code="missing",
        param="items.2.name",
    ),
    Case(
        "array-object-unknown",
        ROWS,
        {"items": [{"name": "a", "colour": 1}]},
        code="unknown",
        param="items.0.colour",
    ),
    Case("array-nested-index", MATRIX, {"m": [[1], [2, "x"]]}, code="type", param="m.1.1"),
    Case("object-null", WITH_OPTS, {"text": "t", "opts": None}, code="type", param="opts"),
    Case("object-list", WITH_OPTS, {"text": "t", "opts": []}, code="type", param="opts"),
    Case(
        "nested-unknown",
        WITH_OPTS,
        {"text": "t", "opts": {"suffix": "<"}},
        code="unknown",
        param="opts.suffix",
    ),
    Case(
        "nested-type",
        WITH_OPTS,
        {"text": "t", "opts": {"upper": 1}},
        code="type",
        param="opts.upper",
    ),
    Case("deep-missing", DEEP, {"a": {"b": {}}}, code="missing", param="a.b.c"),
    Case("deep-type", DEEP, {"a": {"b": {"c": "1"}}}, code="type", param="a.b.c"),
    Case("empty-fields-unknown", [], {"a": 1}, code="unknown", param="a"),
    # Failure order: declared fields in declaration order, then unknown members in input order.
    Case("order-missing-before-unknown", ECHO, {"txt": "hi"}, code="missing", param="text"),
    Case("order-declaration", ECHO, {"style": "x", "text": 1}, code="type", param="text"),
    Case(
        "order-unknown-input-order",
        ECHO,
        {"text": "a", "zz": 1, "aa": 2},
        code="unknown",
        param="zz",
    ),
    Case("order-depth-first", WITH_OPTS, {"opts": {"upper": 1}}, code="missing", param="text"),
]


GENERATE = pytest.mark.parametrize("generate", [False, True], ids=["closures", "generated"])


@GENERATE
@pytest.mark.parametrize("case", OK_CASES, ids=lambda c: c.id)
def test_valid_params(case: Case, generate: bool) -> None:
    """RFC-0004 §2: defaults fill only absent fields, recursively; valid values pass unchanged."""
    result = compile_params(case.fields, generate=generate)(case.value)
    assert result == case.ok
    assert list(result) == list(case.ok)
    assert [type(v) for v in result.values()] == [type(v) for v in case.ok.values()]


@GENERATE
@pytest.mark.parametrize("case", ERR_CASES, ids=lambda c: c.id)
def test_invalid_params(case: Case, generate: bool) -> None:
    """RFC-0004 §3: invalid_params.unknown/.missing/.type/.enum/.range with a dotted data.param."""
    with pytest.raises(VenomError) as info:
        compile_params(case.fields, generate=generate)(case.value)
    assert info.value.code == f"invalid_params.{case.code}"
    assert info.value.data == {"param": case.param}
    assert info.value.exit_code == 2
    assert "\n" not in info.value.message


def test_case_table_is_large_enough() -> None:
    assert len(OK_CASES) + len(ERR_CASES) >= 40


def test_missing_message_matches_rfc_wording() -> None:
    """RFC-0002 §1 / RFC-0004 §1: the exact error object for echo without text."""
    with pytest.raises(VenomError) as info:
        compile_params(ECHO)({})
    assert info.value.to_object() == {
        "code": "invalid_params.missing",
        "message": "missing required param 'text'",
        "data": {"param": "text"},
    }


@pytest.mark.parametrize(
    ("fields", "value", "message"),
    [
        (ECHO, {"text": "a", "x": 1}, "unknown param 'x'"),
        (ECHO, {"text": 1}, "param 'text': expected string, got integer"),
        (
            ECHO,
            {"text": "a", "style": "loud"},
            "param 'style': must be one of 'plain', 'upper', got 'loud'",
        ),
        (COUNT, {"count": 0}, "param 'count': must be >= 1, got 0"),
        (COUNT, {"count": 11}, "param 'count': must be <= 10, got 11"),
        (ROWS, {"items": [{}]}, "missing required param 'items.0.name'"),
        (ECHO, [], "params: expected object, got array"),
        (INT, {"n": True}, "param 'n': expected integer, got boolean"),
    ],
)
def test_messages(fields: list[dict[str, Any]], value: Any, message: str) -> None:
    with pytest.raises(VenomError) as info:
        compile_params(fields)(value)
    assert info.value.message == message


def test_messages_stay_one_bounded_line_for_hostile_member_names() -> None:
    """RFC-0002 §7.1: message is one line; data keeps the exact path."""
    validate = compile_params(ECHO)
    with pytest.raises(VenomError) as info:
        validate({"text": "a", "evil\nname": 1})
    assert info.value.message == "unknown param 'evil\\nname'"
    assert info.value.data == {"param": "evil\nname"}
    with pytest.raises(VenomError) as info:
        validate({"text": "a", "k" * 10_000: 1})
    assert len(info.value.message) < 200
    assert info.value.data == {"param": "k" * 10_000}
