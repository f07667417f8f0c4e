"""The server connection's state table (`_core/server_states.py`) against RFC-0002's rules.

Each `Rule` is one rule of the RFC (or of rfcs/0002-wire-decisions.md) as a scenario: bytes
and actions fed to a real `ServerConnection`, the moves it must make through `TRANSITIONS`
(recorded from `advance`), the state it must end in and the replies it must write. Together
the rules take every row of the table, so a row nobody can justify from the RFC fails here,
and `advance` must refuse every move the table does not list.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson
import pytest
from core_kit import ECHO_BYTES, CoreApp

from venom_proto._core import server_connection
from venom_proto._core.frames import (
    CLOSE,
    CONTROL,
    ERROR,
    HELLO,
    HELLO_OK,
    PING,
    PONG,
    FrameDecoder,
)
from venom_proto._core.server_states import (
    TRANSITIONS,
    ConnectionState,
    StateError,
    Trigger,
    advance,
)

S, T = ConnectionState, Trigger
Move = tuple[ConnectionState, Trigger, ConnectionState]
Step = bytes | Callable[[CoreApp], bytes]


def line(obj: dict[str, Any]) -> bytes:
    return orjson.dumps(obj) + b"\n"


def frame(type_: int, payload: bytes, stream: int = 0) -> bytes:
    return struct.pack(">HII", type_, stream, len(payload)) + payload


HELLO_LINE = line({"id": "h", "verb": "hello", "params": {"proto": [1], "caps": ["cancel"]}})
PING_LINE = line({"id": 1, "verb": "ping"})
WAIT_LINE = line({"id": 2, "verb": "wait", "params": {}})
BIN_HELLO = b"\xf5" + frame(HELLO, orjson.dumps({"proto": [1], "caps": ["cancel", "t.bytes"]}))


def deadline(app: CoreApp) -> bytes:
    """The transport's timer for the current deadline fires."""
    current = app.conn.deadline
    assert current is not None
    app.conn.deadline_passed(current)
    return bytes(app.conn.data_to_send())


def answer(app: CoreApp) -> bytes:
    """The one deferred call in flight finishes."""
    (rid,) = app.deferred
    return app.answer(rid, "done")


def shutdown(app: CoreApp) -> bytes:
    app.conn.shutdown("stopping")
    return bytes(app.conn.data_to_send())


def lost(app: CoreApp) -> bytes:
    app.conn.connection_lost()
    return bytes(app.conn.data_to_send())


def eof(app: CoreApp) -> bytes:
    return app.feed(b"")


@dataclass(frozen=True)
class Rule:
    """One rule: ``steps`` take a new connection along ``moves`` to ``end``, writing
    ``replies`` (``ok``, an error code, or a frame name) in order."""

    rfc: str
    steps: tuple[Step, ...]
    moves: tuple[tuple[ConnectionState, Trigger], ...]
    end: ConnectionState
    replies: tuple[str, ...]
    options: tuple[tuple[str, Any], ...] = ()


RULES = [
    # 3: the first byte selects the protocol, anything else is refused.
    Rule("3: { selects NDJSON", (b"{",), ((S.AWAIT_FIRST_BYTE, T.NDJSON_PREAMBLE),),
         S.NDJSON_PRE_HELLO, ()),
    Rule("3: 0xF5 selects binary", (b"\xf5",), ((S.AWAIT_FIRST_BYTE, T.BINARY_PREAMBLE),),
         S.BINARY_AWAIT_HELLO, ()),
    Rule("3: another first byte", (b"GET /",), ((S.AWAIT_FIRST_BYTE, T.CLOSE),), S.CLOSED,
         ("protocol.bad_preamble",)),
    Rule("3: 0xF6 is a reserved envelope", (b"\xf6",), ((S.AWAIT_FIRST_BYTE, T.CLOSE),),
         S.CLOSED, ("protocol.bad_preamble",)),
    Rule("3: no byte within the idle deadline", (deadline,), ((S.AWAIT_FIRST_BYTE, T.CLOSE),),
         S.CLOSED, ("timeout.idle",)),
    Rule("3: end of input before any byte", (b"",), ((S.AWAIT_FIRST_BYTE, T.CLOSE),),
         S.CLOSED, ()),
    Rule("2.5: shutdown before any byte", (shutdown,), ((S.AWAIT_FIRST_BYTE, T.CLOSE),),
         S.CLOSED, ()),
    # 6: hello on NDJSON, explicit and implicit.
    Rule("6.1: hello settles", (HELLO_LINE,),
         ((S.AWAIT_FIRST_BYTE, T.NDJSON_PREAMBLE), (S.NDJSON_PRE_HELLO, T.HELLO)), S.OPEN,
         ("ok",)),
    Rule("6.4: a first request other than hello is an implicit hello", (PING_LINE,),
         ((S.AWAIT_FIRST_BYTE, T.NDJSON_PREAMBLE), (S.NDJSON_PRE_HELLO, T.IMPLICIT_HELLO)),
         S.OPEN, ("ok",)),
    Rule("6.4: no version 1, no implicit hello", (PING_LINE,),
         ((S.AWAIT_FIRST_BYTE, T.NDJSON_PREAMBLE), (S.NDJSON_PRE_HELLO, T.CLOSE)), S.CLOSED,
         ("protocol.version_mismatch",), (("versions", (2,)),)),
    Rule("6.2: no common version closes",
         (line({"id": 1, "verb": "hello", "params": {"proto": [99]}}),),
         ((S.AWAIT_FIRST_BYTE, T.NDJSON_PREAMBLE), (S.NDJSON_PRE_HELLO, T.CLOSE)), S.CLOSED,
         ("protocol.version_mismatch",)),
    Rule("D-W2: invalid hello params leave NDJSON before hello",
         (line({"id": 1, "verb": "hello", "params": {"proto": []}}), HELLO_LINE),
         ((S.AWAIT_FIRST_BYTE, T.NDJSON_PREAMBLE), (S.NDJSON_PRE_HELLO, T.HELLO)), S.OPEN,
         ("invalid_params.range", "ok")),
    Rule("4.6: a bad line before hello keeps the connection", (b"{nope\n", HELLO_LINE),
         ((S.AWAIT_FIRST_BYTE, T.NDJSON_PREAMBLE), (S.NDJSON_PRE_HELLO, T.HELLO)), S.OPEN,
         ("protocol.parse", "ok")),
    Rule("6.4: hello after another request", (PING_LINE, HELLO_LINE),
         ((S.AWAIT_FIRST_BYTE, T.NDJSON_PREAMBLE), (S.NDJSON_PRE_HELLO, T.IMPLICIT_HELLO)),
         S.OPEN, ("ok", "protocol.hello_order")),
    Rule("6.4: a second hello", (HELLO_LINE, HELLO_LINE),
         ((S.AWAIT_FIRST_BYTE, T.NDJSON_PREAMBLE), (S.NDJSON_PRE_HELLO, T.HELLO)), S.OPEN,
         ("ok", "protocol.hello_order")),
    Rule("4.1: a line longer than max_frame before hello", (b"{" + b" " * 1048576 + b"\n",),
         ((S.AWAIT_FIRST_BYTE, T.NDJSON_PREAMBLE), (S.NDJSON_PRE_HELLO, T.CLOSE)), S.CLOSED,
         ("protocol.too_large",)),
    Rule("4.1: a line longer than max_frame", (HELLO_LINE, b"{" + b" " * 1048576 + b"\n"),
         ((S.AWAIT_FIRST_BYTE, T.NDJSON_PREAMBLE), (S.NDJSON_PRE_HELLO, T.HELLO),
          (S.OPEN, T.CLOSE)), S.CLOSED, ("ok", "protocol.too_large")),
    Rule("3, D-W16: a line begun before hello and not ended in time", (b'{"id"', deadline),
         ((S.AWAIT_FIRST_BYTE, T.NDJSON_PREAMBLE), (S.NDJSON_PRE_HELLO, T.CLOSE)), S.CLOSED,
         ("timeout.message",)),
    Rule("D-W16: a message begun and not ended in time", (HELLO_LINE, b'{"id"', deadline),
         ((S.AWAIT_FIRST_BYTE, T.NDJSON_PREAMBLE), (S.NDJSON_PRE_HELLO, T.HELLO),
          (S.OPEN, T.CLOSE)), S.CLOSED, ("ok", "timeout.message")),
    Rule("D-W29: end of input with nothing in flight closes", (HELLO_LINE, b""),
         ((S.AWAIT_FIRST_BYTE, T.NDJSON_PREAMBLE), (S.NDJSON_PRE_HELLO, T.HELLO),
          (S.OPEN, T.CLOSE)), S.CLOSED, ("ok",)),
    Rule("D-W29: end of input before hello closes", (b"{}\n", b""),
         ((S.AWAIT_FIRST_BYTE, T.NDJSON_PREAMBLE), (S.NDJSON_PRE_HELLO, T.CLOSE)), S.CLOSED,
         ("protocol.invalid_request",)),
    Rule("D-W29: a half-close still answers the calls in flight", (HELLO_LINE, WAIT_LINE, eof),
         ((S.AWAIT_FIRST_BYTE, T.NDJSON_PREAMBLE), (S.NDJSON_PRE_HELLO, T.HELLO),
          (S.OPEN, T.END_OF_INPUT)), S.DRAINING, ("ok",)),
    Rule("D-W29: ... and closes after the last reply", (HELLO_LINE, WAIT_LINE, eof, answer),
         ((S.AWAIT_FIRST_BYTE, T.NDJSON_PREAMBLE), (S.NDJSON_PRE_HELLO, T.HELLO),
          (S.OPEN, T.END_OF_INPUT), (S.DRAINING, T.CLOSE)), S.CLOSED, ("ok", "ok")),
    Rule("2.5: shutdown cancels the calls still in flight", (HELLO_LINE, WAIT_LINE, eof, shutdown),
         ((S.AWAIT_FIRST_BYTE, T.NDJSON_PREAMBLE), (S.NDJSON_PRE_HELLO, T.HELLO),
          (S.OPEN, T.END_OF_INPUT), (S.DRAINING, T.CLOSE)), S.CLOSED, ("ok", "cancelled")),
    Rule("the transport gone", (HELLO_LINE, lost),
         ((S.AWAIT_FIRST_BYTE, T.NDJSON_PREAMBLE), (S.NDJSON_PRE_HELLO, T.HELLO),
          (S.OPEN, T.CLOSE)), S.CLOSED, ("ok",)),
    # 5, 6.4: binary connections must start with HELLO.
    Rule("6.4: binary HELLO settles", (BIN_HELLO,),
         ((S.AWAIT_FIRST_BYTE, T.BINARY_PREAMBLE), (S.BINARY_AWAIT_HELLO, T.HELLO)), S.OPEN,
         ("HELLO_OK",)),
    Rule("6.4: another frame before HELLO", (b"\xf5" + frame(CONTROL, b'{"id":1,"verb":"ping"}'),),
         ((S.AWAIT_FIRST_BYTE, T.BINARY_PREAMBLE), (S.BINARY_AWAIT_HELLO, T.CLOSE)), S.CLOSED,
         ("protocol.hello_required",)),
    Rule("D-W2: invalid HELLO params close a binary connection",
         (b"\xf5" + frame(HELLO, b'{"proto":[]}'),),
         ((S.AWAIT_FIRST_BYTE, T.BINARY_PREAMBLE), (S.BINARY_AWAIT_HELLO, T.CLOSE)), S.CLOSED,
         ("invalid_params.range",)),
    Rule("6.2: no common version on binary", (b"\xf5" + frame(HELLO, b'{"proto":[99]}'),),
         ((S.AWAIT_FIRST_BYTE, T.BINARY_PREAMBLE), (S.BINARY_AWAIT_HELLO, T.CLOSE)), S.CLOSED,
         ("protocol.version_mismatch",)),
    Rule("3: HELLO not complete within the hello deadline", (b"\xf5\x00", deadline),
         ((S.AWAIT_FIRST_BYTE, T.BINARY_PREAMBLE), (S.BINARY_AWAIT_HELLO, T.CLOSE)), S.CLOSED,
         ("timeout.hello",)),
    Rule("5.1: a frame longer than max_frame before HELLO",
         (b"\xf5" + struct.pack(">HII", HELLO, 0, 1048577),),
         ((S.AWAIT_FIRST_BYTE, T.BINARY_PREAMBLE), (S.BINARY_AWAIT_HELLO, T.CLOSE)), S.CLOSED,
         ("protocol.too_large",)),
    Rule("6.4: a second HELLO frame", (BIN_HELLO, frame(HELLO, b'{"proto":[1]}')),
         ((S.AWAIT_FIRST_BYTE, T.BINARY_PREAMBLE), (S.BINARY_AWAIT_HELLO, T.HELLO),
          (S.OPEN, T.CLOSE)), S.CLOSED, ("HELLO_OK", "protocol.hello_order")),
    Rule("6.4: hello inside CONTROL after HELLO",
         (BIN_HELLO, frame(CONTROL, b'{"id":1,"verb":"hello","params":{"proto":[1]}}')),
         ((S.AWAIT_FIRST_BYTE, T.BINARY_PREAMBLE), (S.BINARY_AWAIT_HELLO, T.HELLO)), S.OPEN,
         ("HELLO_OK", "protocol.hello_order")),
    Rule("5.2: PING is answered with PONG", (BIN_HELLO, frame(PING, b"x")),
         ((S.AWAIT_FIRST_BYTE, T.BINARY_PREAMBLE), (S.BINARY_AWAIT_HELLO, T.HELLO)), S.OPEN,
         ("HELLO_OK", "PONG")),
    Rule("5.2: a frame type outside the negotiated caps", (BIN_HELLO, frame(0x0200, b"")),
         ((S.AWAIT_FIRST_BYTE, T.BINARY_PREAMBLE), (S.BINARY_AWAIT_HELLO, T.HELLO),
          (S.OPEN, T.CLOSE)), S.CLOSED, ("HELLO_OK", "protocol.bad_frame")),
    Rule("5.2: a negotiated tool frame", (BIN_HELLO, frame(ECHO_BYTES, b"hi", stream=1)),
         ((S.AWAIT_FIRST_BYTE, T.BINARY_PREAMBLE), (S.BINARY_AWAIT_HELLO, T.HELLO)), S.OPEN,
         ("HELLO_OK",)),
    Rule("5.2: CLOSE on stream 0 ends the connection", (BIN_HELLO, frame(CLOSE, b"")),
         ((S.AWAIT_FIRST_BYTE, T.BINARY_PREAMBLE), (S.BINARY_AWAIT_HELLO, T.HELLO),
          (S.OPEN, T.CLOSE)), S.CLOSED, ("HELLO_OK",)),
    Rule("2.5: shutdown sends CLOSE on binary", (BIN_HELLO, shutdown),
         ((S.AWAIT_FIRST_BYTE, T.BINARY_PREAMBLE), (S.BINARY_AWAIT_HELLO, T.HELLO),
          (S.OPEN, T.CLOSE)), S.CLOSED, ("HELLO_OK", "CLOSE")),
    Rule("3: end of input before HELLO", (b"\xf5", b""),
         ((S.AWAIT_FIRST_BYTE, T.BINARY_PREAMBLE), (S.BINARY_AWAIT_HELLO, T.CLOSE)), S.CLOSED,
         ()),
]  # fmt: skip


def replies(out: bytes, binary: bool) -> list[str]:
    """What was written, one name per message: ``ok``, an error code, or a frame type."""
    names = {HELLO_OK: "HELLO_OK", PONG: "PONG", CLOSE: "CLOSE", ECHO_BYTES: "ECHO_BYTES"}
    if not binary:
        objs = [orjson.loads(part) for part in out.splitlines()]
    else:
        objs = []
        for f in FrameDecoder(16 * 1024 * 1024).feed(out):
            if f.type in (CONTROL, ERROR):
                objs.append(orjson.loads(f.payload))
            elif f.type != ECHO_BYTES:  # the tool frame goes to its handler, not back
                objs.append({"frame": names[f.type]})
    found = []
    for obj in objs:
        if "frame" in obj:
            found.append(obj["frame"])
        elif "ok" in obj:
            found.append("ok")
        else:
            found.append(obj.get("error", obj)["code"])
    return found


def run(rule: Rule, monkeypatch: pytest.MonkeyPatch) -> tuple[CoreApp, list[Move], list[str]]:
    moves: list[Move] = []

    def recording(state: ConnectionState, trigger: Trigger) -> ConnectionState:
        new = advance(state, trigger)
        moves.append((state, trigger, new))
        return new

    monkeypatch.setattr(server_connection, "advance", recording)
    app = CoreApp(options=dict(rule.options))
    out = b""
    for step in rule.steps:
        out += app.feed(step) if isinstance(step, bytes) else step(app)
    return app, moves, replies(out, app.conn.protocol == "binary")


@pytest.mark.parametrize("rule", RULES, ids=[rule.rfc for rule in RULES])
def test_each_rfc_rule_moves_through_the_table(rule: Rule, monkeypatch: pytest.MonkeyPatch) -> None:
    app, moves, written = run(rule, monkeypatch)
    assert [(old, trigger) for old, trigger, _ in moves] == list(rule.moves)
    assert app.conn.state is rule.end
    assert app.conn.closed is (rule.end is S.CLOSED)
    assert written == list(rule.replies)


def test_the_rules_take_every_row_of_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    taken = set()
    for rule in RULES:
        for old, trigger, new in run(rule, monkeypatch)[1]:
            taken.add((old, trigger, new))
        monkeypatch.undo()
    rows = {(old, trigger, new) for old, row in TRANSITIONS.items() for trigger, new in row.items()}
    assert taken == rows


def test_every_state_has_a_row_and_nothing_leaves_closed() -> None:
    assert set(TRANSITIONS) == set(ConnectionState)
    assert TRANSITIONS[S.CLOSED] == {}
    for state in ConnectionState:
        if state is not S.CLOSED:
            assert TRANSITIONS[state][T.CLOSE] is S.CLOSED  # every live state can close


@pytest.mark.parametrize("state", list(ConnectionState))
@pytest.mark.parametrize("trigger", list(Trigger))
def test_advance_refuses_what_the_table_does_not_list(
    state: ConnectionState, trigger: Trigger
) -> None:
    if trigger in TRANSITIONS[state]:
        assert advance(state, trigger) is TRANSITIONS[state][trigger]
    else:
        refused = f"{trigger.name} is not allowed in state {state.name}"
        with pytest.raises(StateError, match=refused):
            advance(state, trigger)


def test_a_new_connection_awaits_its_first_byte() -> None:
    app = CoreApp()
    assert app.conn.state is S.AWAIT_FIRST_BYTE
    deadline_ = app.conn.deadline
    assert deadline_ is not None
    assert deadline_.kind == "idle"
