"""RFC-0002 §5: binary frames, byte for byte against the §5.3 trace."""

from __future__ import annotations

import json
import struct

import pytest

from venom_mcp.conformance._kit import Conn, Daemon, request_line
from venom_mcp.conformance._model import TargetModel, finite

HELLO_PAYLOAD = (
    b'{"proto":[1],"client":{"name":"venom-echo","version":"0.1.0"},'
    b'"caps":["cancel","venom-echo.bytes"]}'
)


def frame(type_: int, stream: int, payload: bytes) -> bytes:
    return struct.pack(">HII", type_, stream, len(payload)) + payload


def read_frame(c: Conn) -> tuple[int, int, bytes]:
    head = c.read(10)
    assert len(head) == 10, f"connection closed mid-header: {head!r}"
    type_, stream, length = struct.unpack(">HII", head)
    return type_, stream, c.read(length)


def binary_session(d: Daemon, caps: bytes = HELLO_PAYLOAD) -> Conn:
    c = d.connect()
    c.sendall(b"\xf5" + frame(1, 0, caps))
    type_, stream, _ = read_frame(c)
    assert (type_, stream) == (2, 0)
    return c


@pytest.mark.uses_verbs("echo")
@pytest.mark.rfc("RFC-0002 §5.3")
def test_binary_trace_hello_echo_bytes_and_control(daemon: Daemon) -> None:
    """RFC-0002 §5.3: preamble + HELLO, HELLO_OK, ECHO_BYTES on stream 1, CONTROL ping."""
    hello = b"\xf5" + frame(1, 0, HELLO_PAYLOAD)
    assert hello[:11] == bytes.fromhex("f5 00 01 00 00 00 00 00 00 00 63")
    with daemon.connect() as c:
        c.sendall(hello)
        type_, stream, payload = read_frame(c)
        assert (type_, stream) == (0x0002, 0)
        ok = json.loads(payload)
        assert ok["proto"] == 1
        assert ok["caps"] == ["cancel", "venom-echo.bytes"]
        assert ok["max_frame"] == 1048576
        assert ok["server"]["name"] == daemon.target.tool
        echo = bytes.fromhex("01 00 00 00 00 01 00 00 00 03 68 69 0a")
        c.sendall(echo)
        assert c.read(13) == echo
        control = bytes.fromhex("00 10 00 00 00 00 00 00 00 22") + (
            b'{"id":3,"verb":"ping","params":{}}'
        )
        c.sendall(control)
        assert c.read(26) == bytes.fromhex("00 10 00 00 00 00 00 00 00 10") + b'{"id":3,"ok":{}}'


@pytest.mark.uses_verbs("echo")
@pytest.mark.rfc("RFC-0002 §5.3")
def test_hello_ok_bytes_match_the_trace_without_schema(daemon: Daemon) -> None:
    """RFC-0002 §5.3: HELLO_OK is the 10-byte big-endian header and the JSON result."""
    with daemon.connect() as c:
        c.sendall(b"\xf5" + frame(1, 0, HELLO_PAYLOAD))
        head = c.read(10)
        (length,) = struct.unpack(">I", head[6:])
        body = c.read(length)
    assert head[:6] == bytes.fromhex("00 02 00 00 00 00")
    result = json.loads(body)
    result.pop("schema", None)
    result["server"]["version"] = "0.1.0"
    assert json.dumps(result, separators=(",", ":")).encode() == (
        b'{"proto":1,"server":{"name":"venom-echo","version":"0.1.0"},'
        b'"caps":["cancel","venom-echo.bytes"],"max_frame":1048576}'
    )


@pytest.mark.rfc("RFC-0002 §6.4")
def test_first_frame_must_be_hello(daemon: Daemon) -> None:
    """RFC-0002 §6.4: anything before HELLO is protocol.hello_required and closes."""
    with daemon.connect() as c:
        c.sendall(b"\xf5" + frame(4, 0, b"ping"))
        type_, stream, payload = read_frame(c)
        assert (type_, stream) == (3, 0)
        assert json.loads(payload)["code"] == "protocol.hello_required"
        assert c.until_closed() == b""


@pytest.mark.rfc("RFC-0002 §5.2")
def test_ping_pong_copies_payload(daemon: Daemon) -> None:
    """RFC-0002 §5.2: PONG carries a copy of the PING payload."""
    with binary_session(daemon) as c:
        c.sendall(frame(4, 0, b"abc123"))
        assert read_frame(c) == (5, 0, b"abc123")


@pytest.mark.rfc("RFC-0002 §5.2")
def test_tool_frame_without_capability_is_bad_frame(daemon: Daemon) -> None:
    """RFC-0002 §5.2: a tool frame type outside the negotiated caps is bad_frame and closes."""
    with binary_session(daemon, b'{"proto":[1]}') as c:
        c.sendall(frame(0x0100, 1, b"hi"))
        type_, _, payload = read_frame(c)
        assert type_ == 3
        assert json.loads(payload)["code"] == "protocol.bad_frame"
        assert c.until_closed() == b""


@pytest.mark.rfc("RFC-0002 §5.2")
@pytest.mark.parametrize("bad_type", [0x0000, 0x0007, 0x00FF])
def test_invalid_or_unknown_core_type_is_bad_frame(daemon: Daemon, bad_type: int) -> None:
    """RFC-0002 §5.2: type 0 and unknown core types are protocol.bad_frame and close."""
    with binary_session(daemon) as c:
        c.sendall(frame(bad_type, 0, b""))
        type_, _, payload = read_frame(c)
        assert type_ == 3
        assert json.loads(payload)["code"] == "protocol.bad_frame"
        assert c.until_closed() == b""


@pytest.mark.rfc("RFC-0002 §5.1")
def test_frame_longer_than_max_frame_is_too_large(daemon: Daemon) -> None:
    """RFC-0002 §5.1: a length above max_frame is refused (too_large) and closes."""
    with binary_session(daemon) as c:
        c.sendall(struct.pack(">HII", 0x0100, 1, 1048577))
        type_, _, payload = read_frame(c)
        assert type_ == 3
        assert json.loads(payload)["code"] == "protocol.too_large"
        assert c.until_closed() == b""


@pytest.mark.rfc("RFC-0002 §6.2")
def test_lowered_max_frame_applies_to_incoming_frames(daemon: Daemon) -> None:
    """RFC-0002 §5.1/§6.2: a max_frame lowered by HELLO bounds the frames the server accepts:
    a CONTROL frame that fits is answered, one byte over is too_large and closes."""
    with binary_session(daemon, b'{"proto":[1],"max_frame":4096}') as c:
        head = b'{"id":1,"verb":"ping","params":{},"pad":"'
        fits = head + b"a" * (4096 - len(head) - 2) + b'"}'
        c.sendall(frame(0x10, 0, fits))
        assert read_frame(c) == (0x10, 0, b'{"id":1,"ok":{}}')
        over = fits.replace(b'"id":1', b'"id":2').replace(b'"}', b'a"}')
        assert len(over) == 4097
        c.sendall(frame(0x10, 0, over))
        type_, _, payload = read_frame(c)
        assert type_ == 3
        assert json.loads(payload)["code"] == "protocol.too_large"
        assert c.until_closed() == b""


@pytest.mark.rfc("RFC-0002 §5.1")
def test_frame_of_exactly_max_frame_is_accepted(daemon: Daemon) -> None:
    """RFC-0002 §5.1: a payload of exactly max_frame bytes is legal (any daemon: a CONTROL ping)."""
    with binary_session(daemon, b'{"proto":[1]}') as c:
        head = b'{"id":1,"verb":"ping","params":{},"pad":"'
        payload = head + b"a" * (1048576 - len(head) - 2) + b'"}'
        c.sendall(frame(0x10, 0, payload))
        assert read_frame(c) == (0x10, 0, b'{"id":1,"ok":{}}')


@pytest.mark.rfc("RFC-0002 §5.3")
def test_hello_ok_answers_any_daemons_hello(daemon: Daemon) -> None:
    """RFC-0002 §5.3/§6.2: HELLO_OK on stream 0 carries the hello result: version 1, the
    server's name, the granted caps, the effective max_frame."""
    with daemon.connect() as c:
        c.sendall(b"\xf5" + frame(1, 0, b'{"proto":[1],"caps":["cancel"],"max_frame":65536}'))
        type_, stream, payload = read_frame(c)
    assert (type_, stream) == (2, 0)
    ok = json.loads(payload)
    assert ok["proto"] == 1
    assert ok["server"]["name"] == daemon.target.tool
    assert ok["caps"] == ["cancel"]
    assert ok["max_frame"] == 65536


@pytest.mark.rfc("RFC-0002 §5.2")
def test_close_frame_ends_the_connection(daemon: Daemon) -> None:
    """RFC-0002 §5.2: CLOSE on stream 0 means the sender is closing the connection."""
    with binary_session(daemon) as c:
        c.sendall(frame(6, 0, b'{"reason":"done"}'))
        rest = c.until_closed()
    assert rest in (b"", frame(6, 0, b"")) or rest.startswith(b"\x00\x06")


@pytest.mark.rfc("RFC-0002 §5.2")
def test_control_frames_carry_the_models_stream(daemon: Daemon, model: TargetModel) -> None:
    """RFC-0002 §5.2: CONTROL carries a streaming call: items, then one final response."""
    verb, params = finite(model)
    with binary_session(daemon) as c:
        c.sendall(frame(0x10, 0, request_line(1, verb, params)))
        replies: list[dict[str, object]] = []
        while not replies or "item" in replies[-1]:
            type_, stream, payload = read_frame(c)
            assert (type_, stream) == (0x10, 0)
            replies.append(json.loads(payload))
    assert all(r["id"] == 1 for r in replies)
    assert "ok" in replies[-1], replies[-1]


@pytest.mark.uses_verbs("echo")
@pytest.mark.rfc("RFC-0002 §5.2")
def test_control_frames_carry_streams(daemon: Daemon) -> None:
    """RFC-0002 §5.2: CONTROL gives a binary connection the full verb protocol, items included."""
    with binary_session(daemon) as c:
        req = b'{"id":1,"verb":"echo.repeat","params":{"text":"b","count":2}}'
        c.sendall(frame(0x10, 0, req))
        replies = [json.loads(read_frame(c)[2]) for _ in range(3)]
    assert replies == [
        {"id": 1, "item": {"index": 0, "text": "b"}},
        {"id": 1, "item": {"index": 1, "text": "b"}},
        {"id": 1, "ok": {"count": 2}},
    ]


@pytest.mark.uses_verbs("echo")
@pytest.mark.rfc("RFC-0002 §5.1")
def test_large_echo_bytes_round_trip(daemon: Daemon) -> None:
    """RFC-0002 §5.1: payloads up to max_frame cross intact, big-endian lengths."""
    payload = bytes(range(256)) * 4096  # exactly 1 MiB
    with binary_session(daemon) as c:
        c.sendall(frame(0x0100, 3, payload))
        assert read_frame(c) == (0x0100, 3, payload)
