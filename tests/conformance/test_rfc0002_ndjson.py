"""RFC-0002 §§1, 3, 4: the overview session, first-byte selection and the NDJSON protocol."""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import time

import pytest
from conformance_kit import Daemon, exchange

HELLO = b'{"id":1,"verb":"hello","params":{"proto":[1],"client":{"name":"socat","version":"0"}}}'


@pytest.mark.uses_verbs("echo")
@pytest.mark.rfc("RFC-0002 §1")
def test_overview_session_through_socat(daemon: Daemon) -> None:
    """RFC-0002 §1: the socat session, byte for byte after the illustrative hello members."""
    if shutil.which("socat") is None:
        pytest.skip("socat is not installed")
    script = b"\n".join(
        [
            HELLO,
            b'{"id":2,"verb":"echo","params":{"text":"hi"}}',
            b'{"id":3,"verb":"echo","params":{}}',
        ]
    )
    out = subprocess.run(
        ["socat", "-t", "5", "-", f"UNIX-CONNECT:{daemon.socket}"],
        input=script + b"\n",
        capture_output=True,
        timeout=10,
        check=True,
    ).stdout.splitlines()
    assert len(out) == 3
    hello = json.loads(out[0])
    assert hello["id"] == 1
    ok = hello["ok"]
    assert ok["proto"] == 1
    assert ok["server"]["name"] == daemon.target.tool
    assert ok["caps"] == ["cancel"]
    assert ok["max_frame"] == 1048576
    assert out[1] == b'{"id":2,"ok":{"text":"hi"}}'
    assert out[2] == (
        b'{"id":3,"error":{"code":"invalid_params.missing",'
        b'"message":"missing required param \'text\'","data":{"param":"text"}}}'
    )


@pytest.mark.rfc("RFC-0002 §3")
@pytest.mark.parametrize("first", [b"G", b"\xf6", b"\xff", b"\x00", b"["])
def test_rejected_first_byte_gets_one_line_then_close(daemon: Daemon, first: bytes) -> None:
    """RFC-0002 §3: a rejected first byte gets exactly the bad_preamble line, then close."""
    with daemon.connect() as s:
        s.sendall(first + b"ET / HTTP/1.0\r\n\r\n")
        out = s.until_closed()
    expected = {
        "id": None,
        "error": {
            "code": "protocol.bad_preamble",
            "message": "first byte must be '{' (NDJSON) or 0xF5 (binary)",
            "data": {"byte": first[0], "supported": [123, 245]},
        },
    }
    assert out.endswith(b"\n")
    assert out.count(b"\n") == 1
    assert json.loads(out) == expected
    if first == b"G":
        assert out == (
            b'{"id":null,"error":{"code":"protocol.bad_preamble","message":"first byte must be'
            b' \'{\' (NDJSON) or 0xF5 (binary)","data":{"byte":71,"supported":[123,245]}}}\n'
        )


@pytest.mark.rfc("RFC-0002 §4.1")
def test_whitespace_before_newline_is_ignored(daemon: Daemon) -> None:
    """RFC-0002 §4.1: receivers MUST ignore whitespace before the newline (and a CR)."""
    out = exchange(daemon, b'{"id":1,"verb":"ping"}  \t\r')
    assert out == [b'{"id":1,"ok":{}}']


@pytest.mark.rfc("RFC-0002 §4.1")
def test_unknown_members_are_ignored(daemon: Daemon) -> None:
    """RFC-0002 §4.1/§6.5: unknown members in requests are ignored."""
    out = exchange(daemon, b'{"id":1,"verb":"ping","params":{},"trace":"abc","extra":{"a":[1]}}')
    assert out == [b'{"id":1,"ok":{}}']


@pytest.mark.rfc("RFC-0002 §4.1")
def test_line_longer_than_max_frame_is_too_large_then_close(daemon: Daemon) -> None:
    """RFC-0002 §4.1: a line longer than max_frame gets protocol.too_large and the close."""
    with daemon.connect() as s:
        body = b'{"id":1,"verb":"ping","pad":"' + b"a" * (1 << 20) + b'"}\n'
        # The server may close before it has read everything.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            s.sendall(body)
        out = s.until_closed()
    reply = json.loads(out.splitlines()[0])
    assert reply["error"]["code"] == "protocol.too_large"
    assert reply["id"] is None


@pytest.mark.rfc("RFC-0002 §4.1")
def test_exactly_max_frame_line_is_accepted(daemon: Daemon) -> None:
    """RFC-0002 §4.1: a message of exactly max_frame bytes including its newline is legal."""
    head, tail = b'{"id":1,"verb":"ping","pad":"', b'"}'
    pad = b"a" * (1048576 - len(head) - len(tail) - 1)
    with daemon.connect() as s:
        s.sendall(head + pad + tail + b"\n")
        assert s.lines(1) == [b'{"id":1,"ok":{}}']


@pytest.mark.rfc("RFC-0002 §4.2")
@pytest.mark.parametrize(
    ("id_json", "echoed"),
    [(b"7", 7), (b'"req-1"', "req-1"), (b"9007199254740991", 9007199254740991), (b"-3", -3)],
)
def test_id_is_echoed_unchanged(daemon: Daemon, id_json: bytes, echoed: object) -> None:
    """RFC-0002 §4.2: the server echoes the id unchanged (integers and strings)."""
    out = exchange(daemon, b'{"id":' + id_json + b',"verb":"ping","params":{}}')
    assert json.loads(out[0]) == {"id": echoed, "ok": {}}


@pytest.mark.rfc("RFC-0002 §4.2")
def test_params_may_be_omitted(daemon: Daemon) -> None:
    """RFC-0002 §4.2: params MAY be omitted, meaning {}."""
    assert exchange(daemon, b'{"id":1,"verb":"ping"}') == [b'{"id":1,"ok":{}}']


# RFC-0002 §4.6, one row each.
MALFORMED = [
    (b"not json", None, "protocol.parse"),
    (b"[1,2]", None, "protocol.parse"),
    (b'{"verb":"ping"}', None, "protocol.invalid_request"),
    (b'{"id":true,"verb":"ping"}', None, "protocol.invalid_request"),
    (b'{"id":1.5,"verb":"ping"}', None, "protocol.invalid_request"),
    (b'{"id":9007199254740992,"verb":"ping"}', None, "protocol.invalid_request"),
    (b'{"id":"' + b"x" * 65 + b'","verb":"ping"}', None, "protocol.invalid_request"),
    (b'{"id":5}', 5, "protocol.invalid_request"),
    (b'{"id":6,"verb":42}', 6, "protocol.invalid_request"),
    (b'{"id":7,"verb":"no.such_verb"}', 7, "unsupported.verb"),
    (b'{"id":8,"verb":"config.get","params":{"key":1}}', 8, "invalid_params.type"),
    (b'{"id":9,"verb":"config.get","params":{"key":"a","x":1}}', 9, "invalid_params.unknown"),
    (b'{"id":10,"verb":"events","params":{"cursor":-1}}', 10, "invalid_params.range"),
]


@pytest.mark.rfc("RFC-0002 §4.6")
@pytest.mark.parametrize(("line", "rid", "code"), MALFORMED)
def test_malformed_input_table(daemon: Daemon, line: bytes, rid: object, code: str) -> None:
    """RFC-0002 §4.6: each malformed input gets its error and the connection stays usable."""
    # A ping first: the first byte of a connection selects the protocol (§3). Replies may come
    # in any order (§4.3), so they are matched by id.
    out = exchange(daemon, b'{"id":"b","verb":"ping"}', line, b'{"id":"after","verb":"ping"}')
    replies = [json.loads(x) for x in out]
    errors = [r for r in replies if "error" in r]
    assert len(errors) == 1
    assert errors[0]["id"] == rid
    assert errors[0]["error"]["code"] == code
    assert isinstance(errors[0]["error"]["message"], str)
    assert {"id": "after", "ok": {}} in replies


@pytest.mark.uses_verbs("echo")
@pytest.mark.rfc("RFC-0002 §4.6")
def test_duplicate_in_flight_id_leaves_the_first_alone(daemon: Daemon) -> None:
    """RFC-0002 §4.6: a duplicate in-flight id gets protocol.duplicate_id; the old one goes on."""
    first = b'{"id":1,"verb":"echo.repeat","params":{"text":"a","count":2,"interval_ms":100}}'
    dup = b'{"id":1,"verb":"ping"}'
    with daemon.connect() as s:
        s.sendall(first + b"\n")
        time.sleep(0.05)
        s.sendall(dup + b"\n")
        lines = [json.loads(x) for x in s.lines(4)]
    assert lines[0]["error"]["code"] == "protocol.duplicate_id"
    assert lines[0]["id"] == 1
    assert [x.get("item") for x in lines[1:3]] == [
        {"index": 0, "text": "a"},
        {"index": 1, "text": "a"},
    ]
    assert lines[3] == {"id": 1, "ok": {"count": 2}}


@pytest.mark.rfc("RFC-0002 §4.3")
def test_pipelined_requests_all_answered_matched_by_id(daemon: Daemon) -> None:
    """RFC-0002 §4.3: pipelined requests each get exactly one final response."""
    n = 500
    lines = [b'{"id":%d,"verb":"ping","params":{}}' % i for i in range(n)]
    replies = [json.loads(x) for x in exchange(daemon, *lines)]
    assert sorted(r["id"] for r in replies) == list(range(n))
    assert all(r["ok"] == {} for r in replies)


@pytest.mark.uses_verbs("echo")
@pytest.mark.rfc("RFC-0002 §4.3")
def test_slow_request_does_not_block_a_later_fast_one(daemon: Daemon) -> None:
    """RFC-0002 §4.3: responses may come out of order; a slow stream doesn't hold up a ping."""
    slow = b'{"id":1,"verb":"echo.repeat","params":{"text":"a","count":1,"interval_ms":300}}'
    out = [json.loads(x) for x in exchange(daemon, slow, b'{"id":2,"verb":"ping"}', expect=3)]
    assert out[0] == {"id": 2, "ok": {}}
    assert out[1] == {"id": 1, "item": {"index": 0, "text": "a"}}
    assert out[2] == {"id": 1, "ok": {"count": 1}}


@pytest.mark.uses_verbs("echo")
@pytest.mark.rfc("RFC-0002 §4.4")
def test_stream_items_then_cancel_sequence(daemon: Daemon) -> None:
    """RFC-0002 §4.4: items in order, then cancel ends the stream with cancelled, cancel -> null."""
    with daemon.connect() as s:
        s.sendall(b'{"id":0,"verb":"hello","params":{"proto":[1],"caps":["cancel"]}}\n')
        assert json.loads(s.lines(1)[0])["ok"]["caps"] == ["cancel"]
        s.sendall(
            b'{"id":7,"verb":"echo.repeat","params":{"text":"x","count":100000,"interval_ms":50}}\n'
        )
        items = [json.loads(x) for x in s.lines(2)]
        assert items == [
            {"id": 7, "item": {"index": 0, "text": "x"}},
            {"id": 7, "item": {"index": 1, "text": "x"}},
        ]
        s.sendall(b'{"id":8,"verb":"cancel","params":{"id":7}}\n')
        rest: list[dict[str, object]] = []
        while len(rest) < 2 or rest[-1].get("id") != 8:
            rest += [json.loads(x) for x in s.lines(1)]
    finals = [r for r in rest if "item" not in r]
    assert finals == [
        {"id": 7, "error": {"code": "cancelled", "message": "cancelled by client"}},
        {"id": 8, "ok": None},
    ]


@pytest.mark.rfc("RFC-0002 §4.5")
def test_cancel_without_capability_is_unsupported(daemon: Daemon) -> None:
    """RFC-0002 §4.5/§6.3: cancel requires the negotiated cancel capability."""
    out = exchange(daemon, b'{"id":1,"verb":"cancel","params":{"id":5}}')
    assert json.loads(out[0])["error"]["code"] == "unsupported.capability"


@pytest.mark.rfc("RFC-0002 §4.5")
def test_cancel_of_unknown_id_is_not_found_request(daemon: Daemon) -> None:
    """RFC-0002 §4.5: cancelling an id not in flight returns not_found.request."""
    out = exchange(
        daemon,
        b'{"id":0,"verb":"hello","params":{"proto":[1],"caps":["cancel"]}}',
        b'{"id":1,"verb":"cancel","params":{"id":99}}',
    )
    assert json.loads(out[1])["error"]["code"] == "not_found.request"


@pytest.mark.rfc("RFC-0002 §4.5")
def test_ping_returns_empty_object(daemon: Daemon) -> None:
    """RFC-0002 §4.5: ping -> {} and needs no grant."""
    assert exchange(daemon, b'{"id":1,"verb":"ping","params":{}}') == [b'{"id":1,"ok":{}}']


@pytest.mark.uses_verbs("echo")
@pytest.mark.rfc("RFC-0002 §4.6")
def test_invalid_enum_value(daemon: Daemon) -> None:
    """RFC-0002 §4.6 / RFC-0004 §3: a value outside the choices is invalid_params.enum."""
    out = exchange(daemon, b'{"id":1,"verb":"echo","params":{"text":"a","style":"loud"}}')
    reply = json.loads(out[0])
    assert reply["error"]["code"] == "invalid_params.enum"
    assert reply["error"]["data"] == {"param": "style"}


@pytest.mark.rfc("RFC-0002 §4.4")
def test_endless_subscription_ends_with_cancelled(daemon: Daemon) -> None:
    """RFC-0002 §4.4: a subscription that never ends naturally ends when cancelled."""
    with daemon.connect() as s:
        s.send_lines(
            b'{"id":0,"verb":"hello","params":{"proto":[1],"caps":["cancel"]}}',
            b'{"id":"sub","verb":"events","params":{"types":["no.such.type"],"follow":true}}',
        )
        s.lines(1)
        time.sleep(0.1)
        s.send_lines(b'{"id":"c","verb":"cancel","params":{"id":"sub"}}')
        replies = [json.loads(x) for x in s.lines(2)]
    assert replies == [
        {"id": "sub", "error": {"code": "cancelled", "message": "cancelled by client"}},
        {"id": "c", "ok": None},
    ]
