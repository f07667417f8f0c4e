"""Runtime validators beyond the case table: results, items, no mutation, fresh defaults,
compiled verbs, malformed descriptors, the cached model and import lightness."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from typing import Any

import pytest

from venom_proto import VenomError
from venom_schema.runtime import (
    CompiledVerb,
    DescriptorError,
    compile_descriptor,
    compile_params,
    compile_verb,
)


def field(
    name: str, type_: dict[str, Any], *, required: bool = False, **extra: Any
) -> dict[str, Any]:
    return {"name": name, "summary": f"the {name}", "type": type_, "required": required, **extra}


TEXT_OBJ = {"kind": "object", "fields": [field("text", {"kind": "string"}, required=True)]}
#: RFC-0004 §1's echo verb, normalized.
ECHO_VERB: dict[str, Any] = {
    "name": "echo",
    "summary": "Return the supplied text",
    "params": [
        field("text", {"kind": "string"}, required=True),
        field("style", {"kind": "string", "choices": ["plain", "upper"]}, default="plain"),
    ],
    "result": TEXT_OBJ,
    "errors": [],
    "grant": "read",
    "streams": False,
    "exit": {"kind": "standard"},
    "examples": [],
}
EVENTS_VERB: dict[str, Any] = {
    **ECHO_VERB,
    "name": "events",
    "params": [],
    "streams": True,
    "item": {
        "kind": "object",
        "fields": [
            field("seq", {"kind": "integer", "min": 0}, required=True),
            field("note", {"kind": "string", "nullable": True}, required=True),
        ],
    },
    "result": {"kind": "null"},
}


def test_result_failure_is_internal_result() -> None:
    """RFC-0004 §3: an invalid handler result is internal.result, naming the path."""
    validate = compile_descriptor(TEXT_OBJ, kind="result")
    with pytest.raises(VenomError) as info:
        validate({"text": 1})
    assert info.value.code == "internal.result"
    assert info.value.exit_code == 11
    assert info.value.message == "invalid result at 'text': expected string, got integer"
    assert info.value.data == {"path": "text", "reason": "type"}


@pytest.mark.parametrize(
    ("value", "message", "path"),
    [
        ({}, "invalid result at 'text': missing required field", "text"),
        ({"text": "a", "more": 1}, "invalid result at 'more': unknown field", "more"),
        ("text", "invalid result: expected object, got string", ""),
        (None, "invalid result: expected object, got null", ""),
    ],
)
def test_result_failures_never_succeed(value: Any, message: str, path: str) -> None:
    """RFC-0004 §3: never success with invalid data."""
    with pytest.raises(VenomError) as info:
        compile_descriptor(TEXT_OBJ, kind="result")(value)
    assert (info.value.code, info.value.message, info.value.data["path"]) == (  # type: ignore[index]
        "internal.result",
        message,
        path,
    )


def test_nullable_descriptors_accept_null_at_any_depth() -> None:
    """RFC-0004 §3: nullable accepts null as well as the kind's values."""
    desc = {"kind": "array", "items": {"kind": "integer", "nullable": True}, "nullable": True}
    validate = compile_descriptor(desc, kind="result")
    assert validate(None) is None
    assert validate([1, None, 2.0]) == [1, None, 2]
    with pytest.raises(VenomError) as info:
        validate([1, "x"])
    assert info.value.message == "invalid result at '1': expected integer or null, got string"


def test_compiled_verb_echo() -> None:
    verb = compile_verb(ECHO_VERB)
    assert isinstance(verb, CompiledVerb)
    assert (verb.name, verb.grant, verb.streams) == ("echo", "read", False)
    with pytest.raises(VenomError, match="missing required param 'text'"):
        verb.params(None)  # absent params mean {} (RFC-0002 §4.2)
    assert verb.params({"text": "hi"}) == {"text": "hi", "style": "plain"}
    assert verb.result({"text": "hi"}) == {"text": "hi"}
    with pytest.raises(VenomError) as info:
        verb.item({"text": "hi"})
    assert info.value.code == "internal.result"


def test_compiled_verb_items() -> None:
    """RFC-0004 §3: invalid stream items are internal.result."""
    verb = compile_verb(EVENTS_VERB)
    assert verb.item({"seq": 1.0, "note": None}) == {"seq": 1, "note": None}
    assert verb.result(None) is None
    with pytest.raises(VenomError) as info:
        verb.item({"seq": -1, "note": "x"})
    assert info.value.code == "internal.result"
    assert info.value.message == "invalid item at 'seq': must be >= 0, got -1"


def test_input_is_never_mutated_and_output_is_new() -> None:
    """RFC-0004 §2: defaults are inserted into a new object, never into the caller's."""
    fields = [
        field("opts", {"kind": "object", "fields": [field("n", {"kind": "integer"}, default=1)]}),
        field(
            "rows",
            {
                "kind": "array",
                "items": {
                    "kind": "object",
                    "fields": [field("k", {"kind": "boolean"}, default=True)],
                },
            },
        ),
    ]
    value = {"opts": {}, "rows": [{}, {"k": False}]}
    snapshot = copy.deepcopy(value)
    result = compile_params(fields)(value)
    assert value == snapshot
    assert result == {"opts": {"n": 1}, "rows": [{"k": True}, {"k": False}]}
    assert result is not value
    assert result["opts"] is not value["opts"]
    assert result["rows"] is not value["rows"]


def test_mutable_defaults_are_fresh_per_call() -> None:
    nested = {
        "kind": "object",
        "fields": [field("tags", {"kind": "array", "items": {"kind": "string"}}, default=[])],
    }
    validate = compile_params(
        [
            field("tags", {"kind": "array", "items": {"kind": "string"}}, default=["a"]),
            field("o", nested, default={}),
        ]
    )
    first = validate({})
    first["tags"].append("mutated")
    first["o"]["tags"].append("mutated")
    assert validate({}) == {"tags": ["a"], "o": {"tags": []}}


@pytest.mark.parametrize(
    ("desc", "problem"),
    [
        ({"kind": "text"}, "unknown kind 'text'"),
        ("string", "type descriptor must be an object"),
        ({"kind": "array"}, "type descriptor must be an object"),
        ({"kind": "object"}, "fields must be a list"),
        ({"kind": "integer", "min": 1.5}, "min of an integer must be an integer"),
        ({"kind": "number", "max": float("inf")}, "max must be finite"),
        ({"kind": "string", "choices": "ab"}, "choices must be a list of strings"),
        (
            {
                "kind": "object",
                "fields": [field("a", {"kind": "null"}), field("a", {"kind": "null"})],
            },
            "duplicate field 'a'",
        ),
        (
            {"kind": "object", "fields": [field("n", {"kind": "integer", "max": 3}, default=5)]},
            "invalid default: must be <= 3, got 5",
        ),
    ],
)
def test_malformed_descriptors_raise_descriptor_error(desc: Any, problem: str) -> None:
    with pytest.raises(DescriptorError, match=problem.replace("(", r"\(")):
        compile_descriptor(desc)


def test_streaming_verb_without_item_is_rejected() -> None:
    broken = {key: value for key, value in EVENTS_VERB.items() if key != "item"}
    with pytest.raises(DescriptorError, match="item"):
        compile_verb(broken)


def test_runtime_import_is_light() -> None:
    """The CLI path imports venom_schema.runtime: no ZON reader, no pydantic, no event loop."""
    code = (
        "import sys, json, venom_schema.runtime\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'pydantic', 'pydantic_core', 'anyio', 'asyncio', 'orjson'} "
        "or m.startswith('venom_schema.zon') or m.startswith('venom_schema.manifest'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=30, check=True
    )
    assert json.loads(out.stdout) == []
