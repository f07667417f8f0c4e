"""`dump_zon`: what it writes, `parse_zon` reads back to the same value."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from venom_schema.zon import ZON_EMPTY, ZonChar, ZonEnum, ZonError, ZonValue, dump_zon, parse_zon

CORPUS = Path(__file__).parent / "oracle" / "corpus"
MANIFESTS = Path(__file__).parent / "manifests"

_names = st.text(min_size=1, max_size=12).filter(lambda s: "\0" not in s)
_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=20).filter(lambda s: "\0" not in s)
    | _names.map(ZonEnum)
    | st.integers(min_value=1, max_value=0x10FFFF)
    .filter(lambda c: not 0xD800 <= c <= 0xDFFF)
    .map(ZonChar)
)
_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, min_size=1, max_size=4)
        | st.dictionaries(_names, inner, min_size=1, max_size=4)
    ),
    max_leaves=20,
)


def _same(a: ZonValue, b: ZonValue) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a):
            return math.isnan(b)
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


@given(_values)
def test_round_trip(value: ZonValue) -> None:
    text = dump_zon(value)
    assert _same(parse_zon(text.encode(), "dumped.zon"), value), text


@pytest.mark.parametrize(
    "path",
    sorted([*CORPUS.glob("ok_*.zon"), *MANIFESTS.glob("*.zon")]),
    ids=lambda p: p.name,
)
def test_corpus_round_trips(path: Path) -> None:
    value = parse_zon(path.read_bytes(), path.name)
    assert _same(parse_zon(dump_zon(value).encode(), "again.zon"), value)


def test_layout_is_one_line_when_it_fits_else_a_member_per_line() -> None:
    value: ZonValue = {"kind": ZonEnum("string"), "choices": ["a", "b"]}
    assert dump_zon(value) == '.{ .kind = .string, .choices = .{ "a", "b" } }\n'
    assert dump_zon(value, width=30) == (
        '.{\n    .kind = .string,\n    .choices = .{ "a", "b" },\n}\n'
    )
    assert dump_zon([], header="one\ntwo") == "// one\n// two\n.{}\n"
    assert dump_zon(ZON_EMPTY) == ".{}\n"


def test_names_and_strings_are_quoted_where_zon_needs_it() -> None:
    value: ZonValue = {"if": ZonEnum("with space"), "null": 'tab\there "q" \\ \x01 é'}
    text = dump_zon(value)
    assert text == '.{ .@"if" = .@"with space", .@"null" = "tab\\there \\"q\\" \\\\ \\x01 é" }\n'
    assert parse_zon(text.encode(), "q.zon") == value


def test_special_floats_are_zon_literals_and_foreign_values_are_refused() -> None:
    assert dump_zon([math.inf, -math.inf, math.nan]) == ".{ inf, -inf, nan }\n"
    with pytest.raises(TypeError, match="set is not a ZON value"):
        dump_zon({"x": {1}})  # type: ignore[dict-item]
    assert issubclass(ZonError, Exception)
