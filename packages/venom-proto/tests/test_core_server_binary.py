"""The server core on binary frames (RFC-0002 5, 6.4): frames in, frames out, no socket."""

from __future__ import annotations

import struct
from typing import Any

import orjson
import pytest
from core_kit import ECHO_BYTES, CoreApp
from hypothesis import given, settings
from hypothesis import strategies as st

from venom_proto import VenomError
from venom_proto._core.frames import (
    CLOSE,
    CONTROL,
    ERROR,
    HELLO,
    HELLO_OK,
    PING,
    PONG,
    Frame,
    FrameDecoder,
    encode_frame,
)
from venom_proto._core.server_events import HelloSettled


def frame(type_: int, stream: int, payload: bytes) -> bytes:
    return struct.pack(">HII", type_, stream, len(payload)) + payload


def hello(**params: Any) -> bytes:
    return b"\xf5" + frame(HELLO, 0, orjson.dumps({"proto": [1], **params}))


def control(obj: Any) -> bytes:
    return frame(CONTROL, 0, orjson.dumps(obj))


def frames(out: bytes) -> list[Frame]:
    return FrameDecoder(16 * 1024 * 1024).feed(out)


def settled(caps: list[str] | None = None, **options: Any) -> CoreApp:
    app = CoreApp(options=options)
    (ok,) = frames(app.feed(hello(caps=caps or ["cancel", "t.bytes"])))
    assert ok.type == HELLO_OK
    return app


def error_of(f: Frame) -> dict[str, Any]:
    assert f.type == ERROR
    result: dict[str, Any] = orjson.loads(f.payload)
    return result


def test_hello_then_control_and_tool_frames() -> None:
    app = settled()
    out = app.feed(
        control({"id": 1, "verb": "echo", "params": {"a": 1}})
        + frame(PING, 0, b"x" * 64)
        + frame(PONG, 0, b"")
        + frame(CLOSE, 3, b"")
        + frame(ERROR, 3, b"{}")
        + frame(ECHO_BYTES, 1, b"hi\n")
    )
    assert frames(out) == [
        Frame(CONTROL, 0, b'{"id":1,"ok":{"a":1}}'),
        Frame(PONG, 0, b"x" * 64),
    ]
    assert app.frames == [Frame(ECHO_BYTES, 1, b"hi\n")]
    assert not app.closed


@pytest.mark.parametrize(
    "first",
    [frame(CONTROL, 0, b"{}"), frame(PING, 0, b""), frame(ECHO_BYTES, 1, b"x")],
)
def test_first_frame_must_be_hello(first: bytes) -> None:
    """RFC-0002 §6.4: anything before HELLO is hello_required, and the connection closes."""
    app = CoreApp()
    (err,) = frames(app.feed(b"\xf5" + first))
    assert error_of(err)["code"] == "protocol.hello_required"
    assert app.closed


@pytest.mark.parametrize(
    ("payload", "code"),
    [
        (b"not json", "protocol.parse"),
        (b"[1]", "protocol.parse"),
        (b'{"proto":[99]}', "protocol.version_mismatch"),
        (b'{"proto":[1],"max_frame":1}', "invalid_params.range"),
    ],
)
def test_hello_failures_close(payload: bytes, code: str) -> None:
    """RFC-0002 §5.2: an ERROR on stream 0 closes the connection, so hello errors are fatal."""
    app = CoreApp()
    (err,) = frames(app.feed(b"\xf5" + frame(HELLO, 0, payload)))
    assert err.stream == 0
    assert error_of(err)["code"] == code
    assert app.closed


@pytest.mark.parametrize(
    "bad",
    [
        frame(0x0007, 0, b""),  # a reserved core type
        frame(HELLO_OK, 0, b"{}"),  # a server-only frame
        frame(0x0101, 1, b""),  # a tool type no capability defines
        frame(0xF000, 1, b""),  # experimental
        frame(PING, 0, b"x" * 65),
        frame(CONTROL, 1, b"{}"),
        frame(HELLO, 0, b'{"proto":[1]}'),  # a second HELLO
    ],
)
def test_bad_frames_close_after_answering_what_came_before(bad: bytes) -> None:
    """RFC-0002 §5.2, issue 12 §2: the request before the bad frame is answered, then the
    ERROR on stream 0, then the close; nothing after it is read."""
    app = settled(caps=["cancel"])
    out = frames(
        app.feed(control({"id": 1, "verb": "ping"}) + bad + control({"id": 2, "verb": "ping"}))
    )
    assert out[0] == Frame(CONTROL, 0, b'{"id":1,"ok":{}}')
    assert error_of(out[1])["code"] in {"protocol.bad_frame", "protocol.hello_order"}
    assert len(out) == 2
    assert app.closed


def test_tool_frame_without_its_negotiated_capability_closes() -> None:
    """RFC-0002 §5.2: a tool frame type whose capability was not negotiated is bad_frame."""
    app = settled(caps=["cancel"])
    (err,) = frames(app.feed(frame(ECHO_BYTES, 1, b"hi")))
    assert error_of(err)["code"] == "protocol.bad_frame"
    assert app.frames == []
    assert app.closed


def test_hello_on_a_stream_other_than_zero_is_bad_frame() -> None:
    app = CoreApp()
    (err,) = frames(app.feed(b"\xf5" + frame(HELLO, 1, b'{"proto":[1]}')))
    assert error_of(err)["code"] == "protocol.bad_frame"
    assert app.closed


def test_frame_type_zero_and_too_long_frames_after_a_request() -> None:
    """Issue 12 §2: a type-0 frame or a frame longer than max_frame in the same read as a
    request: the request is answered first."""
    for bad, code in (
        (frame(0, 0, b""), "protocol.bad_frame"),
        (struct.pack(">HII", 16, 0, 2**21), "protocol.too_large"),
    ):
        app = settled()
        out = frames(app.feed(control({"id": 1, "verb": "ping"}) + bad))
        assert out[0] == Frame(CONTROL, 0, b'{"id":1,"ok":{}}')
        assert error_of(out[1])["code"] == code


def test_negotiated_max_frame_applies_from_the_frame_after_hello() -> None:
    """Issue 12 §2: a 5000-byte frame behind HELLO(max_frame 4096) in the same read is
    protocol.too_large, never echoed."""
    app = CoreApp()
    data = hello(caps=["t.bytes"], max_frame=4096) + frame(ECHO_BYTES, 1, b"b" * 5000)
    out = frames(app.feed(data))
    assert out[0].type == HELLO_OK
    assert error_of(out[1]) == {
        "code": "protocol.too_large",
        "message": "message longer than max_frame (4096 bytes)",
        "data": {"max_frame": 4096},
    }
    assert app.frames == []
    assert app.closed


def test_negotiated_max_frame_applies_to_a_header_already_read() -> None:
    app = CoreApp()
    out = frames(app.feed(hello(max_frame=4096) + struct.pack(">HII", ECHO_BYTES, 1, 5000)))
    assert error_of(out[1])["code"] == "protocol.too_large"


def test_control_errors_fit_max_frame() -> None:
    """Issue 12 §2: CONTROL error payloads are cut to max_frame like NDJSON lines."""
    app = CoreApp()
    app.feed(hello(max_frame=4096))
    out = frames(app.feed(control({"id": 1, "verb": "v" * 4000})))
    assert len(out[0].payload) <= 4096
    assert orjson.loads(out[0].payload)["error"]["code"] == "unsupported.verb"


def test_server_frames_are_bounded_by_max_frame() -> None:
    """Issue 12 §2: a tool frame handler cannot send a frame longer than max_frame."""
    app = settled(max_frame=4096)
    with pytest.raises(VenomError) as info:
        app.conn.send_frame(ECHO_BYTES, 1, b"x" * 4097)
    assert info.value.code == "internal.too_large"
    app.conn.send_frame(ECHO_BYTES, 1, b"x" * 4096)
    assert frames(bytes(app.conn.data_to_send())) == [Frame(ECHO_BYTES, 1, b"x" * 4096)]


def test_even_streams_the_server_never_opened() -> None:
    """RFC-0002 §5.1, rfcs/0002 D-W13: an ERROR on that stream; the connection stays."""
    app = settled()
    (err,) = frames(app.feed(frame(ECHO_BYTES, 2, b"x")))
    assert err.stream == 2
    assert error_of(err)["code"] == "protocol.bad_frame"
    app.conn.send_frame(ECHO_BYTES, 4, b"opened")
    app.conn.data_to_send()
    app.feed(frame(ECHO_BYTES, 4, b"y"))
    assert app.frames == [Frame(ECHO_BYTES, 4, b"y")]
    assert not app.closed


def test_close_or_error_on_stream_zero_ends_the_connection() -> None:
    for type_ in (CLOSE, ERROR):
        app = settled()
        assert app.feed(frame(type_, 0, b"{}")) == b""
        assert app.closed


def test_stream_error_on_stream_zero_closes() -> None:
    app = settled()
    app.conn.send_stream_error(0, VenomError("internal", "x"))
    assert app.closed


def test_shutdown_cancels_then_sends_close() -> None:
    """RFC-0002 §2.5 step 7: calls end cancelled, then CLOSE on stream 0."""
    app = settled()
    app.feed(control({"id": 1, "verb": "events"}))
    app.conn.shutdown("daemon shutting down")
    out = frames(bytes(app.conn.data_to_send()))
    assert orjson.loads(out[0].payload) == {
        "id": 1,
        "error": {"code": "cancelled", "message": "daemon shutting down"},
    }
    assert out[1] == Frame(CLOSE, 0, b'{"reason":"daemon shutting down"}')


def test_partial_frame_at_end_of_input_is_bad_frame() -> None:
    app = settled()
    app.feed(frame(ECHO_BYTES, 1, b"abc")[:-1])
    (err,) = frames(app.feed(b""))
    assert error_of(err)["code"] == "protocol.bad_frame"
    assert app.closed


def test_hello_deadline_runs_until_hello() -> None:
    app = CoreApp(options={"hello_timeout": 3.0})
    whole = hello()
    app.feed(whole[:1])
    first = app.conn.deadline
    assert first is not None
    assert (first.kind, first.seconds) == ("hello", 3.0)
    app.feed(whole[1:-2])
    assert app.conn.deadline is first  # partial frames do not restart it
    app.feed(whole[-2:])
    assert isinstance(app.events[-1], HelloSettled)
    assert app.conn.deadline is None


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 0x110), st.integers(0, 4), st.binary(max_size=30)),
        max_size=6,
    ),
    st.data(),
)
def test_arbitrary_frames_in_any_chunking(
    specs: list[tuple[int, int, bytes]], data: st.DataObject
) -> None:
    """Any frames, chunked any way: the same output as one read, and every output frame
    is a valid frame within max_frame."""
    stream = hello(caps=["t.bytes"]) + b"".join(
        struct.pack(">HII", t, s, len(p)) + p for t, s, p in specs
    )
    whole = CoreApp().feed(stream)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=8)))
    chunked, pos = CoreApp(), 0
    out = b""
    for cut in [*cuts, len(stream)]:
        if stream[pos:cut]:
            out += chunked.feed(stream[pos:cut])
        pos = max(pos, cut)
    assert out == whole
    assert all(len(f.payload) <= 1048576 for f in frames(whole))
    assert encode_frame(1, 0, b"") == frame(1, 0, b"")


def test_control_requests_keep_the_id_bounds() -> None:
    """RFC-0002 §4.1-4.2 over CONTROL frames: 65-byte strings and 2**53 are no ids."""
    app = settled()
    ids: list[Any] = [2**53 - 1, 2**53, "x" * 64, "x" * 65]
    out = frames(app.feed(b"".join(control({"id": i, "verb": "ping"}) for i in ids)))
    got = [orjson.loads(f.payload) for f in out]
    assert [r["id"] for r in got] == [2**53 - 1, None, "x" * 64, None]
    assert [r.get("error", {}).get("code") for r in got] == [
        None,
        "protocol.invalid_request",
        None,
        "protocol.invalid_request",
    ]
