"""Binary frame connections against the demo daemon (RFC-0002 5, 6.4)."""

from __future__ import annotations

import struct
from typing import Any

import orjson
import pytest

# RFC-0002 5.3, byte for byte.
TRACE_HELLO = bytes.fromhex("f5 0001 00000000 00000063") + (
    b'{"proto":[1],"client":{"name":"venom-echo","version":"0.1.0"},'
    b'"caps":["cancel","venom-echo.bytes"]}'
)
TRACE_HELLO_OK = bytes.fromhex("0002 00000000 00000075") + (
    b'{"proto":1,"server":{"name":"venom-echo","version":"0.1.0"},'
    b'"caps":["cancel","venom-echo.bytes"],"max_frame":1048576}'
)
TRACE_ECHO = bytes.fromhex("0100 00000001 00000003 68690a")
TRACE_CONTROL = bytes.fromhex("0010 00000000 00000022") + b'{"id":3,"verb":"ping","params":{}}'
TRACE_CONTROL_REPLY = bytes.fromhex("0010 00000000 00000010") + b'{"id":3,"ok":{}}'


def frame(type_: int, stream: int, payload: bytes = b"") -> bytes:
    return struct.pack(">HII", type_, stream, len(payload)) + payload


def read_frame(peer: Any) -> tuple[int, int, bytes]:
    type_, stream, length = struct.unpack(">HII", peer.read_exact(10))
    return type_, stream, peer.read_exact(length)


def error_frame(peer: Any) -> tuple[int, dict[str, Any]]:
    type_, stream, payload = read_frame(peer)
    assert type_ == 0x0003
    return stream, orjson.loads(payload)


@pytest.fixture
def peer(demo: Any, peers: Any, sock_path: str) -> Any:
    return peers(sock_path)


@pytest.fixture
def session(peer: Any) -> Any:
    """A binary connection past HELLO with both capabilities."""
    peer.send(TRACE_HELLO)
    assert peer.read_exact(len(TRACE_HELLO_OK)) == TRACE_HELLO_OK
    return peer


def test_binary_trace_byte_for_byte(peer: Any) -> None:
    """RFC-0002 §5.3: preamble + HELLO, HELLO_OK, ECHO_BYTES on stream 1, CONTROL ping."""
    assert len(TRACE_HELLO) == 1 + 10 + 99
    peer.send(TRACE_HELLO)
    assert peer.read_exact(len(TRACE_HELLO_OK)) == TRACE_HELLO_OK
    peer.send(TRACE_ECHO)
    assert peer.read_exact(len(TRACE_ECHO)) == TRACE_ECHO
    peer.send(TRACE_CONTROL)
    assert peer.read_exact(len(TRACE_CONTROL_REPLY)) == TRACE_CONTROL_REPLY


def test_hello_must_be_first_frame(peer: Any) -> None:
    """RFC-0002 §6.4: anything before HELLO is protocol.hello_required, then close."""
    peer.send(b"\xf5" + TRACE_CONTROL)
    stream, err = error_frame(peer)
    assert (stream, err["code"]) == (0, "protocol.hello_required")
    assert peer.rest() == b""


def test_hello_version_mismatch(peer: Any) -> None:
    """RFC-0002 §6.2: no common version -> ERROR version_mismatch with data.supported."""
    peer.send(b"\xf5" + frame(1, 0, b'{"proto":[99]}'))
    stream, err = error_frame(peer)
    assert (stream, err["code"]) == (0, "protocol.version_mismatch")
    assert err["data"] == {"supported": [1]}
    assert peer.rest() == b""


def test_hello_payload_not_json(peer: Any) -> None:
    """RFC-0002 §5.2: HELLO carries JSON hello params."""
    peer.send(b"\xf5" + frame(1, 0, b"\xff"))
    assert error_frame(peer)[1]["code"] == "protocol.parse"


def test_tool_frame_without_capability_closes(peer: Any) -> None:
    """RFC-0002 §5.2: a tool type outside the negotiated caps is protocol.bad_frame and closes."""
    peer.send(b"\xf5" + frame(1, 0, b'{"proto":[1]}'))
    assert read_frame(peer)[0] == 0x0002
    peer.send(TRACE_ECHO)
    stream, err = error_frame(peer)
    assert (stream, err["code"]) == (0, "protocol.bad_frame")
    assert peer.rest() == b""


@pytest.mark.parametrize("type_", [0x0007, 0x000F, 0x0011, 0x00FF, 0x0002, 0x0200, 0xF000])
def test_unknown_frame_types_close(session: Any, type_: int) -> None:
    """RFC-0002 §5.2: unknown core types and unknown tool types are bad_frame, then close."""
    session.send(frame(type_, 0, b"x"))
    assert error_frame(session)[1]["code"] == "protocol.bad_frame"
    assert session.rest() == b""


def test_frame_type_zero_closes(session: Any) -> None:
    """RFC-0002 §5.2: type 0x0000 is invalid."""
    session.send(struct.pack(">HII", 0, 1, 0))
    assert error_frame(session)[1]["code"] == "protocol.bad_frame"


def test_ping_pong(session: Any) -> None:
    """RFC-0002 §5.2: PONG copies the PING payload (at most 64 bytes)."""
    session.send(frame(4, 0, b"p" * 64))
    assert read_frame(session) == (5, 0, b"p" * 64)
    session.send(frame(4, 0, b"p" * 65))
    assert error_frame(session)[1]["code"] == "protocol.bad_frame"


def test_core_frame_off_stream_zero_closes(session: Any) -> None:
    """RFC-0002 §5.2: PING and CONTROL belong to stream 0."""
    session.send(frame(0x10, 3, b'{"id":1,"verb":"ping"}'))
    assert error_frame(session)[1]["code"] == "protocol.bad_frame"


def test_even_stream_not_opened_by_server(session: Any) -> None:
    """RFC-0002 §5.1: client streams are odd; an even one gets ERROR on that stream only."""
    session.send(frame(0x0100, 2, b"x"))
    stream, err = error_frame(session)
    assert (stream, err["code"]) == (2, "protocol.bad_frame")
    session.send(frame(0x0100, 5, b"ok"))  # the connection carries on
    assert read_frame(session) == (0x0100, 5, b"ok")


def test_second_hello_closes(session: Any) -> None:
    """RFC-0002 §6.4: a second HELLO is protocol.hello_order."""
    session.send(TRACE_HELLO[1:])
    assert error_frame(session)[1]["code"] == "protocol.hello_order"


def test_control_carries_verbs_and_errors(session: Any) -> None:
    """RFC-0002 §5.2: CONTROL gives the full verb protocol, errors included."""
    session.send(frame(0x10, 0, b'{"id":1,"verb":"echo","params":{"text":"t"}}'))
    assert read_frame(session) == (0x10, 0, b'{"id":1,"ok":{"text":"t"}}')
    session.send(frame(0x10, 0, b'{"id":2,"verb":"hello","params":{"proto":[1]}}'))
    reply = orjson.loads(read_frame(session)[2])
    assert reply["error"]["code"] == "protocol.hello_order"
    session.send(frame(0x10, 0, b"nope"))
    assert orjson.loads(read_frame(session)[2])["error"]["code"] == "protocol.parse"


def test_oversized_frame_closes(session: Any) -> None:
    """RFC-0002 §5.1: a length above max_frame is protocol.too_large, then close."""
    session.send(struct.pack(">HII", 0x0100, 1, 1048577))
    assert error_frame(session)[1]["code"] == "protocol.too_large"
    assert session.rest() == b""


@pytest.mark.parametrize("type_", [0x0006, 0x0003])
def test_close_or_error_on_stream_zero_ends_connection(session: Any, type_: int) -> None:
    """RFC-0002 §5.2: CLOSE or ERROR on stream 0 means the client is closing."""
    session.send(frame(type_, 0, b'{"reason":"bye"}'))
    assert session.rest() == b""
