"""The server connection state machine (RFC-0002 4.2, 4.6, 5.2, 6.4), table-driven."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from venom_proto._core._json import dumps
from venom_proto._core.connection import ServerConnectionState
from venom_proto._core.errors import ProtocolViolation, VenomError
from venom_proto._core.frames import CLOSE, CONTROL, ERROR, HELLO, HELLO_OK, PING, PONG, Frame
from venom_proto._core.hello import IMPLICIT_HELLO, HelloOutcome
from venom_proto._core.messages import Request

ECHO_BYTES = 0x0100


def state(**kw: Any) -> ServerConnectionState:
    options: dict[str, Any] = {
        "server_name": "venom-echo",
        "server_version": "0.1.0",
        "caps": frozenset({"cancel", "venom-echo.bytes"}),
        "frame_caps": {ECHO_BYTES: "venom-echo.bytes"},
    }
    options.update(kw)
    return ServerConnectionState(**options)


def hello(id_: int | str = 1, **params: Any) -> Request:
    return Request(id_, "hello", {"proto": [1], **params})


def call(id_: int | str, verb: str = "echo") -> Request:
    return Request(id_, verb, {})


def expect(conn: ServerConnectionState, req: Request, code: str) -> VenomError:
    with pytest.raises(VenomError) as info:
        conn.receive_request(req)
    assert info.value.code == code
    return info.value


def test_hello_then_calls() -> None:
    conn = state()
    outcome = conn.receive_request(hello(caps=["cancel"]))
    assert isinstance(outcome, HelloOutcome)
    assert conn.caps == frozenset({"cancel"})
    assert conn.receive_request(call(2)) is None
    assert conn.in_flight == {2}
    conn.finish(2)
    assert conn.in_flight == set()


def test_first_request_without_hello_gets_the_implicit_hello() -> None:
    """RFC-0002 §6.4: the server behaves as if it had received {"proto":[1]}."""
    conn = state()
    assert conn.receive_request(call(1)) is None
    assert conn.hello is IMPLICIT_HELLO
    assert conn.caps == frozenset()


def test_implicit_hello_refused_without_version_1() -> None:
    """RFC-0002 §6.4: version_mismatch on the first request, then close."""
    err = expect(state(versions=(2,)), call(5), "protocol.version_mismatch")
    assert isinstance(err, ProtocolViolation)
    assert (err.id, err.close, err.data) == (5, True, {"supported": [2]})


@pytest.mark.parametrize(
    "before", [[hello(1)], [call(1)], [call(1), hello(2)]], ids=["second", "late", "third"]
)
def test_hello_after_hello_or_after_a_request_is_hello_order(before: list[Request]) -> None:
    """RFC-0002 §6.4: a hello after any other request, or a second hello, is hello_order."""
    conn = state()
    for req in before:
        with contextlib.suppress(VenomError):
            conn.receive_request(req)
    err = expect(conn, hello(9), "protocol.hello_order")
    assert isinstance(err, ProtocolViolation)
    assert err.id == 9
    assert err.close is False


def test_duplicate_in_flight_id_leaves_the_old_request_alone() -> None:
    """RFC-0002 §4.6: duplicate in-flight id -> protocol.duplicate_id; the old one unaffected."""
    conn = state()
    conn.receive_request(hello())
    conn.receive_request(call("a"))
    err = expect(conn, call("a"), "protocol.duplicate_id")
    assert isinstance(err, ProtocolViolation)
    assert err.id == "a"
    assert not err.close
    assert conn.in_flight == {"a"}
    conn.finish("a")
    assert conn.receive_request(call("a")) is None  # reusable once finished


def test_hello_may_reuse_no_in_flight_id_and_ids_1_and_true_are_distinct() -> None:
    conn = state()
    conn.receive_request(hello(1))
    assert conn.receive_request(call(1)) is None  # hello is answered at once, never in flight
    assert conn.receive_request(call("1")) is None
    assert conn.in_flight == {1, "1"}


def test_bad_hello_params_leave_the_connection_fresh() -> None:
    conn = state()
    expect(conn, Request(1, "hello", {"proto": []}), "invalid_params.range")
    assert conn.hello is None
    assert isinstance(conn.receive_request(hello(2)), HelloOutcome)


def test_version_mismatch_on_hello_carries_the_id() -> None:
    err = expect(state(), Request(4, "hello", {"proto": [99]}), "protocol.version_mismatch")
    assert isinstance(err, ProtocolViolation)
    assert (err.id, err.close) == (4, True)


def test_max_frame_follows_hello() -> None:
    conn = state(max_frame=65536)
    assert conn.max_frame == 65536
    conn.receive_request(hello(max_frame=8192))
    assert conn.max_frame == 8192


# -- binary --------------------------------------------------------------------------------


def binary_hello(**params: Any) -> Frame:
    return Frame(HELLO, 0, dumps({"proto": [1], **params}))


def frame_error(conn: ServerConnectionState, frame: Frame, code: str) -> None:
    with pytest.raises(ProtocolViolation) as info:
        conn.receive_frame(frame)
    assert (info.value.code, info.value.close) == (code, True)


@pytest.mark.parametrize(
    "first", [Frame(CONTROL, 0, b"{}"), Frame(PING, 0, b""), Frame(ECHO_BYTES, 1, b"x")]
)
def test_binary_first_frame_must_be_hello(first: Frame) -> None:
    """RFC-0002 §6.4: on binary connections anything before HELLO is hello_required (close)."""
    frame_error(state(binary=True), first, "protocol.hello_required")


def test_binary_control_request_before_hello_is_hello_required() -> None:
    conn = state(binary=True)
    with pytest.raises(ProtocolViolation) as info:
        conn.receive_request(call(1))
    assert (info.value.code, info.value.close) == ("protocol.hello_required", True)


def test_binary_hello_then_frames() -> None:
    """RFC-0002 §5.2: core frames pass; tool frames need their negotiated capability."""
    conn = state(binary=True)
    outcome = conn.receive_frame(binary_hello(caps=["cancel", "venom-echo.bytes"]))
    assert isinstance(outcome, HelloOutcome)
    assert "venom-echo.bytes" in outcome.caps
    for frame in (
        Frame(CONTROL, 0, b"{}"),
        Frame(PING, 0, b"x" * 64),
        Frame(PONG, 0, b""),
        Frame(CLOSE, 0, b""),
        Frame(CLOSE, 3, b""),
        Frame(ERROR, 3, b"{}"),
        Frame(ECHO_BYTES, 1, b"hi\n"),
    ):
        assert conn.receive_frame(frame) is frame
    frame_error(conn, binary_hello(), "protocol.hello_order")
    # a CONTROL hello after the HELLO frame is hello_order too
    expect(conn, hello(1), "protocol.hello_order")


@pytest.mark.parametrize(
    "frame",
    [
        Frame(0x0007, 0, b""),  # reserved core type
        Frame(0x0011, 0, b""),
        Frame(HELLO_OK, 0, b"{}"),  # a server-only frame
        Frame(0x0101, 1, b""),  # tool type no capability defines
        Frame(0xF000, 1, b""),  # experimental
        Frame(PING, 0, b"x" * 65),
        Frame(CONTROL, 1, b"{}"),
    ],
)
def test_binary_bad_frames_close(frame: Frame) -> None:
    """RFC-0002 §5.2: an unknown core type or a tool type outside the caps is bad_frame."""
    conn = state(binary=True)
    conn.receive_frame(binary_hello(caps=["venom-echo.bytes"]))
    frame_error(conn, frame, "protocol.bad_frame")


def test_binary_tool_frame_without_negotiated_cap_is_bad_frame() -> None:
    """RFC-0002 §5.2: a peer MUST NOT send a tool frame type outside the negotiated caps."""
    conn = state(binary=True)
    conn.receive_frame(binary_hello(caps=["cancel"]))
    frame_error(conn, Frame(ECHO_BYTES, 1, b"hi"), "protocol.bad_frame")


@pytest.mark.parametrize(
    ("payload", "code"),
    [
        (b"not json", "protocol.parse"),
        (b"[1]", "protocol.parse"),
        (b'{"proto":[99]}', "protocol.version_mismatch"),
        (b'{"proto":[1],"max_frame":1}', "invalid_params.range"),
    ],
)
def test_binary_hello_failures_close(payload: bytes, code: str) -> None:
    """RFC-0002 §5.2: an ERROR on stream 0 closes the connection, so hello errors are fatal."""
    frame_error(state(binary=True), Frame(HELLO, 0, payload), code)


def test_binary_hello_on_a_stream_is_bad_frame() -> None:
    frame_error(state(binary=True), Frame(HELLO, 1, b'{"proto":[1]}'), "protocol.bad_frame")


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.builds(Frame, st.integers(1, 0x110), st.integers(0, 4), st.binary(max_size=30)),
        max_size=5,
    )
)
def test_arbitrary_frames_only_raise_venom_error(frames: list[Frame]) -> None:
    conn = state(binary=True)
    for frame in [binary_hello(caps=["venom-echo.bytes"]), *frames]:
        with contextlib.suppress(VenomError):
            conn.receive_frame(frame)
