"""Valid ZON documents and the exact Python values they read as (RFC-0004 §2)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from venom_schema.zon import ZON_EMPTY, ZonChar, ZonEmpty, ZonEnum, parse_zon


def _identical(a: Any, b: Any) -> bool:
    """Equality that tells 1 from 1.0 from True, -0.0 from 0.0, and keeps dict order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    if isinstance(a, list):
        return len(a) == len(b) and all(map(_identical, a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_identical(a[k], b[k]) for k in a)
    return bool(a == b)


VALID: list[tuple[str, Any]] = [
    # integers: bases, separators, sign, arbitrary size
    ("42", 42),
    ("0", 0),
    ("-17", -17),
    ("- // a comment between\n 5", -5),
    ("0xDEAD_beef", 0xDEADBEEF),
    ("0o755", 0o755),
    ("0b1010_1010", 0b10101010),
    ("1_000_000", 1_000_000),
    ("340282366920938463463374607431768211456", 2**128),
    ("-0x1_0000_0000_0000_0000", -(2**64)),
    ("1" * 5000, int("1" * 1000) * 10**4000 + int("1" * 4000)),
    # floats: exponents, hex floats, specials, overflow to inf like a 64-bit parse
    ("1.5", 1.5),
    ("1e10", 1e10),
    ("1E-3", 1e-3),
    ("2.5e+7", 2.5e7),
    ("1.e5", 1e5),
    ("1_000.000_1", 1000.0001),
    ("0x1.8p3", 12.0),
    ("0x.8", 0.5),
    ("0xA.Bp+0", 10.6875),
    ("0x1p-1074", 5e-324),
    ("-0.0", -0.0),
    ("-0e0", -0.0),
    ("inf", math.inf),
    ("-inf", -math.inf),
    ("- inf", -math.inf),
    ("nan", math.nan),
    ("1e400", math.inf),
    ("0x1p99999", math.inf),
    ("1e-99999999999", 0.0),
    ("1" * 5000 + ".5e-4999", 1.1111111111111112),
    ("0." + "0" * 5000 + "1e5000", 0.1),
    # like Zig: rounded to binary128 first, then to binary64 (differs only next to a tie)
    ("0x1.000000000000080000000000000000001p0", 1.0),
    ("9007199254740993.00000000000000000000000000000000001", 9007199254740992.0),
    # characters: the value is the code point
    ("'a'", ZonChar(97)),
    ("'\\n'", ZonChar(10)),
    ("'\\''", ZonChar(39)),
    ("'\"'", ZonChar(34)),
    ("'\\x41'", ZonChar(0x41)),
    ("'\\xff'", ZonChar(0xFF)),
    ("'\\u{1F600}'", ZonChar(0x1F600)),
    ("'\\u{00000041}'", ZonChar(0x41)),
    ("'é'", ZonChar(0xE9)),
    ("'😀'", ZonChar(0x1F600)),
    ("'\\u{D800}'", ZonChar(0xD800)),  # Zig allows any value up to U+10FFFF in a char
    # strings
    ('"hello"', "hello"),
    ('""', ""),
    ('"\\t\\n\\r\\\\\\"\\\'"', "\t\n\r\\\"'"),
    ('"\\x41\\u{e9}\\u{1F600}"', "Aé😀"),
    ('"caf\\xc3\\xa9"', "café"),
    ('"a\\x00b"', "a\x00b"),
    ('"日本 \u2028 \u0085"', "日本 \u2028 \u0085"),
    ('"// not a comment"', "// not a comment"),
    # multiline strings: lines joined with \n, CRLF and comment lines between allowed
    ("\\\\one line\n", "one line"),
    ("\\\\a\n  \\\\b \\n raw\n", "a\nb \\n raw"),
    ("\\\\a\r\n\\\\b\r\n", "a\nb"),
    ("\\\\a\n// comment\n\n\\\\b", "a\nb"),
    ("\\\\\n\\\\", "\n"),
    (".{ .t = \\\\x\n, .u = 1 }", {"t": "x", "u": 1}),
    # identifiers and enum literals
    ("true", True),
    ("false", False),
    ("null", None),
    (".read", ZonEnum("read")),
    ('.@"with spaces"', ZonEnum("with spaces")),
    ('.@"enum"', ZonEnum("enum")),
    ('.@"read"', ZonEnum("read")),
    (". // legal\n name", ZonEnum("name")),
    (".true", ZonEnum("true")),
    ("._", ZonEnum("_")),
    # containers
    (".{}", ZON_EMPTY),
    (". {\n // nothing\n}", ZON_EMPTY),
    ('.{ .a = 1, .b = "two" }', {"a": 1, "b": "two"}),
    (".{ .b = 1, .a = 2, }", {"b": 1, "a": 2}),
    ('.{ .@"a b" = 1, .@"if" = 2, .@"\\x41" = 3 }', {"a b": 1, "if": 2, "A": 3}),
    (".{ 1, \"two\", .three, '4', 5.0 }", [1, "two", ZonEnum("three"), ZonChar(52), 5.0]),
    (".{ 1, }", [1]),
    (".{ .a, .b }", [ZonEnum("a"), ZonEnum("b")]),
    (".{ .a = .{ .b = .{ 1, .{} } } }", {"a": {"b": [1, ZON_EMPTY]}}),
    # layout: comments, whitespace, BOM
    ("// c\n.{ // c\n 1, //// four slashes\n} // end", [1]),
    ("\t\r\n .{\t1\r,\n2 }\r\n", [1, 2]),
    ("\ufeff.{ .a = 1 }", {"a": 1}),
    ("// ünï 😀\n1", 1),
]


@pytest.mark.parametrize(("source", "expected"), VALID, ids=[src[:30] for src, _ in VALID])
def test_valid_document_reads_as_exact_value(source: str, expected: Any) -> None:
    """RFC-0004 §2: the manifest is ZON data; each literal form keeps its exact value."""
    assert _identical(parse_zon(source), expected)
    assert _identical(parse_zon(source.encode()), expected)


def test_enum_literal_is_not_a_string() -> None:
    value = parse_zon('.{ .read, "read" }')
    assert value == [ZonEnum("read"), "read"]
    assert value[0] != value[1]


def test_empty_is_one_singleton() -> None:
    assert parse_zon(".{}") is ZON_EMPTY
    assert ZonEmpty() is ZON_EMPTY
    assert repr(ZON_EMPTY) == "ZON_EMPTY"


def test_struct_keeps_field_order() -> None:
    value = parse_zon(".{ .z = 1, .a = 2, .m = 3 }")
    assert isinstance(value, dict)
    assert list(value) == ["z", "a", "m"]


def test_rfc_worked_example_reads() -> None:
    """RFC-0004 §1: the echo manifest of the worked example parses to the expected shape."""
    from pathlib import Path

    source = Path(__file__).parent / "oracle" / "corpus" / "ok_manifest_echo.zon"
    manifest = parse_zon(source.read_bytes(), "verbs.zon")
    assert isinstance(manifest, dict)
    assert manifest["format"] == 1
    assert manifest["tool"] == "venom-echo"
    verbs = manifest["verbs"]
    assert isinstance(verbs, list)
    assert isinstance(verbs[0], dict)
    assert verbs[0]["grant"] == ZonEnum("read")
    assert verbs[0]["errors"] is ZON_EMPTY
