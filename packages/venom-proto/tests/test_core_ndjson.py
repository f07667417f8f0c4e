"""NDJSON line splitting (RFC-0002 4.1): any chunking, trailing whitespace, max_frame."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from venom_proto import ProtocolViolation
from venom_proto._core.ndjson import DEFAULT_MAX_FRAME, LineDecoder


def feed_in_chunks(
    data: bytes, sizes: list[int], max_frame: int = DEFAULT_MAX_FRAME
) -> list[bytes]:
    decoder = LineDecoder(max_frame)
    lines: list[bytes] = []
    pos = 0
    for size in sizes:
        lines += decoder.feed(data[pos : pos + size])
        pos += size
    lines += decoder.feed(data[pos:])
    return lines


def test_many_lines_per_feed_and_partial_tail() -> None:
    decoder = LineDecoder()
    assert decoder.feed(b'{"a":1}\n{"b":2}\n{"c"') == [b'{"a":1}', b'{"b":2}']
    assert decoder.buffered == 4
    assert decoder.feed(b":3}\n") == [b'{"c":3}']
    assert decoder.buffered == 0


def test_whitespace_before_newline_is_ignored() -> None:
    """RFC-0002 §4.1: receivers MUST ignore whitespace before the \\n (a \\r\\n sender too)."""
    decoder = LineDecoder()
    assert decoder.feed(b"{}\r\n{} \t \r\n") == [b"{}", b"{}"]
    assert decoder.feed(b"{}  ") == []
    assert decoder.feed(b"\r\n") == [b"{}"]


def test_blank_lines_are_skipped() -> None:
    assert LineDecoder().feed(b"\n\r\n \t\n{}\n\n") == [b"{}"]


def test_one_byte_at_a_time() -> None:
    data = b'{"id":1}\r\n\n{"id":2}\n'
    assert feed_in_chunks(data, [1] * len(data)) == [b'{"id":1}', b'{"id":2}']


@pytest.mark.parametrize("chunked", [False, True])
def test_line_of_exactly_max_frame_passes_one_more_fails(chunked: bool) -> None:
    """RFC-0002 §4.1: a message including its \\n MUST NOT exceed max_frame."""
    limit = 4096
    ok = b"x" * (limit - 1) + b"\n"
    sizes = [100] * 41 if chunked else []
    assert feed_in_chunks(ok, sizes, limit) == [b"x" * (limit - 1)]
    with pytest.raises(ProtocolViolation) as info:
        feed_in_chunks(b"x" * limit + b"\n", sizes, limit)
    assert info.value.code == "protocol.too_large"
    assert info.value.close is True


def test_too_large_is_raised_before_the_newline_arrives() -> None:
    """RFC-0002 §4.1: the limit is enforced while scanning, so memory stays bounded."""
    decoder = LineDecoder(4096)
    decoder.feed(b"x" * 4095)
    with pytest.raises(ProtocolViolation, match="too_large"):
        decoder.feed(b"x")


def test_sixteen_mib_without_newline_is_linear_and_bounded() -> None:
    """Fed in 4 KiB chunks, a newline-free flood is refused after max_frame bytes, quickly."""
    decoder = LineDecoder(16 * 1024 * 1024)
    chunk = b"a" * 4096
    fed = 0
    started = time.perf_counter()

    def flood() -> None:
        nonlocal fed
        while fed < 17 * 1024 * 1024:
            decoder.feed(chunk)
            fed += len(chunk)
            assert decoder.buffered <= 16 * 1024 * 1024

    with pytest.raises(ProtocolViolation):
        flood()
    assert fed == 16 * 1024 * 1024 - 4096  # refused on the chunk that reaches the limit
    # Rescanning from the start on each feed would be quadratic: ~2**31 byte comparisons.
    assert time.perf_counter() - started < 2.0


LINES = st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")), max_size=8).map(
    lambda ls: b"".join(line + b"\n" for line in ls)
)


@settings(max_examples=300, deadline=None)
@given(LINES, st.lists(st.integers(1, 17), max_size=30))
def test_any_chunking_gives_the_same_lines(data: bytes, sizes: list[int]) -> None:
    assert feed_in_chunks(data, sizes) == feed_in_chunks(data, [])


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300), st.lists(st.integers(1, 9), max_size=40))
def test_arbitrary_bytes_only_raise_protocol_violation(data: bytes, sizes: list[int]) -> None:
    try:
        lines = feed_in_chunks(data, sizes, max_frame=64)
    except ProtocolViolation as exc:
        code: str | None = exc.code
    else:
        code = None
        assert all(b"\n" not in line and line == line.rstrip(b" \t\r") for line in lines)
    assert code in {None, "protocol.too_large"}
