"""The core's fast path against its general path: the same bytes for any input, any chunking.

The fast path (sync verbs answered inline, `InlineRunner`) is the only second copy of the
admission checks; this property test is what keeps it honest. Every stream is fed whole to a
core without the fast path and in random chunks to one with it (and the other way round), and
the bytes written must be identical. Replies are also checked against the RFC directly: every
line fits max_frame, carries exactly one of ok/error, and never echoes an id the RFC does not
allow (so a path that accepted a 65-byte string id or the integer 2**53 fails here).
"""

from __future__ import annotations

import json
from typing import Any

import orjson
from core_kit import CoreApp
from hypothesis import given, settings
from hypothesis import strategies as st

from venom_proto._core.errors import is_valid_id

EDGE_INTS = [0, 1, -1, 2**53 - 1, 2**53, -(2**53 - 1), -(2**53), 2**63, 10**30]
ids = st.one_of(
    st.sampled_from(EDGE_INTS),
    st.integers(0, 20),
    st.text(alphabet="aé😀", min_size=0, max_size=20),
    st.sampled_from(["x" * 16, "x" * 17, "x" * 64, "x" * 65, "é" * 32, "é" * 33]),
    st.sampled_from([None, True, 1.5, [1], {"a": 1}]),
)
verbs = st.sampled_from(
    ["echo", "fail", "boom", "big", "unencodable", "gated", "wait", "events", "ping", "cancel",
     "hello", "nope", "v" * 300]
)  # fmt: skip
params = st.one_of(
    st.just({}),
    st.fixed_dictionaries({"size": st.integers(0, 5000)}),
    st.fixed_dictionaries({"id": ids}),
    st.fixed_dictionaries({"thing": st.text(max_size=40)}),
    st.fixed_dictionaries({"proto": st.just([1]), "max_frame": st.sampled_from([4096, 8192])}),
    st.sampled_from([None, [], "x"]),
)


@st.composite
def request_line(draw: st.DrawFn) -> bytes:
    obj: dict[str, Any] = {}
    if draw(st.integers(0, 9)):
        obj["id"] = draw(ids)
    obj["verb"] = draw(verbs)
    shape = draw(st.integers(0, 9))
    if shape < 8:
        obj["params"] = draw(params)
    elif shape == 8:
        del obj["verb"]
    line = json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()  # ints > 64 bits
    return line + draw(st.sampled_from([b"", b" ", b"\r", b" \t\r"]))


noise = st.one_of(
    st.just(b""),
    st.just(b"not json"),
    st.just(b"[1]"),
    st.just(b"{"),
    st.binary(max_size=20).map(lambda b: b.replace(b"\n", b"")),
    st.integers(4000, 6000).map(
        lambda n: b'{"id":1,"verb":"echo","params":{"p":"' + b"p" * n + b'"}}'
    ),
)

stream = st.tuples(
    st.booleans(),  # starts with a hello (else: the implicit one)
    st.sampled_from([4096, 1048576]),
    st.lists(st.one_of(request_line(), request_line(), noise), max_size=30),
    st.booleans(),  # ends with end of input
)


def build(start_hello: bool, max_frame: int, lines: list[bytes]) -> bytes:
    head = []
    if start_hello:
        hello = {"proto": [1], "caps": ["cancel", "t.gated"], "max_frame": max_frame}
        head.append(orjson.dumps({"id": "h", "verb": "hello", "params": hello}))
    else:
        head.append(b'{"id":"p0","verb":"ping"}')
    return b"\n".join([*head, *lines]) + b"\n"


def run(fast: bool, data: bytes, cuts: list[int], eof: bool) -> tuple[bytes, CoreApp]:
    app = CoreApp(fast=fast)
    out, pos = b"", 0
    for cut in [*sorted(cuts), len(data)]:
        if cut > pos:
            out += app.feed(data[pos:cut])
            pos = cut
    if eof:
        out += app.feed(b"")
    return out, app


def check_replies(out: bytes, max_frame: int) -> None:
    for line in out.splitlines(keepends=True):
        assert len(line) <= 1048576
        assert line.endswith(b"\n")
        reply = orjson.loads(line)
        assert next(iter(reply)) == "id"
        assert len(reply) == 2
        assert ("ok" in reply) != ("error" in reply)
        assert reply["id"] is None or is_valid_id(reply["id"]), reply["id"]


@settings(max_examples=600, deadline=None)
@given(stream, st.data())
def test_fast_and_general_paths_write_the_same_bytes(
    case: tuple[bool, int, list[bytes], bool], data: st.DataObject
) -> None:
    start_hello, max_frame, lines, eof = case
    raw = build(start_hello, max_frame, lines)
    cuts = data.draw(st.lists(st.integers(0, len(raw)), max_size=10))
    fast_out, fast_app = run(True, raw, cuts, eof)
    general_out, general_app = run(False, raw, [], eof)
    assert fast_out == general_out
    assert fast_app.deferred == general_app.deferred
    assert fast_app.closed == general_app.closed
    check_replies(fast_out, max_frame)
    # and the other way round: the general path chunked, the fast path whole
    general_chunked, _ = run(False, raw, cuts, eof)
    assert general_chunked == fast_out


@settings(max_examples=300, deadline=None)
@given(st.lists(request_line(), min_size=1, max_size=20), st.data())
def test_every_chunking_gives_the_malformed_input_table(
    lines: list[bytes], data: st.DataObject
) -> None:
    """RFC-0002 §4.6 holds for every chunking: one byte at a time equals one read."""
    raw = build(True, 1048576, lines)
    whole, _ = run(True, raw, [], True)
    bytewise, _ = run(True, raw, list(range(len(raw))), True)
    assert whole == bytewise
