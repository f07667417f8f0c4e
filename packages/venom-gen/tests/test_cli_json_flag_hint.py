"""A malformed JSON-valued option says what the flag takes, with an example (rfcs/0001 §8)."""

from __future__ import annotations

import pytest

from venom_gen.cli._argv import convert_value
from venom_proto import VenomError
from venom_schema.model import Descriptor

INTS: Descriptor = {"kind": "array", "items": {"kind": "integer"}}
WORDS: Descriptor = {"kind": "array", "items": {"kind": "string"}}
NESTED: Descriptor = {
    "kind": "object",
    "fields": [
        {"name": "name", "summary": "S", "type": {"kind": "string"}, "required": False},
        {"name": "level", "summary": "S", "type": {"kind": "integer"}, "required": False},
    ],
}


def _message(desc: Descriptor, text: str) -> str:
    with pytest.raises(VenomError) as caught:
        convert_value(desc, text, flag="--x", param="x")
    assert caught.value.code == "invalid_params.type"
    assert caught.value.data == {"param": "x"}
    return caught.value.message


@pytest.mark.parametrize(
    ("desc", "text", "example"),
    [
        (INTS, "1,2", "'[1,2]'"),
        (INTS, "1 2", "'[1,2]'"),
        (INTS, "one", "'[1,1]'"),
        (WORDS, "a,b", """'["a","b"]'"""),
        (WORDS, "it's", """'["it'\\''s"]'"""),
        (NESTED, "name=x", """'{"name":...,"level":...}'"""),
    ],
)
def test_the_example_fits_the_value_given(desc: Descriptor, text: str, example: str) -> None:
    message = _message(desc, text)
    what = "an object" if desc["kind"] == "object" else "an array"
    assert message.startswith(f"--x: takes one JSON value, {what} (e.g. --x {example}); got ")
    assert "Extra data" not in message
    assert "Expecting" not in message


def test_a_valid_document_still_converts() -> None:
    assert convert_value(INTS, "[1, 2]", flag="--x", param="x") == [1, 2]
