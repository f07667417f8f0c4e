"""The NDJSON control protocol over a real socket (RFC-0002 3, 4, 6)."""

from __future__ import annotations

import logging
import shutil
import subprocess
from typing import Any

import orjson
import pytest

HELLO_RESULT = {
    "proto": 1,
    "server": {"name": "test-tool", "version": "1.2.3"},
    "caps": ["cancel"],
    "max_frame": 1048576,
}


@pytest.fixture
def peer(serve: Any, peers: Any, sock_path: str) -> Any:
    serve()
    return peers(sock_path)


def test_hello_negotiates(peer: Any) -> None:
    """RFC-0002 §6.2: hello result with proto, server, negotiated caps and max_frame."""
    params = {"proto": [1, 7], "caps": ["cancel", "nope"], "max_frame": 65536, "extra": 1}
    reply = peer.call({"id": 1, "verb": "hello", "params": params})
    assert reply == {"id": 1, "ok": {**HELLO_RESULT, "max_frame": 65536}}


def test_version_mismatch_closes(peer: Any) -> None:
    """RFC-0002 §6.5: {"proto":[99]} gets protocol.version_mismatch with data.supported, close."""
    reply = peer.call({"id": 1, "verb": "hello", "params": {"proto": [99]}})
    assert reply["error"]["code"] == "protocol.version_mismatch"
    assert reply["error"]["data"] == {"supported": [1]}
    assert peer.rest() == b""


def test_implicit_hello_is_v1_without_caps(peer: Any) -> None:
    """RFC-0002 §6.4: no hello means version 1 with no caps, so cancel is unsupported."""
    assert peer.call({"id": 1, "verb": "ping"}) == {"id": 1, "ok": {}}
    reply = peer.call({"id": 2, "verb": "cancel", "params": {"id": 1}})
    assert reply["error"]["code"] == "unsupported.capability"


@pytest.mark.parametrize(
    "first", [{"id": 1, "verb": "ping"}, {"id": 1, "verb": "hello", "params": {"proto": [1]}}]
)
def test_hello_after_a_request_is_out_of_order(peer: Any, first: dict[str, Any]) -> None:
    """RFC-0002 §6.4: hello after any request, or a second hello, is protocol.hello_order."""
    assert "ok" in peer.call(first)
    reply = peer.call({"id": 2, "verb": "hello", "params": {"proto": [1]}})
    assert reply["error"]["code"] == "protocol.hello_order"
    assert peer.call({"id": 3, "verb": "ping"}) == {"id": 3, "ok": {}}


def test_bad_hello_params(peer: Any) -> None:
    """RFC-0002 §6.1: proto is required."""
    reply = peer.call({"id": 1, "verb": "hello", "params": {}})
    assert reply["error"]["code"] == "invalid_params.missing"


def test_unknown_members_ignored(peer: Any) -> None:
    """RFC-0002 §4.1, §6.5: unknown members in requests are ignored."""
    reply = peer.call({"id": "a", "verb": "echo", "params": {"text": "x"}, "zzz": [1]})
    assert reply == {"id": "a", "ok": {"text": "x"}}


def test_params_may_be_omitted(peer: Any) -> None:
    """RFC-0002 §4.2: params omitted means {}."""
    assert peer.call({"id": 5, "verb": "echo"}) == {"id": 5, "ok": {"text": None}}


def test_crlf_and_trailing_whitespace(peer: Any) -> None:
    """RFC-0002 §4.1: receivers ignore whitespace before the newline."""
    peer.send(b'{"id":1,"verb":"ping"} \t\r\n')
    assert peer.reply() == {"id": 1, "ok": {}}


# -- RFC-0002 4.6, row by row ---------------------------------------------------------------

MALFORMED = [
    (b"{nope", None, "protocol.parse"),
    (b"[1,2]", None, "protocol.parse"),
    (b'{"id":1.5,"verb":"ping"}', None, "protocol.invalid_request"),
    (b'{"verb":"ping"}', None, "protocol.invalid_request"),
    (b'{"id":null,"verb":"ping"}', None, "protocol.invalid_request"),
    (b'{"id":7}', 7, "protocol.invalid_request"),
    (b'{"id":7,"verb":3}', 7, "protocol.invalid_request"),
    (b'{"id":7,"verb":"ping","params":[]}', 7, "protocol.invalid_request"),
    (b'{"id":7,"verb":"no.such"}', 7, "unsupported.verb"),
]


@pytest.mark.parametrize(("line", "rid", "code"), MALFORMED)
def test_malformed_input_keeps_connection(peer: Any, line: bytes, rid: Any, code: str) -> None:
    """RFC-0002 §4.6: each bad line gets its error and the connection keeps working."""
    assert peer.call({"id": 0, "verb": "ping"}) == {"id": 0, "ok": {}}  # past the first byte
    peer.send(line + b"\n")
    reply = peer.reply()
    assert reply["id"] == rid
    assert reply["error"]["code"] == code
    assert peer.call({"id": 99, "verb": "ping"}) == {"id": 99, "ok": {}}


def test_handler_error_is_the_reply(peer: Any) -> None:
    """RFC-0002 §7.1: a handler's VenomError is sent as the error object."""
    reply = peer.call({"id": 1, "verb": "fail", "params": {"thing": "t"}})
    assert reply == {
        "id": 1,
        "error": {"code": "not_found.thing", "message": "no such thing", "data": {"thing": "t"}},
    }


def test_internal_error_hides_the_traceback(peer: Any, caplog: pytest.LogCaptureFixture) -> None:
    """RFC-0002 §7.2: any other exception is `internal`; details go to the log only."""
    with caplog.at_level(logging.ERROR, logger="venom_proto.server"):
        reply = peer.call({"id": 1, "verb": "boom"})
    assert reply["error"]["code"] == "internal"
    assert "secret" not in orjson.dumps(reply).decode()
    assert "secret detail" in caplog.text
    assert peer.call({"id": 2, "verb": "ping"}) == {"id": 2, "ok": {}}


def test_gated_verb_needs_its_capability(serve: Any, peers: Any, sock_path: str) -> None:
    """RFC-0002 §6.3: a gated verb without its capability is unsupported.capability."""
    serve()
    plain = peers(sock_path)
    assert plain.call({"id": 1, "verb": "gated"})["error"]["code"] == "unsupported.capability"
    gated = peers(sock_path)
    hello = {"id": 0, "verb": "hello", "params": {"proto": [1], "caps": ["test-tool.gated"]}}
    assert gated.call(hello)["ok"]["caps"] == ["test-tool.gated"]
    assert gated.call({"id": 1, "verb": "gated", "params": {"text": "y"}})["ok"] == {"text": "y"}


def test_too_large_line_closes(serve: Any, peers: Any, sock_path: str) -> None:
    """RFC-0002 §4.1, §4.6: a line longer than max_frame gets protocol.too_large, then close."""
    serve()
    peer = peers(sock_path)
    hello = {"id": 0, "verb": "hello", "params": {"proto": [1], "max_frame": 4096}}
    assert peer.call(hello)["ok"]["max_frame"] == 4096
    peer.send(b'{"id":1,"verb":"echo","params":{"text":"' + b"a" * 5000 + b'"}}\n')
    reply = peer.reply()
    assert reply["id"] is None
    assert reply["error"]["code"] == "protocol.too_large"
    assert peer.rest() == b""


def test_result_larger_than_max_frame_is_refused(peer: Any) -> None:
    """RFC-0002 §4.1: the server never sends a message longer than max_frame."""
    hello = {"id": 0, "verb": "hello", "params": {"proto": [1], "max_frame": 4096}}
    peer.call(hello)
    reply = peer.call({"id": 1, "verb": "big", "params": {"size": 5000}})
    assert reply["error"]["code"] == "internal.too_large"


def test_bad_preamble_line(peer: Any) -> None:
    """RFC-0002 §3: a rejected first byte gets exactly one NDJSON line, then close."""
    peer.send(b"GET / HTTP/1.1\r\n")
    assert peer.rest() == (
        b'{"id":null,"error":{"code":"protocol.bad_preamble","message":"first byte must be'
        b' \'{\' (NDJSON) or 0xF5 (binary)","data":{"byte":71,"supported":[123,245]}}}\n'
    )


@pytest.mark.parametrize("byte", [0xF6, 0xFF, 0x00, 0x20])
def test_reserved_preambles_rejected(peer: Any, byte: int) -> None:
    """RFC-0002 §3: 0xF6-0xFF (future envelopes) and anything else are bad_preamble."""
    peer.send(bytes([byte]))
    reply = orjson.loads(peer.rest())
    assert reply["error"]["data"] == {"byte": byte, "supported": [123, 245]}


@pytest.mark.skipif(shutil.which("socat") is None, reason="socat not installed")
def test_socat_session(demo: Any, sock_path: str) -> None:
    """RFC-0002 §1: the socat session against the toy daemon."""
    script = (
        b'{"id":1,"verb":"hello","params":{"proto":[1],"client":{"name":"socat","version":"0"}}}\n'
        b'{"id":2,"verb":"echo","params":{"text":"hi"}}\n'
        b'{"id":3,"verb":"echo","params":{}}\n'
    )
    out = subprocess.run(
        ["socat", "-", f"UNIX-CONNECT:{sock_path}"],
        input=script,
        capture_output=True,
        timeout=5,
        check=True,
    ).stdout
    hello, echo, missing = out.splitlines()
    result = orjson.loads(hello)["ok"]
    assert result["proto"] == 1
    assert result["server"] == {"name": "venom-echo", "version": "0.1.0"}
    assert result["max_frame"] == 1048576
    assert echo == b'{"id":2,"ok":{"text":"hi"}}'
    assert missing == (
        b'{"id":3,"error":{"code":"invalid_params.missing",'
        b'"message":"missing required param \'text\'","data":{"param":"text"}}}'
    )
