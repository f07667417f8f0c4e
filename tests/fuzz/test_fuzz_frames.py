"""Fuzz the binary envelope: ``FrameDecoder``, ``select_protocol`` and the server core.

Inputs are sequences of real frames (random types, streams and payload lengths around
max_frame) with corrupted headers, truncation and random chunking, plus raw bytes. The only
allowed failures are ``protocol.bad_frame`` and ``protocol.too_large`` (both closing); a valid
sequence decodes to exactly the frames encoded, whatever the chunking; the decoder never holds
more than one header plus max_frame bytes. The server core writes the same bytes for the same
frames whole or chunked, with or without its fast path, all well-formed frames within max_frame.
"""

from __future__ import annotations

import random
import struct

import orjson
import pytest
from fuzz_kit import Fuzz, chunks, closing_violation, mutate
from fuzz_server import check_output, serve
from hypothesis import given, seed
from hypothesis import strategies as st

from venom_proto.sansio import (
    CLOSE,
    CONTROL,
    HARD_MAX_FRAME,
    HEADER,
    HELLO,
    PING,
    Frame,
    FrameDecoder,
    ProtocolViolation,
    encode_frame,
    select_protocol,
)

TARGET = "frames"
PER_EXAMPLE = 40
TYPES = (HELLO, CONTROL, PING, CLOSE, 0x0100, 0xFFFF, 0, 7)
HEADER_TOKENS = (
    b"\x00\x00", b"\xff\xff\xff\xff", b"\x00\x00\x00\x00", struct.pack(">I", HARD_MAX_FRAME + 1),
    struct.pack(">HII", 0, 0, 0), struct.pack(">HII", CONTROL, 1, 0xFFFFFFFF),
)  # fmt: skip


def random_frame(rng: random.Random, max_frame: int) -> Frame:
    type_ = rng.choice(TYPES) if rng.random() < 0.7 else rng.randint(1, 0xFFFF)
    type_ = type_ or 1
    length = rng.choice((0, 1, max_frame - 1, max_frame, rng.randint(0, max_frame)))
    return Frame(type_, rng.choice((0, 1, 2, 0xFFFFFFFF)), rng.randbytes(max(0, length)))


def decode(stream: list[bytes], max_frame: int) -> list[Frame] | None:
    """Feed chunk by chunk; the frames, or None once a closing violation fired."""
    dec = FrameDecoder(max_frame)
    frames: list[Frame] = []
    for chunk in stream:
        try:
            got = dec.feed(chunk)
        except ProtocolViolation as exc:
            closing_violation(exc, "protocol.bad_frame", "protocol.too_large")
            return None
        assert dec.buffered < HEADER + max_frame, (dec.buffered, max_frame)
        for frame in got:
            assert 0 < frame.type <= 0xFFFF
            assert len(frame.payload) <= max_frame
        frames += got
    return frames


def one_input(data: bytes, rng: random.Random, max_frame: int, expect: list[Frame] | None) -> None:
    whole = decode([data], max_frame)
    split = decode(chunks(data, rng), max_frame)
    assert (whole is None) == (split is None), "chunking changed whether the stream is valid"
    if expect is not None:
        assert whole == expect == split
    elif whole is not None:
        assert whole == split
    # The server core on the same frames, after a preamble and (usually) a HELLO.
    caps = rng.choice(([], ["t.bytes"], ["cancel", "t.bytes"]))
    hello = {"proto": [1], "caps": caps, "max_frame": rng.choice((4096, 65536))}
    opening = b"\xf5" + (encode_frame(HELLO, 0, orjson.dumps(hello)) if rng.random() < 0.9 else b"")
    stream = opening + data
    served = serve([stream], 1 << 20, fast=True)
    assert served == serve(chunks(stream, rng), 1 << 20, fast=rng.random() < 0.5)
    check_output(served, binary=True)


def one_example(fuzz: Fuzz, rng: random.Random, raw: bytes) -> None:
    max_frame = rng.choice((1, 10, 64, 4096, rng.randint(1, 2048)))
    frames = [random_frame(rng, max_frame) for _ in range(rng.randint(1, 5))]
    clean = b"".join(encode_frame(f.type, f.stream, f.payload) for f in frames)
    fuzz.run(one_input, clean, rng, max_frame, frames)
    fuzz.run(one_input, raw, rng, max_frame, None)
    for _ in range(PER_EXAMPLE - 3):
        fuzz.run(one_input, mutate(clean, rng, HEADER_TOKENS), rng, max_frame, None)
    byte = raw[0] if raw else rng.randrange(256)
    fuzz.run(_preamble, byte)


def _preamble(byte: int) -> None:
    try:
        kind = select_protocol(byte)
    except ProtocolViolation as exc:
        closing_violation(exc, "protocol.bad_preamble")
        error = exc
    else:
        assert (byte, kind) in ((0x7B, "ndjson"), (0xF5, "binary"))
        return
    assert error.data == {"byte": byte, "supported": [0x7B, 0xF5]}
    assert byte not in (0x7B, 0xF5)


def test_frame_decoder_survives_any_stream(fuzz: Fuzz) -> None:
    """RFC-0002 §5.1: oversized frames give protocol.too_large, type 0 protocol.bad_frame."""

    @fuzz.settings(PER_EXAMPLE)
    @seed(fuzz.seed)
    @given(rng_seed=st.integers(0, 2**64 - 1), raw=st.binary(max_size=200))
    def run(rng_seed: int, raw: bytes) -> None:
        one_example(fuzz, random.Random(rng_seed), raw)

    run()


def test_oversized_header_is_refused_before_its_payload() -> None:
    """RFC-0002 §5.1: a length over max_frame is refused from the header alone."""
    dec = FrameDecoder(64)
    with pytest.raises(ProtocolViolation) as info:
        dec.feed(struct.pack(">HII", CONTROL, 0, 65))
    assert info.value.code == "protocol.too_large"
    assert dec.buffered <= HEADER
