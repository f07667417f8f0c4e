"""Canonical JSON and digest test vectors, computed by hand (RFC-0004 §7)."""

from __future__ import annotations

import json
import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from venom_schema.canonical import canonical_json, digest, format_number


def test_string_escapes_only_quote_backslash_and_c0() -> None:
    """RFC-0004 §7: strings escape only quotes, backslashes and controls as lowercase \\u00xx."""
    text = 'a"b\\c\n\t\x00\x1f\x7f/é'
    expected = b'"a\\"b\\\\c\\u000a\\u0009\\u0000\\u001f\x7f/\xc3\xa9"'
    assert canonical_json(text) == expected


def test_non_bmp_text_is_raw_utf8() -> None:
    """RFC-0004 §7: no \\u escapes outside C0; astral characters are plain UTF-8."""
    assert canonical_json("x\U0001f600") == b'"x\xf0\x9f\x98\x80"'


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0, "0"),
        (-0.0, "0"),
        (0.0, "0"),
        (1.0, "1"),
        (-7, "-7"),
        (100.0, "100"),
        (9007199254740991, "9007199254740991"),
        (9007199254740991.0, "9007199254740991"),
        (-9007199254740991, "-9007199254740991"),
        (1e20, "100000000000000000000"),
        (1e21, "1e21"),
        (1.5e300, "1.5e300"),
        (1e-6, "0.000001"),
        (1e-7, "1e-7"),
        (1.25e-7, "1.25e-7"),
        (5e-324, "5e-324"),
        (0.1, "0.1"),
        (-2.5, "-2.5"),
        (123.456, "123.456"),
        (1.7976931348623157e308, "1.7976931348623157e308"),
    ],
)
def test_number_vectors(value: float, text: str) -> None:
    """RFC-0004 §7: decimal integers, -0 -> 0, shortest round-trip, lowercase e, no + or 0s."""
    assert format_number(value) == text
    assert canonical_json(value) == text.encode()


def test_non_finite_rejected() -> None:
    for bad in (math.inf, -math.inf, math.nan):
        with pytest.raises(ValueError, match="non-finite"):
            canonical_json([bad])


def test_keys_sorted_by_utf8_bytes_not_utf16() -> None:
    """RFC-0004 §7: keys by UTF-8 byte order; U+FFFF precedes U+1F600 (UTF-16 would flip)."""
    value = {"\U0001f600": 1, "\uffff": 2, "\ue000": 3, "a": 4, "B": 5, "ab": 6, "": 7}
    expected = '{"":7,"B":5,"a":4,"ab":6,"\ue000":3,"\uffff":2,"\U0001f600":1}'.encode()
    assert canonical_json(value) == expected


def test_structure_has_no_whitespace_and_keeps_array_order() -> None:
    value = {"b": [3, 1, {"z": None, "y": True}], "a": False}
    assert canonical_json(value) == b'{"a":false,"b":[3,1,{"y":true,"z":null}]}'


def test_lone_surrogate_rejected() -> None:
    with pytest.raises(ValueError, match="surrogate"):
        canonical_json("\ud800")
    with pytest.raises(ValueError, match="surrogate"):
        canonical_json({"\udc00": 1, "a": 2})


def test_unsupported_types_rejected() -> None:
    with pytest.raises(ValueError, match="unsupported"):
        canonical_json({"a": object()})
    with pytest.raises(ValueError, match="keys must be strings"):
        canonical_json({1: 2})


def test_digest_format_and_known_value() -> None:
    """RFC-0004 §7: sha256: followed by 64 lowercase hex digits; sha256(b"{}") is well known."""
    assert digest({}) == "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", digest({"x": [1.5, "é"]}))


def test_echo_verb_canonical_text() -> None:
    """RFC-0004 §7: the §1 echo verb's normalized form, serialized by hand."""
    verb = {
        "name": "echo",
        "summary": "Return the supplied text",
        "params": [
            {
                "name": "text",
                "summary": "Text to return",
                "type": {"kind": "string"},
                "required": True,
            },
            {
                "name": "style",
                "summary": "Output casing",
                "type": {"kind": "string", "choices": ["plain", "upper"]},
                "required": False,
                "default": "plain",
            },
        ],
        "result": {
            "kind": "object",
            "fields": [
                {
                    "name": "text",
                    "summary": "Returned text",
                    "type": {"kind": "string"},
                    "required": True,
                }
            ],
        },
        "errors": [],
        "grant": "read",
        "streams": False,
        "exit": {"kind": "standard"},
        "examples": [
            {"params": {"text": "hi"}, "result": {"text": "hi"}},
            {"params": {"text": "hi", "style": "upper"}, "result": {"text": "HI"}},
        ],
    }
    expected = (
        '{"errors":[],"examples":[{"params":{"text":"hi"},"result":{"text":"hi"}},'
        '{"params":{"style":"upper","text":"hi"},"result":{"text":"HI"}}],'
        '"exit":{"kind":"standard"},"grant":"read","name":"echo",'
        '"params":[{"name":"text","required":true,"summary":"Text to return",'
        '"type":{"kind":"string"}},{"default":"plain","name":"style","required":false,'
        '"summary":"Output casing","type":{"choices":["plain","upper"],"kind":"string"}}],'
        '"result":{"fields":[{"name":"text","required":true,"summary":"Returned text",'
        '"type":{"kind":"string"}}],"kind":"object"},"streams":false,'
        '"summary":"Return the supplied text"}'
    )
    assert canonical_json(verb) == expected.encode()


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_float_text_round_trips(value: float) -> None:
    text = format_number(value)
    assert float(text) == value
    assert "+" not in text
    assert "E" not in text
    assert not re.search(r"e-?0", text)


_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53) + 1, 2**53 - 1)
    | st.text()
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4)
    ),
    max_leaves=20,
)


@given(_json)
def test_canonical_json_parses_back(value: object) -> None:
    try:
        text = canonical_json(value)
    except ValueError:
        return  # lone surrogates generated by st.text()
    # Integral floats print as integers (ECMAScript digits, e.g. 33980820357135550), so
    # read large integers back as floats, as a JSON consumer of doubles would.
    assert json.loads(text, parse_int=_parse_int) == value


def _parse_int(text: str) -> int | float:
    number = int(text)
    return number if abs(number) <= 2**53 else float(text)
