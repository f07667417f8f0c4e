"""The server end of one connection, free of I/O (RFC-0002 3-6): bytes in, events and bytes out.

The transport feeds every received chunk to `ServerConnection.receive_data` (``b""`` at end of
input), then calls `~ServerConnection.next_event` until it returns `NEED_DATA`, acting on each
event; it answers calls with ``send_ok``/``send_item``/``send_error`` and writes what
``data_to_send`` returns. Everything the protocol decides lives here: first-byte sniffing,
NDJSON lines and binary frames, hello (explicit and implicit), ``ping``, ``cancel``, unknown
verbs, capability gating, duplicate ids, the in-flight bounds, ``max_frame`` on every message
in both directions, the deadlines, and when the connection closes.

Input is handled one message at a time, in order: the replies to everything before a fatal
error are written before that error, and a ``max_frame`` lowered by hello applies from the next
message even inside the same read. ``next_event`` returns `PAUSED` once 64 KiB of output is
waiting, so a read of tiny requests can never build more than that before the transport has
written it (and looked at the peer's backlog).

The connection's states and the moves between them are data: `ConnectionState` and
`TRANSITIONS` in `_core/server_states.py`; every move goes through `advance`, which refuses one
the table does not list. The framing is chosen once, with the state, by the first byte: input
goes to a `LineBuffer` or a `FrameBuffer`, every reply through the matching writer
(`_core/server_writers.py`). What each state does with its input::

    state                input                              result
    AWAIT_FIRST_BYTE     no byte for idle_timeout           timeout.idle, CLOSED
    AWAIT_FIRST_BYTE     { / 0xF5                           NDJSON_PRE_HELLO / BINARY_AWAIT_HELLO
    AWAIT_FIRST_BYTE     any other first byte               protocol.bad_preamble, CLOSED
    NDJSON_PRE_HELLO     hello, valid                       HelloSettled, OPEN
    NDJSON_PRE_HELLO     hello, invalid params              invalid_params.* (still pre-hello)
    NDJSON_PRE_HELLO     hello or request, no version 1     protocol.version_mismatch, CLOSED
    NDJSON_PRE_HELLO     other request                      HelloSettled (implicit), OPEN, then
                                                            the request as in OPEN
    BINARY_AWAIT_HELLO   HELLO frame, valid                 HELLO_OK, HelloSettled, OPEN
    BINARY_AWAIT_HELLO   no HELLO within hello_timeout      timeout.hello, CLOSED
    BINARY_AWAIT_HELLO   other frame / bad HELLO            protocol.hello_required / ..., CLOSED
    OPEN                 hello (binary: in CONTROL)         protocol.hello_order
    OPEN                 binary: a second HELLO frame       protocol.hello_order, CLOSED
    OPEN                 tool verb, admitted                CallStarted (in flight)
    OPEN                 cancel of a call in flight         its cancelled error, null, CallCancelled
    OPEN                 end of input, calls in flight      DRAINING: the calls are still answered
    DRAINING             the last call answered             CLOSED
    NDJSON_PRE_HELLO,    message begun, not ended in time   timeout.message, CLOSED
      OPEN
    the three reading    message longer than max_frame      protocol.too_large, CLOSED
    the three reading    end of input, nothing in flight    CLOSED
    any but CLOSED       shutdown                           calls cancelled, binary CLOSE, CLOSED
    any but CLOSED       the transport gone                 CLOSED, calls forgotten
"""

from __future__ import annotations

from typing import Any, Literal

from ._json import APPEND_NEWLINE, dumps, fast_dumps, loads
from .errors import MAX_SAFE_INT, ProtocolViolation, VenomError, is_valid_id
from .frames import (
    CLOSE,
    CONTROL,
    ERROR,
    HELLO,
    HELLO_OK,
    PING,
    PONG,
    Frame,
    FrameBuffer,
    bad_frame,
    select_protocol,
)
from .hello import HelloOutcome, negotiate_hello, version_mismatch
from .messages import read_request
from .ndjson import DEFAULT_MAX_FRAME, LineBuffer
from .server_events import (
    NEED_DATA,
    PAUSED,
    PENDING,
    CallCancelled,
    CallStarted,
    ConnectionClosed,
    Event,
    FrameReceived,
    HelloSettled,
    Sentinel,
)
from .server_settings import CallBudget, Deadline, InlineRunner, ServerSettings, VerbSpec
from .server_states import ConnectionState, Trigger, advance
from .server_writers import NdjsonWriter, ReplyWriter, writer_for

__all__ = ("MAX_PING_PAYLOAD", "PAUSE_OUTPUT", "ServerConnection")

#: RFC-0002 5.2: a PING payload is opaque and at most 64 bytes.
MAX_PING_PAYLOAD = 64
#: Bytes of waiting output after which `ServerConnection.next_event` returns `PAUSED`.
PAUSE_OUTPUT = 65536

_dumps = fast_dumps
_NEWLINE = APPEND_NEWLINE
_BY_CLIENT = "cancelled by client"
_UNLIMITED = CallBudget(2**62)
# The states the protocol branches on, as globals: read on every message.
_AWAIT_FIRST_BYTE = ConnectionState.AWAIT_FIRST_BYTE
_PRE_HELLO = ConnectionState.NDJSON_PRE_HELLO
_AWAIT_HELLO = ConnectionState.BINARY_AWAIT_HELLO
_DRAINING = ConnectionState.DRAINING
_CLOSED = ConnectionState.CLOSED

# Frozen dataclass __init__ costs a setattr detour per field; the slot descriptors do not.
_new = object.__new__
_set_id, _set_verb, _set_params, _set_spec = (
    vars(CallStarted)[name].__set__ for name in ("id", "verb", "params", "spec")
)


_set_kind, _set_seconds = (vars(Deadline)[name].__set__ for name in ("kind", "seconds"))


def _new_deadline(kind: Literal["idle", "hello", "message"], seconds: float) -> Deadline:
    deadline: Deadline = _new(Deadline)  # as for events: a new one with nearly every read
    _set_kind(deadline, kind)
    _set_seconds(deadline, seconds)
    return deadline


def _call_started(id_: int | str, verb: str, params: dict[str, Any], spec: VerbSpec) -> CallStarted:
    event: CallStarted = _new(CallStarted)
    _set_id(event, id_)
    _set_verb(event, verb)
    _set_params(event, params)
    _set_spec(event, spec)
    return event


def _error(code: str, message: str, **data: Any) -> VenomError:
    return VenomError(code, message, data or None)


def too_many_calls(limit: int, scope: Literal["connection", "daemon"]) -> VenomError:
    """``unavailable.too_many_calls``: the in-flight bound refused a new call (rfcs/0002 D-W17)."""
    where = "on this connection" if scope == "connection" else "in the daemon"
    return _error(
        "unavailable.too_many_calls",
        f"{limit} calls are already in flight {where}; wait for replies, then retry",
        limit=limit,
        scope=scope,
    )


class ServerConnection:
    """The protocol state of one server connection; see the module docstring for the flow.

    ``calls`` is the daemon-wide in-flight budget shared by every connection of a server.
    With a ``runner``, pipelined NDJSON calls to its sync verbs are answered on the core's fast
    path (`InlineRunner`) instead of as `CallStarted` events; the bytes written are the same.
    """

    __slots__ = (
        "_calls",
        "_caps",
        "_closed",
        "_frames",
        "_in_flight",
        "_inline",
        "_lines",
        "_queued",
        "_runner",
        "_server_streams",
        "_settings",
        "_state",
        "_verbs",
        "_writer",
        "deadline",
        "hello",
        "protocol",
    )

    def __init__(
        self,
        settings: ServerSettings,
        calls: CallBudget | None = None,
        runner: InlineRunner | None = None,
    ) -> None:
        self._settings = settings
        self._verbs = settings.verbs
        self._calls = _UNLIMITED if calls is None else calls
        self._runner = runner
        # The runner's verbs the negotiated caps allow; empty until hello (NDJSON only).
        self._inline: dict[str, VerbSpec] = {}
        #: ``"ndjson"`` or ``"binary"`` once the first byte chose.
        self.protocol: Literal["ndjson", "binary"] | None = None
        #: The settled hello, or ``None`` before it.
        self.hello: HelloOutcome | None = None
        # Until the first byte chooses, the only replies are NDJSON error lines.
        self._writer: ReplyWriter = NdjsonWriter(
            min(settings.max_frame, DEFAULT_MAX_FRAME), settings.report
        )
        #: The deadline the connection is under now, if any; see `Deadline`.
        self.deadline: Deadline | None = Deadline("idle", settings.idle_timeout)
        self._caps: frozenset[str] = frozenset()
        self._lines: LineBuffer | None = None
        self._frames: FrameBuffer | None = None
        # Calls awaiting their final reply: id -> whether the verb streams.
        self._in_flight: dict[int | str, bool] = {}
        self._queued: list[Event] = []
        self._state = _AWAIT_FIRST_BYTE
        self._closed: ConnectionClosed | None = None  # the event, once CLOSED
        self._server_streams: set[int] = set()

    # -- state -----------------------------------------------------------------------------

    @property
    def state(self) -> ConnectionState:
        """Where the connection is (`ConnectionState`); it moves as `TRANSITIONS` allows."""
        return self._state

    @property
    def closed(self) -> bool:
        """True once the core is done: write ``data_to_send()``, then close the connection."""
        return self._state is _CLOSED

    @property
    def max_frame(self) -> int:
        """The limit for every message in both directions (before hello: the default or lower)."""
        return self._writer.max_frame

    @property
    def in_flight(self) -> int:
        """Calls awaiting their final reply."""
        return len(self._in_flight)

    @property
    def buffered(self) -> int:
        """Bytes of input held: a partial message plus messages not yet taken."""
        buffer = self._lines if self._lines is not None else self._frames
        return 0 if buffer is None else buffer.buffered

    @property
    def pending_output(self) -> int:
        """Bytes waiting in ``data_to_send``."""
        return len(self._writer.out)

    def data_to_send(self) -> bytearray:
        """Everything written since the last call, in order; the caller owns the buffer."""
        writer = self._writer  # the swap inline, not a call: this runs once per read
        out = writer.out
        writer.out = bytearray()
        return out

    # -- input -----------------------------------------------------------------------------

    def receive_data(self, data: bytes) -> None:
        """Feed bytes as received; ``b""`` means the peer closed its side (end of input)."""
        state = self._state
        if state is _CLOSED:
            return
        if state is _AWAIT_FIRST_BYTE:
            if not data:
                self._close(None)
                return
            if not self._sniff(data[0]):
                return
            if self._state is _AWAIT_HELLO:
                data = data[1:]  # the binary preamble is consumed, NDJSON's { is not
                if not data:
                    return
        buffer = self._lines if self._lines is not None else self._frames
        assert buffer is not None
        if not data:
            buffer.end()
            self.deadline = None
            return
        was_partial = buffer.partial
        completed = buffer.feed(data)
        if self._state is _AWAIT_HELLO:
            return  # the hello deadline runs until HELLO, whatever arrives
        if buffer.partial:
            if completed or not was_partial:  # a new message began: its own deadline
                self.deadline = _new_deadline("message", self._settings.message_timeout)
        else:
            self.deadline = None

    def _sniff(self, first: int) -> bool:
        try:
            protocol = select_protocol(first)
        except ProtocolViolation as exc:
            self._fatal(exc)
            return False
        self.protocol = protocol
        self._writer = writer_for(protocol, self.max_frame, self._settings.report)
        if protocol == "ndjson":
            self._state = advance(self._state, Trigger.NDJSON_PREAMBLE)
            self._lines = LineBuffer(self.max_frame)
            self.deadline = None
        else:
            self._state = advance(self._state, Trigger.BINARY_PREAMBLE)
            self._frames = FrameBuffer(self.max_frame)
            self.deadline = Deadline("hello", self._settings.hello_timeout)
        return True

    def next_event(self) -> Event | Sentinel:
        """The next thing to act on, `PAUSED` while output waits, or `NEED_DATA`."""
        while True:
            if self._queued:
                return self._queued.pop(0)
            if self._closed is not None:
                return self._closed
            if len(self._writer.out) >= PAUSE_OUTPUT:
                return PAUSED
            lines = self._lines
            event: Event | Sentinel | None
            if lines is not None:
                if self._inline:
                    self._run_inline(lines)
                    if len(self._writer.out) >= PAUSE_OUTPUT:
                        return PAUSED
                line = lines.next_line()
                event = self._exhausted(lines) if line is None else self._request(line)
            elif self._frames is not None:
                frame = self._frames.next_frame()
                event = self._exhausted(self._frames) if frame is None else self._frame(frame)
            else:
                return NEED_DATA
            if event is not None:
                return event

    def _run_inline(self, buffer: LineBuffer) -> None:
        """The fast path: answer consecutive plain calls to inline verbs, without events.

        A line qualifies only when `read_request` would read it as it stands (an object with
        an int id within ±(2^53-1) or a str id of at most 16 characters, a ``params`` object)
        and `_refusal`, the admission both paths share, would let the call start; the reply
        is then the one the general path writes, and the first line that does not qualify is
        left to it. `tests/test_core_fast_path.py` checks that both paths write the same bytes
        for any input in any chunking.

        `_refusal` is applied per run, not per line (a call per line would cost a tenth
        of the request): ``verbs`` holds only the verbs it allows (`_allowed`, at hello), the
        bounds (`_no_room`) are tested before the run and whenever a call stays in flight, and
        its one per-call rule, the duplicate id, is the ``in_flight`` test below.
        """
        runner = self._runner
        assert runner is not None
        run, verbs, writer, in_flight = runner.run, self._inline, self._writer, self._in_flight
        out, limit = writer.out, writer.max_frame
        calls = self._calls
        # `_no_room`'s test, written out: a call here would cost ~480 instructions per read,
        # which is per request for a client that waits for each reply.
        if len(in_flight) >= self._settings.max_inflight or calls.active >= calls.limit:
            return  # the general path refuses new calls
        long_lines = not buffer.all_short
        low, high, pause = -MAX_SAFE_INT, MAX_SAFE_INT, PAUSE_OUTPUT  # locals: read on every line
        # One reply object, refilled per line: two stores cost less than building a dict (and
        # its keys keep their order, so the bytes are those of a fresh ``{"id", "ok"}``).
        envelope: dict[str, Any] = {"id": None, "ok": None}
        for raw in buffer.lines:
            # Subscripts, not .get: anything missing, unknown or not an object raises here (a
            # try is free in 3.11) and the line takes the general path.
            try:
                obj = loads(raw)
                rid: Any = obj["id"]
                verb: Any = obj["verb"]
                params: Any = obj["params"]
                spec = verbs[verb]
            except (ValueError, KeyError, TypeError):
                buffer.give_back(raw)
                return
            if not (
                type(params) is dict
                and (
                    (type(rid) is int and low <= rid <= high)
                    or (type(rid) is str and len(rid) <= 16)
                )
                and rid not in in_flight
                and not (long_lines and len(raw) >= limit)
            ):
                buffer.give_back(raw)
                return
            try:
                result = run(rid, verb, params, spec)
                if result is PENDING:
                    self._enter(rid, spec)
                    if self._no_room() is not None:
                        return
                    continue
                envelope["id"] = rid
                envelope["ok"] = result
                reply = _dumps(envelope, option=_NEWLINE)
            except VenomError as exc:
                writer.error(rid, exc)
            except Exception as exc:  # from the handler, or its result would not encode
                writer.error(rid, runner.failed(rid, verb, exc))
            else:
                if len(reply) > limit:
                    writer.error(rid, _result_too_large(limit))
                else:
                    out += reply
            if len(out) >= pause:
                return

    def _exhausted(self, buffer: LineBuffer | FrameBuffer) -> Event | Sentinel | None:
        if buffer.fatal is not None:
            return self._fatal(buffer.fatal)
        if buffer.ended and self._state is not _DRAINING:
            self._end_of_input()
            return None
        return NEED_DATA

    def _end_of_input(self) -> None:
        """The peer closed its sending side: every call in flight, streams included, still
        gets its replies (a half-close is not a cancel); the connection closes after the last.
        A peer that is gone altogether is the transport's to notice (D-W29)."""
        if self._in_flight:
            self._state = advance(self._state, Trigger.END_OF_INPUT)
        else:
            self._close(None)

    # -- requests (NDJSON lines and CONTROL payloads) --------------------------------------

    def _request(self, line: bytes) -> Event | None:
        try:
            rid, verb, params = read_request(line)
        except ProtocolViolation as exc:
            self._writer.error(exc.id, exc)
            return None
        return self._admit(rid, verb, params)

    def _admit(self, rid: int | str, verb: str, params: dict[str, Any]) -> Event | None:
        try:
            spec = self._verbs[verb]
        except KeyError:
            return self._core_verb(rid, verb, params)
        if self._state is _PRE_HELLO:
            return self._implicit_hello(rid, verb, params)
        refusal = self._refusal(rid, verb, spec)
        if refusal is not None:
            self._writer.error(rid, refusal)
            return None
        self._enter(rid, spec)
        return _call_started(rid, verb, params, spec)

    def _refusal(self, rid: int | str, verb: str, spec: VerbSpec) -> VenomError | None:
        """Why a call of tool verb ``verb`` under ``rid`` may not start now, else ``None``.

        The one statement of admission, for the general path and the fast path alike: an id
        already in flight (RFC-0002 4.6), a capability not negotiated (6.3), the in-flight
        bounds of the connection and of the daemon (D-W17), in that order.
        """
        if rid in self._in_flight:
            return _duplicate_id(rid)
        if not _allowed(spec, self._caps):
            return _error(
                "unsupported.capability",
                f"verb {verb!r} needs capability {spec.capability!r}",
                verb=verb,
                capability=spec.capability,
            )
        return self._no_room()

    def _no_room(self) -> VenomError | None:
        """The in-flight bound a new call would pass, the connection's first (D-W17)."""
        limit = self._settings.max_inflight
        if len(self._in_flight) >= limit:
            return too_many_calls(limit, "connection")
        calls = self._calls
        if calls.active >= calls.limit:
            return too_many_calls(calls.limit, "daemon")
        return None

    def _enter(self, rid: int | str, spec: VerbSpec) -> None:
        """An admitted call is in flight until its final reply."""
        self._calls.active += 1
        self._in_flight[rid] = spec.streams

    def _core_verb(self, rid: int | str, verb: str, params: dict[str, Any]) -> Event | None:
        if verb == "hello":
            return self._hello_request(rid, params)
        if self._state is _PRE_HELLO:
            return self._implicit_hello(rid, verb, params)
        if rid in self._in_flight:
            self._writer.error(rid, _duplicate_id(rid))
        elif verb == "ping":
            self._writer.ok(rid, {})
        elif verb == "cancel":
            return self._cancel(rid, params)
        else:
            self._writer.error(rid, _error("unsupported.verb", f"unknown verb {verb!r}", verb=verb))
        return None

    def _implicit_hello(self, rid: int | str, verb: str, params: dict[str, Any]) -> Event | None:
        """RFC-0002 6.4: a first request that is not hello settles version 1, no caps."""
        versions = self._settings.versions
        if 1 not in versions:
            exc = version_mismatch(versions)
            exc.id = rid
            return self._fatal(exc)
        outcome = HelloOutcome(1, frozenset(), self.max_frame, None, {"proto": [1]})
        self._settle(outcome, Trigger.IMPLICIT_HELLO)
        settled = HelloSettled(outcome)
        event = self._admit(rid, verb, params)  # hello is settled now: the ordinary path
        if event is None:
            return settled
        self._queued.append(event)
        return settled

    def _hello_request(self, rid: int | str, params: dict[str, Any]) -> Event | None:
        if self._state is not _PRE_HELLO:
            self._writer.error(
                rid,
                ProtocolViolation(
                    "protocol.hello_order", "hello must be the first request and is allowed once"
                ),
            )
            return None
        try:
            outcome = self._negotiate(params)
        except ProtocolViolation as exc:
            exc.id = rid
            return self._fatal(exc)
        except VenomError as exc:  # invalid params: the connection stays fresh (D-W2)
            self._writer.error(rid, exc)
            return None
        self._writer.ok(rid, outcome.result)
        self._settle(outcome, Trigger.HELLO)
        return HelloSettled(outcome)

    def _negotiate(self, params: dict[str, Any]) -> HelloOutcome:
        s = self._settings
        return negotiate_hello(
            params,
            server_name=s.name,
            server_version=s.version,
            versions=s.versions,
            caps=s.caps,
            max_frame=s.max_frame,
            schema=s.schema,
        )

    def _settle(self, outcome: HelloOutcome, trigger: Trigger) -> None:
        awaited = self._state is _AWAIT_HELLO
        self._state = advance(self._state, trigger)
        self.hello = outcome
        self._caps = caps = outcome.caps
        if self._runner is not None and self._lines is not None:  # the fast path reads lines
            self._inline = {
                name: spec for name, spec in self._runner.verbs.items() if _allowed(spec, caps)
            }
        self._writer.max_frame = outcome.max_frame
        buffer = self._lines if self._lines is not None else self._frames
        assert buffer is not None
        buffer.limit(outcome.max_frame)  # from the next message on, even in this read
        if awaited:  # the hello deadline ends; a message begun after HELLO gets its own
            partial = buffer.partial
            self.deadline = Deadline("message", self._settings.message_timeout) if partial else None

    def _cancel(self, rid: int | str, params: dict[str, Any]) -> Event | None:
        if "cancel" not in self._caps:
            err = _error(
                "unsupported.capability", "cancel needs capability 'cancel'", capability="cancel"
            )
        elif "id" not in params:
            err = _error("invalid_params.missing", "missing param 'id'", param="id")
        elif not is_valid_id(target := params["id"]):
            err = _error("invalid_params.type", "id must be an integer or string", param="id")
        elif target not in self._in_flight:
            err = _error("not_found.request", f"no request {target!r} in flight", id=target)
        else:
            del self._in_flight[target]
            self._calls.active -= 1
            # The target's final error goes out before cancel's own null, as in 4.4.
            self._writer.error(target, VenomError("cancelled", _BY_CLIENT))
            self._writer.ok(rid, None)
            return CallCancelled(target, "client")
        self._writer.error(rid, err)
        return None

    # -- binary frames ---------------------------------------------------------------------

    def _frame(self, frame: Frame) -> Event | None:
        type_, stream = frame.type, frame.stream
        if self._state is _AWAIT_HELLO:
            if type_ != HELLO:
                return self._fatal(
                    ProtocolViolation(
                        "protocol.hello_required", "HELLO must be the first frame", close=True
                    )
                )
            return self._binary_hello(frame)
        if type_ == HELLO:
            return self._fatal(
                ProtocolViolation("protocol.hello_order", "a second HELLO frame", close=True)
            )
        if type_ in (CONTROL, PING, PONG):
            if stream != 0:
                return self._fatal(bad_frame(f"frame type {type_} belongs on stream 0", type=type_))
            if type_ == CONTROL:
                return self._request(frame.payload)
            if type_ == PING:
                if len(frame.payload) > MAX_PING_PAYLOAD:
                    return self._fatal(bad_frame("PING payload longer than 64 bytes", type=type_))
                self._writer.frame(PONG, 0, frame.payload)
            return None  # the server sends no PING, so a PONG needs nothing
        if type_ in (CLOSE, ERROR):
            # On stream 0 the client is closing the connection; elsewhere it ends a tool
            # stream, which the core keeps no state for (D-W13).
            return self._close(None) if stream == 0 else None
        cap = self._settings.frame_caps.get(type_)
        if cap is None or cap not in self._caps:
            return self._fatal(
                bad_frame(f"frame type {type_:#06x} is not allowed here", type=type_)
            )
        if stream and not stream & 1 and stream not in self._server_streams:
            err = bad_frame(
                f"stream {stream} is even but was not opened by the server", stream=stream
            )
            self.send_stream_error(stream, err)
            return None
        return FrameReceived(frame)

    def _binary_hello(self, frame: Frame) -> Event:
        if frame.stream != 0:
            return self._fatal(bad_frame("HELLO belongs on stream 0", type=HELLO))
        try:
            params = loads(frame.payload)
        except ValueError as exc:
            return self._fatal(ProtocolViolation("protocol.parse", f"HELLO: {exc}", close=True))
        if type(params) is not dict:
            return self._fatal(
                ProtocolViolation("protocol.parse", "HELLO payload is not an object", close=True)
            )
        try:
            outcome = self._negotiate(params)
        except VenomError as exc:  # every hello failure closes a binary connection (D-W2)
            return self._fatal(exc)
        self._writer.frame(HELLO_OK, 0, dumps(outcome.result))
        self._settle(outcome, Trigger.HELLO)
        return HelloSettled(outcome)

    # -- replies ---------------------------------------------------------------------------

    def send_ok(self, id: int | str, value: Any) -> None:
        """The final success reply of call ``id``; dropped when it is no longer in flight.

        Raises ``TypeError`` (the call stays in flight) when ``value`` cannot be encoded. A
        result longer than ``max_frame`` is replaced by ``internal.too_large`` (D-W9).
        """
        in_flight = self._in_flight
        if id not in in_flight:
            return
        writer = self._writer
        if not writer.result(id, value):
            writer.error(id, _result_too_large(writer.max_frame))
        del in_flight[id]
        self._calls.active -= 1
        if not in_flight and self._state is _DRAINING:
            self._close(None)

    def send_error(self, id: int | str, error: VenomError) -> None:
        """The final error reply of call ``id``, cut to fit ``max_frame``; dropped if not in
        flight."""
        in_flight = self._in_flight
        if id not in in_flight:
            return
        del in_flight[id]
        self._calls.active -= 1
        self._writer.error(id, error)
        if not in_flight and self._state is _DRAINING:
            self._close(None)

    def send_item(self, id: int | str, value: Any) -> None:
        """One item of streaming call ``id``; dropped when it is no longer in flight.

        Raises ``TypeError`` when ``value`` cannot be encoded, and ``internal.too_large`` when
        the item would be longer than ``max_frame``.
        """
        if id in self._in_flight:
            self._writer.item(id, value)

    def send_frame(self, type_: int, stream: int, payload: bytes) -> None:
        """A frame from a tool frame handler; dropped once the connection is closed.

        Raises ``internal.too_large`` for a payload longer than ``max_frame``.
        """
        if self._state is _CLOSED:
            return
        if not 0 < type_ <= 0xFFFF:
            raise ValueError(f"frame type {type_} out of range 1..65535")
        if len(payload) > self.max_frame:
            raise _error(
                "internal.too_large",
                "frame payload larger than max_frame",
                max_frame=self.max_frame,
            )
        if stream and not stream & 1:
            self._server_streams.add(stream)
        self._writer.frame(type_, stream, payload)

    def send_stream_error(self, stream: int, error: VenomError) -> None:
        """An ``ERROR`` frame on ``stream``; on stream 0 it closes the connection (5.2)."""
        if self._state is _CLOSED:
            return
        self._writer.stream_error(stream, error)
        if stream == 0:
            self._close(error)

    # -- ending ----------------------------------------------------------------------------

    def deadline_passed(self, deadline: Deadline) -> None:
        """The transport's timer for ``deadline`` fired: unless it was replaced, close."""
        if deadline is not self.deadline or self._state is _CLOSED:
            return
        seconds = deadline.seconds
        what = {
            "idle": "no byte arrived",
            "hello": "no HELLO frame arrived",
            "message": "a message was not completed",
        }[deadline.kind]
        self._fatal(
            _error(f"timeout.{deadline.kind}", f"{what} within {seconds:g} s", seconds=seconds)
        )

    def shutdown(self, message: str) -> None:
        """The server is stopping: every call in flight ends ``cancelled``; binary: ``CLOSE``."""
        if self._state is _CLOSED:
            return
        err, writer = VenomError("cancelled", message), self._writer
        for rid in list(self._in_flight):
            writer.error(rid, err)
        writer.goodbye(message)
        self._close(None)

    def close_with(self, error: VenomError) -> None:
        """End the connection with ``error``, written like any fatal one (NDJSON ``id: null``,
        binary ``ERROR`` on stream 0); for limits the transport enforces."""
        if self._state is not _CLOSED:
            self._fatal(error)

    def connection_lost(self) -> None:
        """The transport is gone: forget every call (their budget returns to the daemon)."""
        if self._state is not _CLOSED:
            self._close(None)

    def _fatal(self, error: VenomError) -> ConnectionClosed:
        self._writer.fatal(error)
        return self._close(error)

    def _close(self, error: VenomError | None) -> ConnectionClosed:
        self._state = advance(self._state, Trigger.CLOSE)
        self._closed = closed = ConnectionClosed(error)
        self._calls.active -= len(self._in_flight)
        self._in_flight.clear()
        self.deadline = None
        buffer = self._lines if self._lines is not None else self._frames
        if buffer is not None:
            buffer.release()  # now, not whenever the cycle collector gets to the connection
        return closed


def _allowed(spec: VerbSpec, caps: frozenset[str]) -> bool:
    """RFC-0002 6.3: a verb gated by a capability needs it in the negotiated set."""
    cap = spec.capability
    return cap is None or cap in caps


def _duplicate_id(rid: int | str) -> ProtocolViolation:
    return ProtocolViolation("protocol.duplicate_id", f"id {rid!r} is already in flight")


def _result_too_large(max_frame: int) -> VenomError:
    return _error("internal.too_large", "result larger than max_frame", max_frame=max_frame)
