"""RFC-0002 §§1, 3, 4: the overview session, first-byte selection and the NDJSON protocol."""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import time

import pytest

from venom_mcp.conformance._kit import (
    Daemon,
    exchange,
    hello_line,
    mask_messages,
    not_applicable,
    request_line,
)
from venom_mcp.conformance._model import TargetModel, endless

HELLO = b'{"id":1,"verb":"hello","params":{"proto":[1],"client":{"name":"socat","version":"0"}}}'


@pytest.mark.uses_verbs("echo")
@pytest.mark.rfc("RFC-0002 §1")
def test_overview_session_through_socat(daemon: Daemon) -> None:
    """RFC-0002 §1: the socat session, byte for byte after the illustrative hello members."""
    if shutil.which("socat") is None:
        not_applicable("socat is not installed")
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
    assert mask_messages(out[2]) == mask_messages(
        b'{"id":3,"error":{"code":"invalid_params.missing",'
        b'"message":"missing required param \'text\'","data":{"param":"text"}}}'
    )


@pytest.mark.rfc("RFC-0002 §1")
def test_a_session_through_socat(daemon: Daemon, model: TargetModel) -> None:
    """RFC-0002 §1: the overview's session on any daemon: hello, a call, a failing call (a
    required param missing, else an unknown verb), through socat as the RFC shows; one line
    per reply, in order."""
    if shutil.which("socat") is None:
        not_applicable("socat is not installed")
    verbs = [
        v
        for v in model.product_verbs()
        if v["grant"] in ("none", "read") and any(p.get("required") for p in v["params"])
    ]  # fmt: skip (socat presents no credentials: a verb needing more is denied first)
    bad = (
        request_line(3, verbs[0]["name"], {})
        if verbs
        else b'{"id":3,"verb":"zz.no_such_verb","params":{}}'
    )
    script = b"\n".join([HELLO, b'{"id":2,"verb":"ping","params":{}}', bad])
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
    assert hello["ok"]["proto"] == 1
    assert hello["ok"]["server"]["name"] == daemon.target.tool
    assert hello["ok"]["caps"] == ["cancel"]
    assert hello["ok"]["max_frame"] == 1048576
    assert out[1] == b'{"id":2,"ok":{}}'
    error = json.loads(out[2])
    assert error["id"] == 3
    assert isinstance(error["error"].pop("message"), str)
    if verbs:
        name = next(p["name"] for p in verbs[0]["params"] if p.get("required"))
        assert error["error"] == {"code": "invalid_params.missing", "data": {"param": name}}
    else:  # no read-only verb with a required param: a verb the daemon does not have
        assert error["error"]["code"] == "unsupported.verb"


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
            "data": {"byte": first[0], "supported": [123, 245]},
        },
    }
    assert out.endswith(b"\n")
    assert out.count(b"\n") == 1
    reply = json.loads(out)
    assert isinstance(reply["error"].pop("message"), str)
    assert reply == expected
    if first == b"G":
        assert mask_messages(out) == mask_messages(
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


@pytest.mark.rfc("RFC-0002 §4.6")
def test_duplicate_in_flight_id_leaves_the_first_alone(daemon: Daemon, model: TargetModel) -> None:
    """RFC-0002 §4.6: a duplicate in-flight id gets protocol.duplicate_id; the old one goes on."""
    verb, params = endless(model)
    with daemon.connect() as s:
        s.send_lines(hello_line(caps=["cancel"]))
        s.lines(1)
        s.send_lines(request_line(1, verb, params))
        time.sleep(0.1)
        s.send_lines(b'{"id":1,"verb":"ping"}')
        first = json.loads(s.lines(1)[0])
        assert first["id"] == 1
        assert first["error"]["code"] == "protocol.duplicate_id"
        s.send_lines(b'{"id":"c","verb":"cancel","params":{"id":1}}')
        rest = s.until_id("c")
    finals = [r for r in rest if "item" not in r]
    # The first request was still in flight: the cancel finds it, and it ends cancelled.
    assert finals[-1] == {"id": "c", "ok": None}
    assert [r["error"]["code"] for r in finals[:-1] if r["id"] == 1] == ["cancelled"]


@pytest.mark.rfc("RFC-0002 §4.3")
def test_pipelined_requests_all_answered_matched_by_id(daemon: Daemon) -> None:
    """RFC-0002 §4.3: pipelined requests each get exactly one final response."""
    n = 500
    lines = [b'{"id":%d,"verb":"ping","params":{}}' % i for i in range(n)]
    replies = [json.loads(x) for x in exchange(daemon, *lines)]
    assert sorted(r["id"] for r in replies) == list(range(n))
    assert all(r["ok"] == {} for r in replies)


@pytest.mark.rfc("RFC-0002 §4.3")
def test_slow_request_does_not_block_a_later_fast_one(daemon: Daemon, model: TargetModel) -> None:
    """RFC-0002 §4.3: responses may come out of order; a running stream doesn't hold up a ping."""
    verb, params = endless(model)
    with daemon.connect() as s:
        s.send_lines(hello_line(caps=["cancel"]), request_line(1, verb, params))
        s.lines(1)
        s.send_lines(b'{"id":2,"verb":"ping"}')
        got = s.until_id(2)
        assert got[-1] == {"id": 2, "ok": {}}
        assert all(m["id"] == 1 and "item" in m for m in got[:-1])
        s.send_lines(b'{"id":3,"verb":"cancel","params":{"id":1}}')
        s.until_id(3)


@pytest.mark.rfc("RFC-0002 §4.4")
def test_stream_items_then_cancel_sequence(daemon: Daemon, model: TargetModel) -> None:
    """RFC-0002 §4.4: one final response per stream (cancelled), cancel's null, then nothing."""
    verb, params = endless(model)
    with daemon.connect() as s:
        s.send_lines(hello_line(caps=["cancel"]))
        assert json.loads(s.lines(1)[0])["ok"]["caps"] == ["cancel"]
        s.send_lines(request_line(7, verb, params))
        time.sleep(0.1)
        s.send_lines(b'{"id":8,"verb":"cancel","params":{"id":7}}')
        rest = s.until_id(8)
        # Sentinel: nothing more for id 7 may follow its final response.
        s.send_lines(b'{"id":9,"verb":"ping"}')
        after = s.until_id(9)
    finals = [r for r in rest if "item" not in r]
    assert [r["id"] for r in finals] == [7, 8]
    assert finals[0]["error"]["code"] == "cancelled"
    assert finals[1] == {"id": 8, "ok": None}
    assert after == [{"id": 9, "ok": {}}]


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
