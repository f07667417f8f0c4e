"""Strict JSON: the orjson codec and its stdlib twin reject the same inputs (RFC-0002 4.1)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from venom_proto import stdjson as _stdjson
from venom_proto._core._json import MAX_DEPTH, dumps, dumps_line, loads, std_dumps, std_loads

#: The twin on the public ``json`` module, used where CPython's ``_json`` is missing or differs.
_FALLBACK = _stdjson._json_codec()


@contextmanager
def _on_fallback() -> Iterator[None]:
    saved = _stdjson._decode, _stdjson._encode
    _stdjson._decode, _stdjson._encode = _FALLBACK
    try:
        yield
    finally:
        _stdjson._decode, _stdjson._encode = saved


def fallback_loads(data: bytes) -> Any:
    with _on_fallback():
        return std_loads(data)


def fallback_dumps(value: Any) -> bytes:
    with _on_fallback():
        return std_dumps(value)


LOADERS = pytest.mark.parametrize(
    "load", [loads, std_loads, fallback_loads], ids=["orjson", "stdlib", "stdlib-json"]
)

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
    assert fallback_dumps(value) == dumps(value)
    assert dumps_line(value) == dumps(value) + b"\n"


@pytest.mark.parametrize("dump", [std_dumps, fallback_dumps], ids=["stdlib", "stdlib-json"])
def test_std_dumps_refuses_nan(dump: Callable[[Any], bytes]) -> None:
    with pytest.raises(ValueError, match="JSON compliant"):
        dump(math.nan)
    with pytest.raises(ValueError, match="JSON compliant"):
        dump([1, {"a": -math.inf}])


@pytest.mark.parametrize("dump", [std_dumps, fallback_dumps], ids=["stdlib", "stdlib-json"])
def test_std_dumps_refuses_what_json_refuses(dump: Callable[[Any], bytes]) -> None:
    with pytest.raises(TypeError, match="not JSON serializable"):
        dump({"a": {1, 2}})
    with pytest.raises(TypeError, match="keys must be"):
        dump({(1, 2): 3})
    with pytest.raises(UnicodeEncodeError):
        dump("\ud800")
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference"):
        dump(loop)
    # A failed call leaves no state behind: the same objects encode fine afterwards.
    shared = [1]
    with pytest.raises(ValueError, match="JSON compliant"):
        dump([shared, math.nan])
    assert dump([shared, shared]) == b"[[1],[1]]"


@pytest.mark.parametrize(
    "text",
    ["[1,]", '{"a" 1}', '"abc', '"\x01"', "1 2", " [1] x", "", "  ", "tru", '{"a":1,}', "[1"],
)
def test_syntax_errors_read_like_json_module_errors(text: str) -> None:
    """The ``_json`` twin reports json's own error type, message and position."""
    with pytest.raises(json.JSONDecodeError) as expected:
        json.loads(text)
    with pytest.raises(json.JSONDecodeError) as got:
        std_loads(text.encode())
    assert (got.value.msg, got.value.pos) == (expected.value.msg, expected.value.pos)


def test_errors_work_before_json_is_imported() -> None:
    """CPython 3.11's ``_json`` raises its errors only once json.decoder is loaded."""
    code = (
        "import sys\n"
        "from venom_proto.stdjson import std_loads\n"
        "assert 'json' not in sys.modules and 're' not in sys.modules, 'json loaded early'\n"
        "try:\n"
        "    std_loads(b'{\"a\" 1}')\n"
        "except ValueError as exc:\n"
        "    print(type(exc).__name__, exc)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=30
    )
    assert out.stdout == "JSONDecodeError Expecting ':' delimiter: line 1 column 6 (char 5)\n"


def _picks_json_module(monkeypatch: pytest.MonkeyPatch, fake_json: object) -> bool:
    monkeypatch.setitem(sys.modules, "_json", fake_json)
    decode, encode = _stdjson._codec()
    assert decode(' {"a": [1.5, "\\u00e9"]} ') == {"a": [1.5, "é"]}
    assert encode({"a": [1, None]}) == '{"a":[1,null]}'
    return isinstance(getattr(decode, "__self__", None), json.JSONDecoder)


def test_the_codec_runs_on_json_accelerator_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    import _json

    assert not _picks_json_module(monkeypatch, _json)


def test_falls_back_to_json_without_the_accelerator(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _picks_json_module(monkeypatch, None)  # None in sys.modules: ImportError


def test_falls_back_to_json_when_the_accelerator_differs(monkeypatch: pytest.MonkeyPatch) -> None:
    import _json

    def make_scanner(context: object, extra: object) -> None:  # a changed signature
        raise AssertionError("unreachable")

    changed = types.SimpleNamespace(**vars(_json))
    changed.make_scanner = make_scanner
    assert _picks_json_module(monkeypatch, changed)
    garbled = types.SimpleNamespace(**vars(_json))
    garbled.encode_basestring = lambda text: '"?"'  # runs, but does not round-trip
    assert _picks_json_module(monkeypatch, garbled)


JSON_ALPHABET = st.sampled_from(
    [b"{", b"}", b"[", b"]", b",", b":", b'"', b"\\", b"u", b"d8", b"00", b"1", b"-", b"e",
     b".", b"0", b" ", b"\n", b"a", b"true", b"null", b"NaN", b"Infinity", b"\xff", b"\xc3\xa9"]
)  # fmt: skip


def _outcome(load: Callable[[bytes], Any], data: bytes) -> tuple[str, Any]:
    try:
        return ("ok", load(data))
    except ValueError:
        return ("error", None)


def _message(load: Callable[[bytes], Any], data: bytes) -> str | None:
    try:
        load(data)
    except ValueError as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


@settings(max_examples=400, deadline=None)
@given(st.lists(JSON_ALPHABET, max_size=24).map(b"".join))
def test_twins_agree_on_json_like_noise(data: bytes) -> None:
    """Both codecs accept exactly the same inputs and decode them to equal values."""
    assert _outcome(loads, data) == _outcome(std_loads, data)
    # The _json twin and the json-module twin fail alike, down to the message.
    assert _message(std_loads, data) == _message(fallback_loads, data)


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
    assert std_dumps(value) == fallback_dumps(value)
