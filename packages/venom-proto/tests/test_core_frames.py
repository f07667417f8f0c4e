"""Binary envelope v1 (RFC-0002 3, 5): preamble, header codec, decoder, byte traces of 5.3."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from venom_proto import ProtocolViolation
from venom_proto._core.frames import (
    CONTROL,
    HARD_MAX_FRAME,
    HEADER,
    HELLO,
    HELLO_OK,
    Frame,
    FrameDecoder,
    encode_frame,
    select_protocol,
)
from venom_proto._core.hello import negotiate_hello
from venom_proto._core.messages import encode_ok

# RFC-0002 5.3, transcribed from the hex dumps.
HELLO_TRACE = bytes.fromhex(
    "f5000100000000000000637b2270726f"
    "746f223a5b315d2c22636c69656e7422"
    "3a7b226e616d65223a2276656e6f6d2d"
    "6563686f222c2276657273696f6e223a"
    "22302e312e30227d2c2263617073223a"
    "5b2263616e63656c222c2276656e6f6d"
    "2d6563686f2e6279746573225d7d"
)
HELLO_OK_TRACE = bytes.fromhex(
    "00020000000000000075" "7b2270726f74"
    "6f223a312c22736572766572223a7b22"
    "6e616d65223a2276656e6f6d2d656368"
    "6f222c2276657273696f6e223a22302e"
    "312e30227d2c2263617073223a5b2263"
    "616e63656c222c2276656e6f6d2d6563"
    "686f2e6279746573225d2c226d61785f"
    "6672616d65223a313034383537367d"
)  # fmt: skip
ECHO_TRACE = bytes.fromhex("0100000000010000000368690a")
CONTROL_REQUEST_TRACE = bytes.fromhex(
    "00100000000000000022" "7b226964223a"
    "332c2276657262223a2270696e67222c"
    "22706172616d73223a7b7d7d"
)  # fmt: skip
CONTROL_REPLY_TRACE = bytes.fromhex("001000000000000000107b226964223a332c226f6b223a7b7d7d")

HELLO_PARAMS = b'{"proto":[1],"client":{"name":"venom-echo","version":"0.1.0"},"caps":["cancel","venom-echo.bytes"]}'  # noqa: E501


def test_hello_trace() -> None:
    """RFC-0002 §5.3: preamble 0xF5 then HELLO, type 1 stream 0 length 99."""
    assert len(HELLO_PARAMS) == 99
    assert bytes([0xF5]) + encode_frame(HELLO, 0, HELLO_PARAMS) == HELLO_TRACE


def test_hello_ok_trace() -> None:
    """RFC-0002 §5.3 and §6.2: the negotiated HELLO_OK reproduces the trace byte for byte."""
    from venom_proto._core._json import dumps, loads

    outcome = negotiate_hello(
        loads(HELLO_PARAMS),
        server_name="venom-echo",
        server_version="0.1.0",
        caps=frozenset({"cancel", "venom-echo.bytes"}),
    )
    assert outcome.result is not None
    assert encode_frame(HELLO_OK, 0, dumps(outcome.result)) == HELLO_OK_TRACE


def test_tool_and_control_traces() -> None:
    """RFC-0002 §5.3: ECHO_BYTES on stream 1 and a ping over CONTROL frames."""
    assert encode_frame(0x0100, 1, b"hi\n") == ECHO_TRACE
    request = b'{"id":3,"verb":"ping","params":{}}'
    assert encode_frame(CONTROL, 0, request) == CONTROL_REQUEST_TRACE
    assert encode_frame(CONTROL, 0, encode_ok(3, {})[:-1]) == CONTROL_REPLY_TRACE


def test_decoder_reads_the_traces_back() -> None:
    """RFC-0002 §5.1: big-endian header, type u16, stream u32, length u32."""
    frames = FrameDecoder().feed(HELLO_TRACE[1:] + ECHO_TRACE + CONTROL_REQUEST_TRACE)
    assert frames == [
        Frame(HELLO, 0, HELLO_PARAMS),
        Frame(0x0100, 1, b"hi\n"),
        Frame(CONTROL, 0, b'{"id":3,"verb":"ping","params":{}}'),
    ]


def test_big_stream_ids_are_big_endian() -> None:
    assert encode_frame(0x1234, 0x01020304, b"") == bytes.fromhex("12340102030400000000")


@pytest.mark.parametrize(
    ("byte", "expected"), [(0x7B, "ndjson"), (0xF5, "binary")]
)  # fmt: skip
def test_select_protocol(byte: int, expected: str) -> None:
    """RFC-0002 §3: '{' selects NDJSON and 0xF5 binary envelope v1."""
    assert select_protocol(byte) == expected


@pytest.mark.parametrize("byte", [0x47, 0x00, 0x20, 0xEF, 0xF4, 0xF6, 0xFF])
def test_select_protocol_rejects_with_supported_bytes(byte: int) -> None:
    """RFC-0002 §3: reserved 0xF6-0xFF and anything else -> bad_preamble, data.supported."""
    with pytest.raises(ProtocolViolation) as info:
        select_protocol(byte)
    err = info.value
    assert err.code == "protocol.bad_preamble"
    assert err.close is True
    assert err.data == {"byte": byte, "supported": [123, 245]}
    assert err.message == "first byte must be '{' (NDJSON) or 0xF5 (binary)"


def test_frame_type_zero_is_bad_frame() -> None:
    """RFC-0002 §5.2: type 0x0000 is invalid; receiving it is protocol.bad_frame (close)."""
    with pytest.raises(ProtocolViolation) as info:
        FrameDecoder().feed(bytes(HEADER))
    assert (info.value.code, info.value.close) == ("protocol.bad_frame", True)
    with pytest.raises(ValueError, match="out of range"):
        encode_frame(0, 0, b"")


def test_length_over_max_frame_is_too_large_from_the_header() -> None:
    """RFC-0002 §5.1: length MUST NOT exceed max_frame; refused before any payload arrives."""
    decoder = FrameDecoder(4096)
    assert decoder.feed(encode_frame(CONTROL, 0, b"x" * 4096)) == [Frame(CONTROL, 0, b"x" * 4096)]
    with pytest.raises(ProtocolViolation) as info:
        decoder.feed(encode_frame(CONTROL, 0, b"x" * 4097)[:HEADER])
    assert (info.value.code, info.value.close) == ("protocol.too_large", True)


def test_hard_ceiling() -> None:
    """RFC-0002 §5.1: max_frame has a hard ceiling of 16 MiB."""
    FrameDecoder(HARD_MAX_FRAME)
    with pytest.raises(ValueError, match="max_frame"):
        FrameDecoder(HARD_MAX_FRAME + 1)


def _decode_in_chunks(data: bytes, sizes: list[int], max_frame: int = 1 << 20) -> list[Frame]:
    decoder = FrameDecoder(max_frame)
    frames: list[Frame] = []
    pos = 0
    for size in sizes:
        frames += decoder.feed(data[pos : pos + size])
        pos += size
    return frames + decoder.feed(data[pos:])


FRAMES = st.lists(
    st.builds(Frame, st.integers(1, 0xFFFF), st.integers(0, 2**32 - 1), st.binary(max_size=50)),
    max_size=6,
)


@settings(max_examples=300, deadline=None)
@given(FRAMES, st.lists(st.integers(1, 13), max_size=40))
def test_any_chunking_gives_the_same_frames(frames: list[Frame], sizes: list[int]) -> None:
    data = b"".join(encode_frame(f.type, f.stream, f.payload) for f in frames)
    assert _decode_in_chunks(data, sizes) == frames


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200), st.lists(st.integers(1, 9), max_size=40))
def test_arbitrary_bytes_only_raise_protocol_violation(data: bytes, sizes: list[int]) -> None:
    try:
        frames = _decode_in_chunks(data, sizes, max_frame=64)
    except ProtocolViolation as exc:
        code: str | None = exc.code
    else:
        code = None
        assert sum(HEADER + len(f.payload) for f in frames) <= len(data)
    assert code in {None, "protocol.bad_frame", "protocol.too_large"}
