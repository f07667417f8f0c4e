"""zon_to_json: the tagged JSON rendering printed by `venom-gen zon FILE`."""

from __future__ import annotations

import importlib
import json
from typing import Any

import pytest

import venom_schema.zon as zon
from venom_schema.zon import ZON_EMPTY, ZonChar, ZonEnum, ZonValue, parse_zon, zon_to_json

RENDERED: list[tuple[str, Any]] = [
    ("true", True),
    ("null", None),
    ('"read"', "read"),
    (".read", {"enum": "read"}),
    ("'a'", {"char": 97}),
    (".{}", {"empty": True}),
    ("9007199254740991", 9007199254740991),
    ("-9007199254740991", -9007199254740991),
    ("9007199254740992", {"int": "9007199254740992"}),
    ("-0x10000000000000000", {"int": "-18446744073709551616"}),
    ("1.5", 1.5),
    ("inf", {"float": "inf"}),
    ("-inf", {"float": "-inf"}),
    ("nan", {"float": "nan"}),
    (".{ 1, .a }", [1, {"enum": "a"}]),
    (".{ .a = 1, .b = .{} }", {"a": 1, "b": {"empty": True}}),
    # a struct whose only field is named like a tag is wrapped, so it cannot pass for a tag
    ('.{ .@"enum" = "read" }', {"struct": {"enum": "read"}}),
    ('.{ .@"struct" = 1 }', {"struct": {"struct": 1}}),
    ('.{ .@"enum" = "read", .b = 1 }', {"enum": "read", "b": 1}),
]


@pytest.mark.parametrize(("source", "expected"), RENDERED, ids=[s for s, _ in RENDERED])
def test_rendering(source: str, expected: Any) -> None:
    rendered = zon_to_json(parse_zon(source))
    assert rendered == expected
    assert json.loads(json.dumps(rendered, allow_nan=False)) == expected


def test_tags_keep_values_distinct_from_strings() -> None:
    values: list[ZonValue] = [ZonEnum("x"), "x", ZonChar(120), 120, ZON_EMPTY, [], {}]
    rendered = [json.dumps(zon_to_json(v), sort_keys=True) for v in values]
    assert len(set(rendered)) == len(values)


def test_float_is_not_an_int() -> None:
    assert json.dumps(zon_to_json(parse_zon("1.0"))) == "1.0"
    assert json.dumps(zon_to_json(parse_zon("1"))) == "1"


def test_huge_int_beyond_python_str_limit() -> None:
    digits = "9" * 9000
    assert zon_to_json(parse_zon(digits)) == {"int": digits}
    assert zon_to_json(parse_zon("-" + digits)) == {"int": "-" + digits}
    assert zon_to_json(-(10**2000)) == {"int": "-1" + "0" * 2000}


def test_public_names() -> None:
    """Every name in __all__ exists, and __all__ is a tuple (house style)."""
    assert isinstance(zon.__all__, tuple)
    module = importlib.import_module("venom_schema.zon")
    for name in zon.__all__:
        assert hasattr(module, name), name
    assert {"parse_zon", "ZonError", "zon_to_json", "ZonEnum", "ZonChar", "ZON_EMPTY"} <= set(
        zon.__all__
    )
