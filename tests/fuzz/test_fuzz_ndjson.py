"""Fuzz the NDJSON path: ``LineDecoder`` splitting plus ``parse_request`` on every line,
and the server core (``ServerConnection``) on the same streams.

Inputs are streams of valid-ish request lines (real shapes, then byte mutations, hostile JSON
tokens and random chunking) plus raw bytes. The only allowed failure is ``ProtocolViolation``;
the decoder never buffers more than max_frame, and chunking never changes the lines. The
server core writes the same bytes whole or chunked, with or without its fast path, and every
reply is a well-formed message within max_frame carrying an allowed id.
"""

from __future__ import annotations

import json
import random
from typing import Any

from fuzz_kit import Fuzz, chunks, closing_violation, mutate, rand_int, rand_json, rand_text
from fuzz_server import check_output, serve
from hypothesis import given, seed
from hypothesis import strategies as st

from venom_proto.sansio import LineDecoder, ProtocolViolation, Request, parse_request

TARGET = "ndjson"
#: Inputs (one decoder stream each) tried per hypothesis example.
PER_EXAMPLE = 40

VERBS = ("echo", "echo.repeat", "hello", "cancel", "ping", "events", "config.set", "x" * 70, "")
HOSTILE = (
    b"NaN", b"Infinity", b"-Infinity", b'"\\ud800"', b'"\\udfff\\ud800"', b"\xff", b"\xc3",
    b"\xed\xa0\x80", b"[" * 600, b"{" * 300, b"1e999999", b"9007199254740992", b"-0",
    b"\x00", b"\t", b"\r", b" ", b"\n", b'{"id":1}', b'"id"', b'"verb"', b'"params"', b"null",
    b"true", b",", b":", b"}", b"]", b'"', b"\\", b"\xef\xbb\xbf",
)  # fmt: skip


def request_object(rng: random.Random) -> dict[str, Any]:
    """A request-shaped object: usually well-formed, sometimes missing or mistyped members."""
    obj: dict[str, Any] = {}
    if rng.random() < 0.9:
        pick = rng.random()
        obj["id"] = (
            rand_int(rng) if pick < 0.5 else rand_text(rng) if pick < 0.8 else rand_json(rng)
        )
    if rng.random() < 0.9:
        obj["verb"] = rng.choice(VERBS) if rng.random() < 0.8 else rand_json(rng)
    if rng.random() < 0.75:
        pick = rng.random()
        obj["params"] = (
            rand_json(rng)
            if pick < 0.2
            else {rand_text(rng): rand_json(rng) for _ in range(rng.randint(0, 4))}
        )
    if rng.random() < 0.15:
        obj[rand_text(rng)] = rand_json(rng)
    return obj


def encode(obj: dict[str, Any], rng: random.Random) -> bytes:
    return json.dumps(obj, ensure_ascii=rng.random() < 0.5, separators=(",", ":")).encode()


def decode_stream(stream: list[bytes], max_frame: int) -> list[bytes] | None:
    """Feed ``stream`` chunk by chunk; the lines, or None once ``protocol.too_large`` fired.

    Checks after every chunk that no more than max_frame bytes of a partial line are held.
    """
    dec = LineDecoder(max_frame)
    lines: list[bytes] = []
    for chunk in stream:
        try:
            got = dec.feed(chunk)
        except ProtocolViolation as exc:
            closing_violation(exc, "protocol.too_large")
            return None
        assert dec.buffered < max_frame, (dec.buffered, max_frame)
        for line in got:
            assert line
            assert b"\n" not in line
            assert line[-1:] not in (b" ", b"\t", b"\r")
        lines += got
    return lines


def check_request(line: bytes) -> Request | None:
    """``parse_request`` gives a well-typed Request or a 4.6 ProtocolViolation, nothing else."""
    try:
        req = parse_request(line)
    except ProtocolViolation as exc:
        error = exc
    else:
        assert type(req) is Request
        assert type(req.id) in (int, str)
        assert type(req.verb) is str
        assert type(req.params) is dict
        return req
    assert error.code in ("protocol.parse", "protocol.invalid_request"), error.code
    assert not error.close
    if error.code == "protocol.parse":
        assert getattr(error, "id", None) is None
    return None


def one_stream(lines: list[bytes], rng: random.Random, raw: bytes) -> None:
    max_frame = rng.choice((16, 64, 256, 4096, 1 << 20))
    data = b"\n".join(lines) + rng.choice((b"", b"\n", b"\r\n", b" \t\n"))
    if rng.random() < 0.15:
        data = raw
    whole = decode_stream([data], max_frame)
    split = decode_stream(chunks(data, rng), max_frame)
    if whole is not None and split is not None:
        assert whole == split, "chunking changed the lines"
    for line in whole or split or []:
        check_request(line)
    server_max = rng.choice((4096, 65536, 1 << 20))
    served = serve([data], server_max, fast=True)
    assert served == serve(chunks(data, rng), server_max, fast=rng.random() < 0.5)
    check_output(served, binary=data[:1] == b"\xf5")


def one_example(fuzz: Fuzz, rng: random.Random, raw: bytes) -> None:
    objs = [request_object(rng) for _ in range(rng.randint(1, 4))]
    clean = [encode(o, rng) for o in objs]
    for obj, line in zip(objs, clean, strict=True):
        req = fuzz.run(check_request, line)
        if req is not None:  # a request that parses must come back unchanged
            assert (req.id, req.verb, req.params) == (obj["id"], obj["verb"], obj.get("params", {}))
    for _ in range(PER_EXAMPLE - len(clean)):
        mutated = [mutate(line, rng, HOSTILE) if rng.random() < 0.7 else line for line in clean]
        fuzz.run(one_stream, mutated, rng, raw)


def test_ndjson_decoder_and_parser_survive_any_stream(fuzz: Fuzz) -> None:
    """RFC-0002 §4.1, §4.6: bad lines give protocol.parse/invalid_request/too_large only."""

    @fuzz.settings(PER_EXAMPLE)
    @seed(fuzz.seed)
    @given(rng_seed=st.integers(0, 2**64 - 1), raw=st.binary(max_size=300))
    def run(rng_seed: int, raw: bytes) -> None:
        one_example(fuzz, random.Random(rng_seed), raw)

    run()


def test_valid_request_roundtrips() -> None:
    """A request built from real members parses back to the same id, verb and params."""
    line = b'{"id":"a","verb":"echo","params":{"text":"\\u00e9"},"extra":1}'
    req = parse_request(line)
    assert (req.id, req.verb, req.params) == ("a", "echo", {"text": "é"})
