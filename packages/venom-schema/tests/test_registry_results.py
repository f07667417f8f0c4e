"""A sync handler's object result: returned as it is only when it is its own checked value.

The generated wrapper skips the copy of a result whose members are all required scalars,
present in declaration order; any other accepted result is the copy the closures build,
members in declaration order, and a result the inline code doubts goes to the closures.
"""

from __future__ import annotations

import os
from typing import Any, cast

import orjson
import pytest

from venom_proto import Call, ConnectionInfo, VenomError
from venom_schema.grants import ALL_GRANTS
from venom_schema.model import Model
from venom_schema.registry import build_verbs


def field(name: str, type_: dict[str, Any], *, required: bool = False, **extra: Any) -> Any:
    return {"name": name, "summary": name, "type": type_, "required": required, **extra}


def model_with(result_type: dict[str, Any]) -> Model:
    get = {
        "name": "get",
        "summary": "get",
        "params": [],
        "result": result_type,
        "errors": [],
        "grant": "read",
        "streams": False,
        "exit": {"kind": "standard"},
        "examples": [],
    }
    return cast("Model", {"format": 1, "tool": "t", "summary": "t", "verbs": [get]})


PAIR = {
    "kind": "object",
    "fields": [
        field("a", {"kind": "string"}, required=True),
        field("b", {"kind": "integer"}, required=True),
    ],
}
WITH_OPTIONAL = {
    "kind": "object",
    "fields": [
        field("a", {"kind": "string"}, required=True),
        field("b", {"kind": "integer"}, default=7),
    ],
}
NESTED = {
    "kind": "object",
    "fields": [field("inner", {"kind": "object", "fields": []}, required=True)],
}


def run(result_type: dict[str, Any], value: Any) -> Any:
    verbs = build_verbs(
        model_with(result_type), {"get": lambda c, p: value}, grants_for=lambda i: ALL_GRANTS
    )
    info = ConnectionInfo(id=1, uid=os.getuid(), gid=os.getgid(), pid=None)
    return verbs["get"].handler(Call(1, "get", info, cast("Any", None)), {})


def test_a_result_in_declaration_order_is_returned_as_it_is() -> None:
    value = {"a": "x", "b": 1}
    assert run(PAIR, value) is value


def test_a_result_out_of_order_is_copied_in_declaration_order() -> None:
    value = {"b": 1, "a": "x"}
    checked = run(PAIR, value)
    assert checked is not value
    assert orjson.dumps(checked) == b'{"a":"x","b":1}'
    assert value == {"b": 1, "a": "x"}, "the handler's own object is left alone"


def test_a_result_with_optional_or_nested_members_is_copied() -> None:
    value = {"a": "x"}
    assert run(WITH_OPTIONAL, value) == {"a": "x", "b": 7}
    assert value == {"a": "x"}
    nested: dict[str, Any] = {"inner": {}}
    checked = run(NESTED, nested)
    assert checked == nested
    assert checked is not nested


@pytest.mark.parametrize(
    "value",
    [{"a": "x"}, {"a": "x", "b": 1, "c": 2}, {"a": "x", "b": "1"}, {"a": "x", "b": True}],
)
def test_a_result_that_does_not_fit_is_internal_result(value: dict[str, Any]) -> None:
    with pytest.raises(VenomError) as info:
        run(PAIR, value)
    assert info.value.code == "internal.result"
