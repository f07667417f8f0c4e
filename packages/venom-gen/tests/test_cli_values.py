"""Option value spellings (RFC-0004 §4) as properties of `convert_value`."""

from __future__ import annotations

import json
import math
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from venom_gen.cli._argv import MAX_SAFE_INTEGER, convert_value
from venom_proto import VenomError
from venom_schema.model import Descriptor

INTEGER: Descriptor = {"kind": "integer"}
NUMBER: Descriptor = {"kind": "number"}
STRING: Descriptor = {"kind": "string"}
BOOLEAN: Descriptor = {"kind": "boolean"}
ARRAY: Descriptor = {"kind": "array", "items": {"kind": "integer"}}
KINDS = [
    INTEGER,
    NUMBER,
    STRING,
    BOOLEAN,
    ARRAY,
    {"kind": "null"},
    {"kind": "object", "fields": []},
]

valid_text = st.text(st.characters(exclude_categories=["Cs"]))
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-MAX_SAFE_INTEGER, MAX_SAFE_INTEGER)
    | st.floats(allow_nan=False, allow_infinity=False)
    | valid_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(valid_text, inner, max_size=4),
    max_leaves=12,
)


def _convert(desc: Descriptor, text: str) -> Any:
    return convert_value(desc, text, flag="--x", param="x")


@settings(deadline=None)  # shared CI cores: timing is not the property
@given(st.integers(-MAX_SAFE_INTEGER, MAX_SAFE_INTEGER))
def test_cli_values_integers_round_trip(n: int) -> None:
    """RFC-0004 §4: integers use signed decimal digits."""
    assert _convert(INTEGER, str(n)) == n


@settings(deadline=None)  # shared CI cores: timing is not the property
@given(st.integers(min_value=MAX_SAFE_INTEGER + 1) | st.integers(max_value=-MAX_SAFE_INTEGER - 1))
def test_cli_values_integers_beyond_safe_range(n: int) -> None:
    """RFC-0004 §4 / RFC-0002 §4.1: out-of-range integers fail with invalid_params.range."""
    with pytest.raises(VenomError) as info:
        _convert(INTEGER, str(n))
    assert (info.value.code, info.value.data) == ("invalid_params.range", {"param": "x"})


@settings(deadline=None)  # shared CI cores: timing is not the property
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_cli_values_numbers_round_trip(f: float) -> None:
    """RFC-0004 §4: numbers use JSON number syntax (Python's JSON spelling of any double)."""
    value = _convert(NUMBER, json.dumps(f))
    assert value == f
    assert math.copysign(1.0, value) == math.copysign(1.0, f)


@settings(deadline=None)  # shared CI cores: timing is not the property
@given(valid_text)
def test_cli_values_strings_verbatim(s: str) -> None:
    """RFC-0004 §4: a string value is taken verbatim, including the text null."""
    assert _convert(STRING, s) == s


@settings(deadline=None)  # shared CI cores: timing is not the property
@given(json_values)
def test_cli_values_json_documents_round_trip(value: Any) -> None:
    """RFC-0004 §4: arrays and objects take one JSON-encoded value."""
    assert _convert(ARRAY, json.dumps(value)) == value


@settings(deadline=None)  # shared CI cores: timing is not the property
@given(st.sampled_from(KINDS), st.text())
def test_cli_values_fail_only_with_venom_errors(desc: Descriptor, text: str) -> None:
    """Any text either converts or fails with invalid_params.type/.range, never a traceback."""
    failure: VenomError | None = None
    try:
        _convert(desc, text)
    except VenomError as exc:
        failure = exc
    if failure is not None:
        assert failure.code in ("invalid_params.type", "invalid_params.range")
        assert failure.data == {"param": "x"}


@pytest.mark.parametrize("text", ["+5", " 5", "5 ", "0x10", "1_000", "٣", "5.0", "1e3", "--5"])
def test_cli_values_integer_spellings_refused(text: str) -> None:
    """Only ASCII digits with an optional leading minus are integers."""
    with pytest.raises(VenomError, match="expected an integer"):
        _convert(INTEGER, text)


@pytest.mark.parametrize("text", ["+1", "1.", ".5", "01", "1e", "inf", "NaN", "-", "1,5", "١"])
def test_cli_values_number_spellings_refused(text: str) -> None:
    """Numbers follow JSON number syntax only."""
    with pytest.raises(VenomError, match="expected a JSON number"):
        _convert(NUMBER, text)


#: RFC 8259 §6 number syntax, as a regex: the oracle for the hand-written check in `_argv`.
JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?\Z")
number_like = st.text(st.sampled_from([*"0123456789", "-", "+", ".", "e", "E", "٣", " "]))


def _outcome(desc: Descriptor, text: str) -> tuple[str, Any]:
    try:
        return ("ok", _convert(desc, text))
    except VenomError as exc:
        return (exc.code, None)


@settings(max_examples=500, deadline=None)
@given(number_like)
def test_cli_values_numbers_accept_exactly_json_syntax(text: str) -> None:
    """RFC-0004 §4: a number option is refused unless it is JSON number syntax."""
    code, value = _outcome(NUMBER, text)
    if JSON_NUMBER.match(text) is None:
        assert code == "invalid_params.type"
    elif code == "ok":
        assert value == float(text)
    else:
        assert code == "invalid_params.range"


@settings(max_examples=300, deadline=None)
@given(number_like)
def test_cli_values_integers_accept_exactly_minus_and_digits(text: str) -> None:
    code, value = _outcome(INTEGER, text)
    if re.match(r"-?[0-9]+\Z", text) is None:
        assert code == "invalid_params.type"
    elif code == "ok":
        assert value == int(text)
    else:
        assert code == "invalid_params.range"
