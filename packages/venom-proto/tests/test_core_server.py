"""The server core on NDJSON (RFC-0002 3, 4, 6.4): bytes in, replies out, no socket.

Every test runs on both of the core's paths where it can (``fast``: sync verbs answered inline;
``general``: as `CallStarted` events), since both must write the same bytes.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from core_kit import CoreApp

from venom_proto._core.fitting import TRUNCATED
from venom_proto._core.server_events import (
    PAUSED,
    CallCancelled,
    CallStarted,
    ConnectionClosed,
    HelloSettled,
)
from venom_proto._core.server_settings import CallBudget

HELLO = {"id": 0, "verb": "hello", "params": {"proto": [1], "caps": ["cancel"]}}


def lines(*objs: Any) -> bytes:
    return b"".join(orjson.dumps(obj) + b"\n" for obj in objs)


def replies(out: bytes) -> list[Any]:
    return [orjson.loads(line) for line in out.splitlines()]


@pytest.fixture(params=[True, False], ids=["fast", "general"])
def fast(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


def app_for(fast: bool, **options: Any) -> CoreApp:
    return CoreApp(fast=fast, options=options)


def test_socat_session_byte_for_byte(fast: bool) -> None:
    """RFC-0002 §1: hello, a call, an invalid call; one reply line each."""
    app = app_for(fast, name="venom-echo", version="0.1.0")
    out = app.feed(
        b'{"id":1,"verb":"hello","params":{"proto":[1],"client":{"name":"socat","version":"0"}}}\n'
        b'{"id":2,"verb":"echo","params":{"text":"hi"}}\n'
        b'{"id":3,"verb":"fail","params":{}}\n'
    )
    assert out.splitlines() == [
        b'{"id":1,"ok":{"proto":1,"server":{"name":"venom-echo","version":"0.1.0"},'
        b'"caps":["cancel"],"max_frame":1048576}}',
        b'{"id":2,"ok":{"text":"hi"}}',
        b'{"id":3,"error":{"code":"not_found.thing","message":"no thing None","data":{}}}',
    ]


def test_malformed_input_table(fast: bool) -> None:
    """RFC-0002 §4.6, in one read: each bad line gets its reply, the stream stays in sync."""
    app = app_for(fast)
    out = app.feed(
        lines({"id": 0, "verb": "ping"})
        + b"not json\n[1]\n"
        + lines(
            {"verb": "echo"},
            {"id": True, "verb": "echo"},
            {"id": 1.5, "verb": "echo"},
            {"id": 2},
            {"id": 3, "verb": 7},
            {"id": 4, "verb": "nope"},
            {"id": 5, "verb": "echo", "params": []},
            {"id": 6, "verb": "echo", "params": {"a": 1}},
        )
    )
    codes = [
        (r["id"], r["error"]["code"]) if "error" in r else (r["id"], "ok") for r in replies(out)
    ]
    assert codes == [
        (0, "ok"),
        (None, "protocol.parse"),
        (None, "protocol.parse"),
        (None, "protocol.invalid_request"),
        (None, "protocol.invalid_request"),
        (None, "protocol.invalid_request"),
        (2, "protocol.invalid_request"),
        (3, "protocol.invalid_request"),
        (4, "unsupported.verb"),
        (5, "protocol.invalid_request"),
        (6, "ok"),
    ]
    assert not app.closed


@pytest.mark.parametrize(
    ("id_", "accepted"),
    [
        (2**53 - 1, True),
        (-(2**53 - 1), True),
        (2**53, False),
        (-(2**53), False),
        ("x" * 64, True),
        ("x" * 65, False),
        ("é" * 32, True),  # 64 bytes of UTF-8
        ("é" * 33, False),
        ("😀" * 16, True),
        ("😀" * 17, False),  # 17 code points, 68 bytes
        ("", True),
    ],
)
def test_id_bounds_on_every_path(fast: bool, id_: Any, accepted: bool) -> None:
    """RFC-0002 §4.1, §4.2: ids are ints within ±(2^53-1) or strings of at most 64 bytes."""
    app = app_for(fast)
    app.feed(lines(HELLO))
    for verb in ("echo", "ping", "wait"):
        got = replies(app.feed(lines({"id": id_, "verb": verb, "params": {}})))
        if accepted:
            assert got == ([] if verb == "wait" else [{"id": id_, "ok": {}}])
        else:
            assert got == [
                {
                    "id": None,
                    "error": {
                        "code": "protocol.invalid_request",
                        "message": got[0]["error"]["message"],
                    },
                }
            ]
    # the same id as the target of a cancel
    cancel = lines({"id": "c", "verb": "cancel", "params": {"id": id_}})
    got = replies(app.feed(cancel))
    if accepted:  # the "wait" call above is the target
        assert got == [
            {"id": id_, "error": {"code": "cancelled", "message": "cancelled by client"}},
            {"id": "c", "ok": None},
        ]
    else:
        assert [r["error"]["code"] for r in got] == ["invalid_params.type"]


def test_duplicate_in_flight_id_leaves_the_first_alone(fast: bool) -> None:
    """RFC-0002 §4.6: protocol.duplicate_id for the new one; the old one still answers."""
    app = app_for(fast)
    out = app.feed(lines(HELLO, {"id": 7, "verb": "wait"}, {"id": 7, "verb": "echo"}))
    assert replies(out)[1]["error"]["code"] == "protocol.duplicate_id"
    assert replies(app.answer(7, "done")) == [{"id": 7, "ok": "done"}]
    assert replies(app.feed(lines({"id": 7, "verb": "echo", "params": {}}))) == [
        {"id": 7, "ok": {}}
    ]


def test_implicit_hello_is_version_1_without_caps(fast: bool) -> None:
    """RFC-0002 §6.4: a first request that is not hello settles version 1, no caps."""
    app = app_for(fast)
    out = app.feed(lines({"id": 1, "verb": "echo", "params": {}}, {"id": 2, "verb": "cancel"}))
    assert replies(out)[0] == {"id": 1, "ok": {}}
    assert replies(out)[1]["error"]["code"] == "unsupported.capability"
    settled = [e for e in app.events if isinstance(e, HelloSettled)]
    assert len(settled) == 1
    assert (settled[0].outcome.proto, settled[0].outcome.caps) == (1, frozenset())


def test_implicit_hello_without_version_1_closes(fast: bool) -> None:
    app = app_for(fast, versions=(2,))
    (reply,) = replies(app.feed(lines({"id": 5, "verb": "echo"}, {"id": 6, "verb": "echo"})))
    assert reply["id"] == 5
    assert reply["error"]["code"] == "protocol.version_mismatch"
    assert reply["error"]["data"] == {"supported": [2]}
    assert app.closed


@pytest.mark.parametrize("before", [[HELLO], [{"id": 1, "verb": "ping"}]])
def test_hello_after_hello_or_a_request_is_hello_order(fast: bool, before: list[Any]) -> None:
    app = app_for(fast)
    app.feed(lines(*before))
    (reply,) = replies(app.feed(lines({"id": 9, "verb": "hello", "params": {"proto": [1]}})))
    assert reply["id"] == 9
    assert reply["error"]["code"] == "protocol.hello_order"
    assert not app.closed


def test_bad_hello_params_leave_the_connection_fresh(fast: bool) -> None:
    app = app_for(fast)
    out = app.feed(lines({"id": 1, "verb": "hello", "params": {"proto": []}}, HELLO))
    assert replies(out)[0]["error"]["code"] == "invalid_params.range"
    assert replies(out)[1]["ok"]["proto"] == 1


def test_gated_verb_needs_its_capability(fast: bool) -> None:
    """RFC-0002 §6.3: a gated verb without its capability is unsupported.capability."""
    app = app_for(fast)
    app.feed(lines(HELLO))
    (reply,) = replies(app.feed(lines({"id": 1, "verb": "gated", "params": {}})))
    assert reply["error"]["code"] == "unsupported.capability"
    app = app_for(fast)
    app.feed(lines({"id": 0, "verb": "hello", "params": {"proto": [1], "caps": ["t.gated"]}}))
    assert replies(app.feed(lines({"id": 1, "verb": "gated", "params": {}}))) == [
        {"id": 1, "ok": {}}
    ]


def test_cancel_ends_the_target_before_its_own_null(fast: bool) -> None:
    """RFC-0002 §4.4: the target's cancelled error, then cancel's null, then the event."""
    app = app_for(fast)
    out = app.feed(
        lines(HELLO, {"id": 7, "verb": "events"}, {"id": 8, "verb": "cancel", "params": {"id": 7}})
    )
    assert out.splitlines()[1:] == [
        b'{"id":7,"error":{"code":"cancelled","message":"cancelled by client"}}',
        b'{"id":8,"ok":null}',
    ]
    assert CallCancelled(7, "client") in app.events
    app.conn.send_item(7, "late")  # the handler has not noticed yet: dropped
    app.conn.send_ok(7, None)
    assert app.conn.data_to_send() == b""


def test_cancel_param_errors(fast: bool) -> None:
    app = app_for(fast)
    out = app.feed(
        lines(
            HELLO,
            {"id": 1, "verb": "cancel", "params": {}},
            {"id": 2, "verb": "cancel", "params": {"id": [1]}},
            {"id": 3, "verb": "cancel", "params": {"id": 99}},
        )
    )
    errors = [r["error"] for r in replies(out)[1:]]
    assert [e["code"] for e in errors] == [
        "invalid_params.missing",
        "invalid_params.type",
        "not_found.request",
    ]
    assert errors[2]["data"] == {"id": 99}


def test_ping_answers_an_empty_object(fast: bool) -> None:
    app = app_for(fast)
    assert replies(app.feed(lines({"id": "p", "verb": "ping"}))) == [{"id": "p", "ok": {}}]


# -- in flight -----------------------------------------------------------------------------


def test_in_flight_bound_refuses_new_calls_while_ping_and_cancel_flow(fast: bool) -> None:
    """Issue 12 §2: past max_inflight, new calls get unavailable.too_many_calls; cancel and
    ping are still read and answered, and a finished call makes room again."""
    app = app_for(fast, max_inflight=3)
    app.feed(lines(HELLO, *({"id": i, "verb": "wait"} for i in range(3))))
    out = app.feed(
        lines(
            {"id": 3, "verb": "wait"},
            {"id": 4, "verb": "echo", "params": {}},
            {"id": "p", "verb": "ping"},
            {"id": "c", "verb": "cancel", "params": {"id": 0}},
            {"id": 5, "verb": "echo", "params": {}},
        )
    )
    got = replies(out)
    assert got[0]["error"] == {
        "code": "unavailable.too_many_calls",
        "message": "3 calls are already in flight on this connection; wait for replies, then retry",
        "data": {"limit": 3, "scope": "connection"},
    }
    assert got[1]["error"]["code"] == "unavailable.too_many_calls"
    assert got[2:] == [
        {"id": "p", "ok": {}},
        {"id": 0, "error": {"code": "cancelled", "message": "cancelled by client"}},
        {"id": "c", "ok": None},
        {"id": 5, "ok": {}},
    ]


def test_daemon_wide_call_budget_is_shared(fast: bool) -> None:
    budget = CallBudget(2)
    first, second = CoreApp(fast=fast, calls=budget), CoreApp(fast=fast, calls=budget)
    first.feed(lines(HELLO, {"id": 1, "verb": "wait"}, {"id": 2, "verb": "wait"}))
    (reply,) = replies(second.feed(lines({"id": 1, "verb": "wait"})))
    assert reply["error"]["data"] == {"limit": 2, "scope": "daemon"}
    first.answer(1)
    assert replies(second.feed(lines({"id": 2, "verb": "echo", "params": {}})))[0]["ok"] == {}
    first.conn.connection_lost()  # its remaining call returns to the budget
    assert budget.active == 0


# -- max_frame -----------------------------------------------------------------------------


@pytest.mark.parametrize("max_frame", [4096, 1048576])
@pytest.mark.parametrize("size", [4000, 10_000, 3_000_000])
def test_errors_that_repeat_input_fit_max_frame(fast: bool, max_frame: int, size: int) -> None:
    """Issue 12 §2: an unknown verb or param name of any length gets an error that fits the
    connection's max_frame, with the repeated input cut and marked."""
    app = app_for(fast, max_frame=16 * 1024 * 1024)
    hello = {"id": 0, "verb": "hello", "params": {"proto": [1], "max_frame": max_frame}}
    app.feed(lines(hello))
    name = "v" * min(size, max_frame - 100)  # the request itself must fit
    out = app.feed(
        lines(
            {"id": 1, "verb": name},
            {"id": 2, "verb": "fail", "params": {"thing": "t" * min(size, max_frame - 100)}},
        )
    )
    unknown, failed = out.splitlines(keepends=True)
    assert len(unknown) <= max_frame
    assert len(failed) <= max_frame
    verb = orjson.loads(unknown)["error"]["data"]["verb"]
    assert verb == name or (verb.endswith(TRUNCATED) and name.startswith(verb[: -len(TRUNCATED)]))
    error = orjson.loads(failed)["error"]
    assert error["code"] == "not_found.thing"
    assert error["data"]["thing"].startswith("ttt")


def test_result_larger_than_max_frame_is_internal_too_large(fast: bool) -> None:
    """rfcs/0002 D-W9: never a line over max_frame; the connection stays."""
    app = app_for(fast)
    app.feed(lines({"id": 0, "verb": "hello", "params": {"proto": [1], "max_frame": 4096}}))
    out = app.feed(lines({"id": 1, "verb": "big", "params": {"size": 4090}}))
    assert replies(out) == [
        {
            "id": 1,
            "error": {
                "code": "internal.too_large",
                "message": "result larger than max_frame",
                "data": {"max_frame": 4096},
            },
        }
    ]
    (ok,) = app.feed(lines({"id": 2, "verb": "big", "params": {"size": 4096 - 17}})).splitlines()
    assert len(ok) + 1 == 4096  # exactly max_frame, its \n included, still goes out


def test_handler_failures(fast: bool) -> None:
    app = app_for(fast)
    out = app.feed(
        lines(
            {"id": 1, "verb": "boom", "params": {}}, {"id": 2, "verb": "unencodable", "params": {}}
        )
    )
    assert [r["error"]["code"] for r in replies(out)] == ["internal", "internal"]
    assert b"secret" not in out


# -- fatal errors after complete requests --------------------------------------------------


def test_requests_before_an_over_long_line_are_answered_first(fast: bool) -> None:
    """Issue 12 §2: complete requests in the same read as a too-long line are answered, in
    order, then protocol.too_large, then the close."""
    app = app_for(fast, max_frame=4096)
    good = lines({"id": 1, "verb": "echo", "params": {}}, {"id": 2, "verb": "ping"})
    out = app.feed(good + b"x" * 5000 + b"\n" + lines({"id": 3, "verb": "ping"}))
    got = replies(out)
    assert got[:2] == [{"id": 1, "ok": {}}, {"id": 2, "ok": {}}]
    assert got[2]["error"]["code"] == "protocol.too_large"
    assert got[2]["id"] is None
    assert len(got) == 3
    assert isinstance(app.events[-1], ConnectionClosed)


def test_requests_before_an_unterminated_over_long_line_are_answered(fast: bool) -> None:
    app = app_for(fast, max_frame=4096)
    out = app.feed(lines({"id": 1, "verb": "echo", "params": {}}) + b"{" * 5000)
    assert [r.get("ok", r.get("error", {}).get("code")) for r in replies(out)] == [
        {},
        "protocol.too_large",
    ]


def test_negotiated_max_frame_applies_from_the_next_line_in_the_same_read(fast: bool) -> None:
    """Issue 12 §2: a line over the max_frame hello just lowered is too_large, same read."""
    app = app_for(fast)
    hello = {"id": 0, "verb": "hello", "params": {"proto": [1], "max_frame": 4096}}
    big = {"id": 1, "verb": "echo", "params": {"pad": "p" * 5000}}
    got = replies(app.feed(lines(hello, big)))
    assert got[0]["ok"]["max_frame"] == 4096
    assert got[1]["error"]["code"] == "protocol.too_large"
    assert app.closed


def test_negotiated_max_frame_applies_to_a_partial_line_in_the_same_read(fast: bool) -> None:
    app = app_for(fast)
    hello = {"id": 0, "verb": "hello", "params": {"proto": [1], "max_frame": 4096}}
    got = replies(app.feed(lines(hello) + b"{" + b" " * 5000))
    assert got[1]["error"]["code"] == "protocol.too_large"


# -- end of input --------------------------------------------------------------------------


def test_end_of_input_still_answers_every_call_then_closes(fast: bool) -> None:
    """rfcs/0002 D-W29: a half-close is not a cancel; streams and finite calls alike get
    their replies, and the connection closes after the last one."""
    app = app_for(fast)
    app.feed(lines(HELLO, {"id": 1, "verb": "events"}, {"id": 2, "verb": "wait"}))
    assert app.feed(b"") == b""
    app.conn.send_item(1, "still read")
    assert replies(bytes(app.conn.data_to_send())) == [{"id": 1, "item": "still read"}]
    assert replies(app.answer(2, "late")) == [{"id": 2, "ok": "late"}]
    assert not app.closed
    assert replies(app.answer(1, "done")) == [{"id": 1, "ok": "done"}]
    assert app.closed


def test_end_of_input_with_nothing_in_flight_closes(fast: bool) -> None:
    """printf ... | socat: everything is answered, then the server closes."""
    app = app_for(fast)
    out = app.feed(lines(HELLO, {"id": 1, "verb": "echo", "params": {}}))
    assert app.feed(b"") == b""
    assert len(replies(out)) == 2
    assert app.closed


def test_a_last_line_without_newline_is_answered_at_end_of_input(fast: bool) -> None:
    """rfcs/0002 D-W29 (JSON Lines): the final line may lack its \\n."""
    app = app_for(fast)
    assert app.feed(b'{"id":1,"verb":"ping"}') == b""
    assert replies(app.feed(b"")) == [{"id": 1, "ok": {}}]
    assert app.closed


def test_end_of_input_before_any_byte_closes() -> None:
    app = CoreApp()
    assert app.feed(b"") == b""
    assert app.closed


# -- deadlines -----------------------------------------------------------------------------


def test_deadlines_follow_the_input() -> None:
    """RFC-0002 §3 and issue 12 §2: idle until the first byte, then a message deadline while
    a message is incomplete, a new one for each new message, none between messages."""
    app = CoreApp(options={"idle_timeout": 1.0, "message_timeout": 2.0})
    conn = app.conn
    assert conn.deadline is not None
    assert (conn.deadline.kind, conn.deadline.seconds) == (
        "idle",
        1.0,
    )
    app.feed(b'{"id":1,')
    first = conn.deadline
    assert first is not None
    assert (first.kind, first.seconds) == ("message", 2.0)
    app.feed(b'"verb":')
    assert conn.deadline is first  # the same message: its deadline keeps running
    app.feed(b'"ping"}\n{"id"')
    assert conn.deadline is not first
    assert conn.deadline is not None
    app.feed(b':2,"verb":"ping"}\n')
    assert conn.deadline is None


@pytest.mark.parametrize(
    ("data", "kind"),
    [(b"", "idle"), (b'{"id":1', "message"), (b"\xf5\x00\x01", "hello")],
)
def test_a_passed_deadline_writes_its_error_and_closes(data: bytes, kind: str) -> None:
    app = CoreApp(options={"idle_timeout": 1, "hello_timeout": 1, "message_timeout": 1})
    if data:
        app.feed(data)
    deadline = app.conn.deadline
    assert deadline is not None
    assert deadline.kind == kind
    app.conn.deadline_passed(deadline)
    out = bytes(app.conn.data_to_send())
    assert app.closed
    if kind == "hello":
        assert out[:2] == b"\x00\x03"  # an ERROR frame on stream 0
        assert orjson.loads(out[10:])["code"] == "timeout.hello"
    else:
        assert replies(out) == [
            {
                "id": None,
                "error": {
                    "code": f"timeout.{kind}",
                    "message": replies(out)[0]["error"]["message"],
                    "data": {"seconds": 1},
                },
            }
        ]


def test_a_replaced_deadline_does_nothing() -> None:
    app = CoreApp()
    stale = app.conn.deadline
    assert stale is not None
    app.feed(b'{"id":1,"verb":"ping"}\n')
    app.conn.deadline_passed(stale)
    assert not app.closed
    assert app.conn.data_to_send() == b""


# -- output pacing -------------------------------------------------------------------------


def test_next_event_pauses_once_64_kib_of_output_waits(fast: bool) -> None:
    """Issue 12 §2: replies are checked against the output limit while they are built."""
    app = app_for(fast)
    app.feed(lines(HELLO))
    requests = lines(*({"id": i, "verb": "big", "params": {"size": 10_000}} for i in range(50)))
    app.conn.receive_data(requests)
    event = app.conn.next_event()
    while isinstance(event, CallStarted):  # the general path: the app answers each
        app.conn.send_ok(event.id, "x" * 10_000)
        event = app.conn.next_event()
    assert event is PAUSED
    waiting = app.conn.pending_output
    assert 65536 <= waiting < 65536 + 10_100
    assert app.conn.buffered > 0  # the rest of the read is kept, not answered
    assert len(replies(bytes(app.conn.data_to_send()) + app.pump())) == 50


def test_version_mismatch_on_hello_carries_the_id_and_closes(fast: bool) -> None:
    """RFC-0002 §6.2: no common version is version_mismatch with data.supported, then close."""
    app = app_for(fast)
    got = replies(app.feed(lines({"id": 4, "verb": "hello", "params": {"proto": [99]}}, HELLO)))
    assert got == [
        {
            "id": 4,
            "error": {
                "code": "protocol.version_mismatch",
                "message": "no protocol version in common",
                "data": {"supported": [1]},
            },
        }
    ]
    assert app.closed


def test_hello_never_occupies_its_id_and_1_and_true_differ(fast: bool) -> None:
    """rfcs/0002 D-W6: hello is answered at once (its id is free again); 1 and "1" are two
    ids; true is no id at all."""
    app = app_for(fast)
    out = app.feed(
        lines(
            {"id": 1, "verb": "hello", "params": {"proto": [1]}},
            {"id": 1, "verb": "wait"},
            {"id": "1", "verb": "wait"},
            {"id": True, "verb": "echo"},
        )
    )
    got = replies(out)
    assert got[0]["ok"]["proto"] == 1
    assert got[1]["id"] is None
    assert got[1]["error"]["code"] == "protocol.invalid_request"
    assert set(app.deferred) == {1, "1"}
