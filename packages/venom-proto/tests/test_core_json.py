"""Strict JSON: the orjson codec and its stdlib twin reject the same inputs (RFC-0002 4.1)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from venom_proto._core._json import MAX_DEPTH, dumps, dumps_line, loads, std_dumps, std_loads

LOADERS = pytest.mark.parametrize("load", [loads, std_loads], ids=["orjson", "stdlib"])

REJECTED = [
    b"NaN",
    b"[NaN]",
    b"Infinity",
    b"[-Infinity]",
    b"1e400",
    b"-1e400",
    b'"\\ud800"',
    b'"\\udc00"',
    b'"\\udc00\\ud800"',
    b'"a\\ud83d"',
    b'"\xff"',
    b'"\xed\xa0\x80"',  # a surrogate encoded as UTF-8
    b"\xef\xbb\xbf{}",  # BOM
    b"[1,]",
    b"{'a':1}",
    b"",
    b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1),
    b'{"a":' * (MAX_DEPTH + 1) + b"1" + b"}" * (MAX_DEPTH + 1),
    b"1" * 5000,
]


@LOADERS
@pytest.mark.parametrize("data", REJECTED, ids=lambda d: repr(d[:16]))
def test_rejects_with_value_error(load: Callable[[bytes], Any], data: bytes) -> None:
    """RFC-0002 §4.1: messages are strict RFC 8259 JSON in UTF-8 without a BOM."""
    with pytest.raises(ValueError):  # noqa: PT011 - the contract is "ValueError", any message
        load(data)


@LOADERS
def test_accepts_nesting_up_to_the_limit(load: Callable[[bytes], Any]) -> None:
    data = b"[" * MAX_DEPTH + b"]" * MAX_DEPTH
    value = load(data)
    depth = 0
    while value:
        value = value[0]
        depth += 1
    assert depth == MAX_DEPTH - 1


@LOADERS
@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b'"\\ud83d\\ude00"', "\U0001f600"),
        (b'{"a":1,"a":2}', {"a": 2}),
        (b" \t\r\n{}\n", {}),
        (b"9007199254740993", 9007199254740993),
        (b"18446744073709551615", 2**64 - 1),
        (b"18446744073709551616", float(2**64)),
        (b"-9223372036854775809", float(-(2**63) - 1)),
        (b'"\\u00e9\xc3\xa9"', "éé"),
    ],
)
def test_accepted_values(load: Callable[[bytes], Any], data: bytes, expected: Any) -> None:
    assert load(data) == expected


def test_dumps_is_compact_utf8() -> None:
    value = {"id": 1, "ok": {"text": "hé\n"}}
    assert dumps(value) == b'{"id":1,"ok":{"text":"h\xc3\xa9\\n"}}'
    assert std_dumps(value) == dumps(value)
    assert dumps_line(value) == dumps(value) + b"\n"


def test_std_dumps_refuses_nan() -> None:
    with pytest.raises(ValueError, match="JSON compliant"):
        std_dumps(math.nan)


JSON_ALPHABET = st.sampled_from(
    [b"{", b"}", b"[", b"]", b",", b":", b'"', b"\\", b"u", b"d8", b"00", b"1", b"-", b"e",
     b".", b"0", b" ", b"\n", b"a", b"true", b"null", b"NaN", b"Infinity", b"\xff", b"\xc3\xa9"]
)  # fmt: skip


def _outcome(load: Callable[[bytes], Any], data: bytes) -> tuple[str, Any]:
    try:
        return ("ok", load(data))
    except ValueError:
        return ("error", None)


@settings(max_examples=400, deadline=None)
@given(st.lists(JSON_ALPHABET, max_size=24).map(b"".join))
def test_twins_agree_on_json_like_noise(data: bytes) -> None:
    """Both codecs accept exactly the same inputs and decode them to equal values."""
    assert _outcome(loads, data) == _outcome(std_loads, data)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text()
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(JSON_VALUES)
def test_twins_round_trip_the_same_values(value: Any) -> None:
    try:
        encoded = dumps(value)
    except TypeError:  # lone surrogates in generated text: orjson refuses, as it should
        return
    assert std_loads(encoded) == loads(encoded) == value
    assert loads(std_dumps(value)) == value
