"""NDJSON messages (RFC-0002 1, 4.2, 4.6): request parsing, ids, encoders, reply parsing."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from venom_proto import ProtocolViolation, VenomError
from venom_proto._core.errors import is_valid_id, is_verb_name
from venom_proto._core.messages import (
    Reply,
    Request,
    encode_error,
    encode_item,
    encode_ok,
    encode_request,
    parse_reply,
    parse_request,
)


def violation(line: bytes) -> ProtocolViolation:
    with pytest.raises(ProtocolViolation) as info:
        parse_request(line)
    return info.value


# -- RFC-0002 4.6, one test per row handled at the parse level --------------------------------


@pytest.mark.parametrize(
    "line", [b"{", b"hello", b'{"id":1,"verb":"echo"', b"[1,2]", b'"str"', b"42", b"null", b"\xff"]
)
def test_not_json_or_not_an_object_is_parse_error_with_id_null(line: bytes) -> None:
    """RFC-0002 §4.6: not valid JSON or not an object -> protocol.parse, id null, keep open."""
    err = violation(line)
    assert (err.code, err.id, err.close) == ("protocol.parse", None, False)


@pytest.mark.parametrize(
    "line",
    [
        b'{"verb":"echo"}',
        b'{"id":null,"verb":"echo"}',
        b'{"id":true,"verb":"echo"}',
        b'{"id":1.0,"verb":"echo"}',
        b'{"id":[1],"verb":"echo"}',
        b'{"id":{},"verb":"echo"}',
        b'{"id":9007199254740992,"verb":"echo"}',
        b'{"id":"' + b"x" * 65 + b'","verb":"echo"}',
    ],
)
def test_no_usable_id_is_invalid_request_with_id_null(line: bytes) -> None:
    """RFC-0002 §4.6: an object without a usable id -> protocol.invalid_request, id null."""
    err = violation(line)
    assert (err.code, err.id, err.close) == ("protocol.invalid_request", None, False)


@pytest.mark.parametrize(
    ("line", "id_"),
    [
        (b'{"id":7}', 7),
        (b'{"id":"a","verb":null}', "a"),
        (b'{"id":7,"verb":3}', 7),
        (b'{"id":7,"verb":["echo"]}', 7),
    ],
)
def test_verb_missing_or_not_a_string_is_invalid_request_with_the_id(line: bytes, id_: Any) -> None:
    """RFC-0002 §4.6: verb missing or not a string -> protocol.invalid_request, keep open."""
    err = violation(line)
    assert (err.code, err.id, err.close) == ("protocol.invalid_request", id_, False)


@pytest.mark.parametrize("params", [b"[]", b"1", b'"x"', b"null", b"true"])
def test_params_not_an_object_is_invalid_request(params: bytes) -> None:
    """RFC-0002 §4.2: params is an object (omitted means {})."""
    err = violation(b'{"id":7,"verb":"echo","params":' + params + b"}")
    assert (err.code, err.id) == ("protocol.invalid_request", 7)


def test_params_omitted_means_empty_object() -> None:
    """RFC-0002 §4.2: params MAY be omitted, which means {}."""
    assert parse_request(b'{"id":1,"verb":"ping"}') == Request(1, "ping", {})


def test_unknown_members_are_ignored() -> None:
    """RFC-0002 §4.1, §6.5: unknown object members MUST be ignored by receivers."""
    line = b'{"id":2,"verb":"echo","params":{"text":"hi"},"future":{"x":1},"jsonrpc":"2.0"}'
    assert parse_request(line) == Request(2, "echo", {"text": "hi"})


@pytest.mark.parametrize("verb", ["Echo", "", "pane..split", "9x", "pane.", "echo-x"])
def test_bad_verb_names_parse_and_are_left_to_dispatch(verb: str) -> None:
    """RFC-0002 §4.6: a verb not in the schema is unsupported.verb, decided at dispatch."""
    line = b'{"id":1,"verb":"' + verb.encode() + b'"}'
    assert parse_request(line).verb == verb
    assert not is_verb_name(verb)


@pytest.mark.parametrize("verb", ["echo", "pane.split", "a_b.c9_d", "x"])
def test_good_verb_names(verb: str) -> None:
    assert is_verb_name(verb)


# -- ids ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("id_", "ok"),
    [
        (2**53 - 1, True),
        (-(2**53 - 1), True),
        (0, True),
        (2**53, False),
        (-(2**53), False),
        (True, False),
        (False, False),
        (1.0, False),
        (None, False),
        ("", True),
        ("x" * 64, True),
        ("x" * 65, False),
        ("é" * 32, True),  # 64 bytes
        ("é" * 32 + "x", False),  # 33 code points, 65 bytes
        ("😀" * 16, True),  # 64 bytes
        ("😀" * 16 + "x", False),
    ],
)
def test_id_rules(id_: Any, ok: bool) -> None:
    """RFC-0002 §4.1, §4.2: ids are ints within ±(2^53-1) or strings of at most 64 bytes."""
    assert is_valid_id(id_) is ok
    line = encode_request(1, "echo")[:-1].replace(b'"id":1', b'"id":' + _json(id_))
    if ok:
        assert parse_request(line).id == id_
    else:
        assert violation(line).code == "protocol.invalid_request"


def _json(value: Any) -> bytes:
    from venom_proto._core._json import dumps

    return dumps(value)


# -- encoders and the section 1 / 5.4 traces ----------------------------------------------------


def test_section_1_requests_and_replies_byte_for_byte() -> None:
    """RFC-0002 §1: the socat session's requests and replies."""
    assert encode_request(
        1, "hello", {"proto": [1], "client": {"name": "socat", "version": "0"}}
    ) == (
        b'{"id":1,"verb":"hello","params":{"proto":[1],"client":{"name":"socat","version":"0"}}}\n'
    )
    assert encode_request(2, "echo", {"text": "hi"}) == (
        b'{"id":2,"verb":"echo","params":{"text":"hi"}}\n'
    )
    assert encode_request(3, "echo") == b'{"id":3,"verb":"echo","params":{}}\n'
    assert encode_ok(2, {"text": "hi"}) == b'{"id":2,"ok":{"text":"hi"}}\n'
    missing = VenomError(
        "invalid_params.missing", "missing required param 'text'", {"param": "text"}
    )
    assert encode_error(3, missing) == (
        b'{"id":3,"error":{"code":"invalid_params.missing",'
        b'"message":"missing required param \'text\'","data":{"param":"text"}}}\n'
    )


def test_section_5_4_hello_request_trace() -> None:
    """RFC-0002 §5.4: the NDJSON hello request is 47 bytes including the trailing 0x0a."""
    trace = bytes.fromhex(
        "7b226964223a312c2276657262223a22"
        "68656c6c6f222c22706172616d73223a"
        "7b2270726f746f223a5b315d7d7d0a"
    )
    assert encode_request(1, "hello", {"proto": [1]}) == trace
    assert len(trace) == 47


def test_section_3_bad_preamble_line() -> None:
    """RFC-0002 §3: the one NDJSON line written on a rejected first byte."""
    from venom_proto._core.frames import select_protocol

    with pytest.raises(ProtocolViolation) as info:
        select_protocol(71)
    assert encode_error(None, info.value) == (
        b'{"id":null,"error":{"code":"protocol.bad_preamble","message":"first byte must be'
        b' \'{\' (NDJSON) or 0xF5 (binary)","data":{"byte":71,"supported":[123,245]}}}\n'
    )


def test_section_4_4_stream_replies() -> None:
    """RFC-0002 §4.4: items precede the final response, a cancelled one ends with cancelled."""
    assert encode_item(7, {"seq": 41}) == b'{"id":7,"item":{"seq":41}}\n'
    cancelled = VenomError("cancelled", "cancelled by client")
    assert encode_error(7, cancelled) == (
        b'{"id":7,"error":{"code":"cancelled","message":"cancelled by client"}}\n'
    )
    assert encode_ok(8, None) == b'{"id":8,"ok":null}\n'


# -- replies (client side) ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (b'{"id":8,"ok":null}', Reply(8, "ok", None)),
        (b'{"id":"a","item":[1]}', Reply("a", "item", [1])),
        (
            b'{"id":3,"error":{"code":"not_found.pane","message":"m","data":{"pane":"p9"}}}',
            Reply(3, "error", VenomError("not_found.pane", "m", {"pane": "p9"})),
        ),
        (
            b'{"id":null,"error":{"code":"protocol.parse","message":"m"},"x":1}',
            Reply(None, "error", VenomError("protocol.parse", "m")),
        ),
    ],
)
def test_parse_reply(line: bytes, expected: Reply) -> None:
    """RFC-0002 §4.2: a response has exactly one of ok and error; items carry item."""
    reply = parse_reply(line)
    assert reply == expected
    assert reply.final is (expected.kind != "item")


@pytest.mark.parametrize(
    "line",
    [
        b"nope",
        b"[]",
        b'{"ok":1}',
        b'{"id":1,"ok":1,"error":{"code":"x","message":"m"}}',
        b'{"id":1,"ok":1,"item":2}',
        b'{"id":1}',
        b'{"id":null,"ok":1}',
        b'{"id":true,"ok":1}',
    ],
)
def test_parse_reply_rejects_malformed(line: bytes) -> None:
    with pytest.raises(ProtocolViolation) as info:
        parse_reply(line)
    assert (info.value.code, info.value.close) == ("protocol.invalid_reply", True)


def test_malformed_error_object_becomes_invalid_reply_error() -> None:
    reply = parse_reply(b'{"id":1,"error":{"message":"no code"}}')
    assert isinstance(reply.value, VenomError)
    assert reply.value.code == "protocol.invalid_reply"


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=120))
def test_arbitrary_bytes_only_raise_protocol_violation(line: bytes) -> None:
    for parse in (parse_request, parse_reply):
        with contextlib.suppress(ProtocolViolation):
            parse(line)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(-(2**53 - 1), 2**53 - 1) | st.text(max_size=16),
    st.from_regex(r"[a-z][a-z0-9_]{0,8}(\.[a-z][a-z0-9_]{0,8}){0,2}", fullmatch=True),
    st.dictionaries(st.text(max_size=5), st.integers() | st.text(max_size=5), max_size=3),
)
def test_encode_then_parse_round_trips(id_: int | str, verb: str, params: dict[str, Any]) -> None:
    try:
        line = encode_request(id_, verb, params)
    except TypeError:  # lone surrogate or a 65-bit int: not encodable, not sendable
        return
    assert line.endswith(b"\n")
    assert line.count(b"\n") == 1
    assert parse_request(line[:-1]) == Request(id_, verb, params)
