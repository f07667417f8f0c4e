"""The clients' sans-I/O core, wired back to back with the server core (no sockets)."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from core_kit import Pair
from hypothesis import given, settings
from hypothesis import strategies as st

from venom_proto import ProtocolViolation, VenomError
from venom_proto._client_binary import BinaryClientCore
from venom_proto._client_core import ClientCore, hello_params, raise_for
from venom_proto._core._json import dumps, loads, std_dumps, std_loads
from venom_proto._core.frames import (
    CLOSE,
    CONTROL,
    ERROR,
    HELLO_OK,
    PING,
    PONG,
    Frame,
    FrameDecoder,
    encode_frame,
)
from venom_proto._core.messages import encode_item, encode_ok
from venom_proto._core.replies import Reply

HELLO = hello_params(client_name="t", client_version="0", caps=("cancel",))


def std_core(**kw: Any) -> ClientCore:
    return ClientCore(loads=std_loads, dumps=std_dumps, **kw)


@pytest.mark.parametrize(
    "codec", [(loads, dumps), (std_loads, std_dumps)], ids=["orjson", "stdlib"]
)
def test_hello_and_calls_back_to_back(codec: Any) -> None:
    """The client core against the server core (h11's ConnectionPair): no socket."""
    core = ClientCore(loads=codec[0], dumps=codec[1])
    pair = Pair(core)
    first = core.start(HELLO)
    assert first.startswith(b'{"id":1,"verb":"hello","params":{"proto":[1]')
    pair.send(first)
    assert core.hello_done
    assert core.hello()["caps"] == ["cancel"]
    a, data_a = core.request("echo", {"x": 1})
    b, data_b = core.request("events", {})
    out = pair.app.feed(data_a + data_b)
    pair.app.conn.send_item(b, 0)
    pair.app.conn.send_item(b, 1)
    out += pair.app.answer(b, {"count": 2})
    # replies arrive one byte at a time, in any chunking: the core reassembles them
    for byte in out:
        core.receive_data(bytes([byte]))
    assert raise_for(core.next_reply(a)) == {"x": 1}  # type: ignore[arg-type]
    assert [core.next_reply(b) for _ in range(3)] == [
        Reply(b, "item", 0),
        Reply(b, "item", 1),
        Reply(b, "ok", {"count": 2}),
    ]
    assert core.in_flight == frozenset()


def test_hello_negotiates_max_frame_on_both_cores() -> None:
    core = std_core(max_frame=4096)
    pair = Pair(core)
    pair.send(core.start(hello_params(client_name="t", client_version="0", max_frame=4096)))
    assert core.max_frame == pair.app.conn.max_frame == 4096
    id_, data = core.request("v" * 4000)  # the error repeats the name, and still fits
    pair.send(data)
    reply = core.next_reply(id_)
    assert reply is not None
    assert reply.kind == "error"
    assert reply.value.code == "unsupported.verb"


def test_ids_are_unique_and_increasing() -> None:
    """RFC-0002 §4.2: an id MUST be unique among the client's in-flight requests."""
    core = std_core()
    core.start(HELLO)
    ids = [core.request("echo")[0] for _ in range(5)]
    assert ids == [2, 3, 4, 5, 6]


def test_error_replies_raise_venom_error() -> None:
    core = std_core()
    pair = Pair(core)
    pair.send(core.start(HELLO))
    id_, data = core.request("fail", {"thing": "x"})
    pair.send(data)
    reply = core.next_reply(id_)
    assert reply is not None
    with pytest.raises(VenomError, match="not_found"):
        raise_for(reply)


def test_hello_error_is_raised_by_hello() -> None:
    core = std_core()
    core.start({"proto": [99]})
    core.receive_data(
        b'{"id":1,"error":{"code":"protocol.version_mismatch","message":"m",'
        b'"data":{"supported":[1]}}}\n'
    )
    assert core.hello_done
    with pytest.raises(VenomError) as info:
        core.hello()
    assert info.value.data == {"supported": [1]}


def test_id_null_error_is_fatal() -> None:
    core = std_core()
    core.start(HELLO)
    with pytest.raises(VenomError) as info:
        core.receive_data(b'{"id":null,"error":{"code":"protocol.bad_preamble","message":"m"}}\n')
    assert info.value.code == "protocol.bad_preamble"


@pytest.mark.parametrize("line", [b"garbage\n", b'{"id":1}\n', b'{"id":2,"ok":1,"error":{}}\n'])
def test_garbage_from_the_server_is_invalid_reply(line: bytes) -> None:
    core = std_core()
    core.start(HELLO)
    with pytest.raises(ProtocolViolation) as info:
        core.receive_data(line)
    assert info.value.code == "protocol.invalid_reply"


def test_replies_for_forgotten_ids_are_dropped() -> None:
    core = std_core()
    core.start(HELLO)
    core.receive_data(b'{"id":1,"ok":{"max_frame":4096}}\n')
    id_, _ = core.request("echo")
    core.forget(id_)
    assert core.receive_data(b'{"id":2,"item":1}\n{"id":2,"ok":1}\n{"id":99,"ok":1}\n') == []
    with pytest.raises(KeyError):
        core.next_reply(id_)


def test_negotiated_max_frame_limits_requests_and_replies() -> None:
    """RFC-0002 §6.2: max_frame applies in both directions after hello."""
    core = std_core()
    core.start(HELLO)
    core.receive_data(b'{"id":1,"ok":{"proto":1,"caps":[],"max_frame":4096}}\n')
    assert core.max_frame == 4096
    with pytest.raises(VenomError, match="too_large"):
        core.request("echo", {"text": "x" * 4096})
    with pytest.raises(ProtocolViolation, match="too_large"):
        core.receive_data(b"x" * 4096)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(1, 7), max_size=30))
def test_chunking_never_changes_replies(sizes: list[int]) -> None:
    core = std_core()
    core.start(HELLO)
    stream = (
        b'{"id":1,"ok":{"max_frame":65536}}\r\n\n'
        + encode_item(2, "a")
        + encode_item(2, "b")
        + encode_ok(2, None)
    )
    core.request("count")
    pos = 0
    for size in [*sizes, len(stream)]:
        core.receive_data(stream[pos : pos + size])
        pos += size
    assert [core.next_reply(2) for _ in range(3)] == [
        Reply(2, "item", "a"),
        Reply(2, "item", "b"),
        Reply(2, "ok", None),
    ]


# -- binary -------------------------------------------------------------------------------


def test_binary_core_opens_with_preamble_and_hello_frame() -> None:
    """RFC-0002 §5.3: 0xF5, then HELLO on stream 0; verbs then ride CONTROL frames."""
    core = BinaryClientCore(loads=loads, dumps=dumps)
    opening = core.start({"proto": [1]})
    assert opening == b"\xf5" + encode_frame(1, 0, b'{"proto":[1]}')
    result = {"proto": 1, "server": {}, "caps": ["x.bytes"], "max_frame": 8192}
    core.receive_data(encode_frame(HELLO_OK, 0, dumps(result)))
    assert core.hello() == result
    id_, data = core.request("ping")
    assert FrameDecoder().feed(data) == [Frame(CONTROL, 0, b'{"id":1,"verb":"ping","params":{}}')]
    core.receive_data(encode_frame(CONTROL, 0, encode_ok(id_, {})[:-1]))
    assert core.next_reply(id_) == Reply(1, "ok", {})
    assert [core.open_stream() for _ in range(3)] == [1, 3, 5]


def test_binary_core_routes_frames() -> None:
    core = BinaryClientCore(loads=loads, dumps=dumps)
    core.start({"proto": [1]})
    core.receive_data(
        encode_frame(HELLO_OK, 0, b'{"max_frame":4096}')
        + encode_frame(0x0100, 1, b"hi")
        + encode_frame(PING, 0, b"p")
        + encode_frame(PONG, 0, b"")
        + encode_frame(CLOSE, 3, b"")
    )
    assert list(core.frames) == [Frame(0x0100, 1, b"hi"), Frame(CLOSE, 3, b"")]
    assert core.data_to_send() == encode_frame(PONG, 0, b"p")
    assert core.data_to_send() == b""
    with pytest.raises(VenomError, match="too_large"):
        core.frame(0x0100, 1, b"x" * 4097)
    core.receive_data(encode_frame(ERROR, 0, b'{"code":"internal","message":"bye"}'))
    assert core.closed_by_server == VenomError("internal", "bye")


def test_binary_hello_refused_with_error_frame() -> None:
    core = BinaryClientCore(loads=loads, dumps=dumps)
    core.start({"proto": [99]})
    core.receive_data(encode_frame(ERROR, 0, b'{"code":"protocol.version_mismatch","message":"m"}'))
    with pytest.raises(VenomError, match="version_mismatch"):
        core.hello()


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200), st.booleans())
def test_arbitrary_server_bytes_only_raise_venom_error(data: bytes, binary: bool) -> None:
    core: ClientCore = (BinaryClientCore if binary else ClientCore)(loads=loads, dumps=dumps)
    core.start(HELLO)
    with contextlib.suppress(VenomError):
        core.receive_data(data)
