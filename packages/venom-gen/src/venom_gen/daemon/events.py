"""The event feed behind the shared ``events`` verb (rfcs/0003-events.md).

Events live in one ring, bounded in count and in bytes. A reader (`Subscription`) is only a
position in it: publishing never waits for a reader, and one that falls further behind than the
ring holds is told so with an ``events.gap`` item instead of stalling the daemon or growing its
memory.

No event can poison the feed. Payloads are measured as they are published, `CHUNK` at a time
(one ``orjson.dumps`` of the chunk costs a fraction of one call per event, and publishing runs on
every echo); a payload over `MAX_EVENT_DATA`, or one that is not JSON, is replaced by an
``events.truncated`` marker. A reader that gets to an event first measures it itself, and an
item too big for one subscriber's ``max_frame`` becomes the same marker for that subscriber.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections import deque
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import orjson

from venom_proto import encode_item
from venom_proto.stdjson import std_dumps

from .globs import Matcher, compile_globs

if TYPE_CHECKING:
    from typing import Protocol

    from venom_proto import Call, ConnectionInfo

    class CallState(Protocol):
        """What a subscription reads of its handler's call: a `Call`, or a typed handler's
        narrowed view of one (``StreamingCall``)."""

        @property
        def id(self) -> int | str: ...

        @property
        def connection(self) -> ConnectionInfo: ...

        @property
        def cancelled(self) -> bool: ...


__all__ = (
    "CHUNK",
    "GAP",
    "MAX_EVENT_DATA",
    "RING_BYTES",
    "RING_EVENTS",
    "TRUNCATED",
    "EventBus",
    "Subscription",
    "event_data",
)

GAP = "events.gap"
TRUNCATED = "events.truncated"
#: Events the ring keeps at most (rfcs/0003 §3).
RING_EVENTS = 4096
#: Bytes the ring's events may be counted for at most (rfcs/0003 §3).
RING_BYTES = 16 * 1024 * 1024
#: Largest payload (compact JSON, UTF-8 bytes) an event keeps; a larger one becomes a marker.
MAX_EVENT_DATA = 64 * 1024
#: Payloads are measured this many at a time; at most CHUNK - 1 events are not yet counted.
CHUNK = 16
_CHUNK_MASK = CHUNK - 1  # CHUNK is a power of two

log = logging.getLogger("venom_gen.daemon")
_TYPE = re.compile(r"[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*\Z")
_MAX_TYPE = 128
#: What one event is counted for besides its payload: the entry, its item dict, the time text.
_ENTRY_COST = 512
#: Room for the rest of an item line (id, seq, time, keys) when bounding its size from above.
_LINE_SLACK = 600
_dumps = orjson.dumps
_time = time.time


def _rfc3339(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t * 1000) % 1000:03d}Z"


def _default(value: Any) -> Any:
    """orjson's fallback: any mapping encodes as an object; anything else is not JSON."""
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"a {type(value).__name__} is not JSON")


def _charge(size: int, ascii_: bool) -> int:
    # A str takes up to 4 bytes a character in memory, and a character is at least one byte.
    return (size if ascii_ else 4 * size) + _ENTRY_COST


class _Lost:
    """Stands for a payload the ring does not keep: too large, or not JSON."""

    __slots__ = ("reason", "size")

    def __init__(self, reason: str, size: int) -> None:
        self.reason = reason
        self.size = size


# One retained event: [seq, type, time, data, item]. A list rather than a class: publishing
# runs on every echo call, and building a list display costs a fraction of an __init__ call.
# ``data`` is the publisher's mapping until a reader needs it, then its compact JSON text, or
# a `_Lost`. The item is built when a reader first needs it.
_Event = list[Any]
_SEQ, _TYPE_, _TIME, _DATA, _ITEM = range(5)


def _gap(seq: int, *, after: int) -> dict[str, Any]:
    data = std_dumps({"after": after, "next": seq + 1}).decode()
    return {"seq": seq, "type": GAP, "time": _rfc3339(_time()), "data": data}


def _marker(
    item: Mapping[str, Any], type_: str, reason: str, size: int, limit: int
) -> dict[str, Any]:
    data = std_dumps({"type": type_, "reason": reason, "size": size, "limit": limit}).decode()
    return {"seq": item["seq"], "type": TRUNCATED, "time": item["time"], "data": data}


class EventBus:
    """Publishes events with a strictly increasing ``seq`` and serves ``events`` subscriptions.

    ``ring_size`` and ``ring_bytes`` bound what is retained for replay; ``max_data`` bounds one
    event's payload.
    """

    __slots__ = ("_append", "_chunks", "_known", "_max_bytes", "_max_data", "_pend", "_pending",
                 "_ring", "_room", "_seq", "_types", "_wakeup")  # fmt: skip

    def __init__(
        self,
        ring_size: int = RING_EVENTS,
        *,
        ring_bytes: int = RING_BYTES,
        max_data: int = MAX_EVENT_DATA,
    ) -> None:
        if ring_size < 1 or max_data < 2 or ring_bytes < 2 * CHUNK * _charge(max_data, False):
            raise ValueError("ring_bytes must hold two chunks of events of max_data bytes")
        self._ring: deque[_Event] = deque(maxlen=ring_size)
        self._append = self._ring.append
        self._max_bytes = ring_bytes
        self._max_data = max_data
        self._room = ring_bytes  # what the counted events leave of the byte bound
        self._pending: list[Any] = []  # payloads of the newest events, not yet counted
        self._pend = self._pending.append
        self._chunks: deque[list[int]] = deque()  # [last seq, bytes] of counted events
        self._seq = 0
        self._types: set[str] = set()
        # The type last published, already checked: a run of one type skips the set lookup.
        self._known: str | None = None
        self._wakeup: asyncio.Future[None] | None = None

    @property
    def last_seq(self) -> int:
        """The seq of the newest event, 0 before the first."""
        return self._seq

    @property
    def retained(self) -> tuple[int, int]:
        """How many events the ring holds and the bytes they are counted for, those not yet
        counted included (an estimate for them)."""
        self._reclaim()
        raw = _dumps(self._pending, _default)
        estimate = (len(raw) if raw.isascii() else 4 * len(raw)) + _ENTRY_COST * len(self._pending)
        return len(self._ring), self._max_bytes - self._room + estimate

    def publish(self, type_: str, data: Mapping[str, Any]) -> int:
        """Record an event and wake subscribers; returns its seq. Never blocks.

        ``data`` must be JSON (a payload that is not becomes an ``events.truncated`` marker, and
        the error is logged) and must not change after publishing. A ``type_`` that is not a
        dotted name raises ``ValueError`` and records nothing.
        """
        if type_ is not self._known:
            if type_ not in self._types:
                self._check_type(type_)
            self._known = type_
        seq = self._seq = self._seq + 1
        self._append([seq, type_, _time(), data, None])
        self._pend(data)
        if not seq & _CHUNK_MASK:  # the pending payloads are those of seq - CHUNK + 1 .. seq
            self._count()
        if self._wakeup is not None:
            wakeup, self._wakeup = self._wakeup, None
            if not wakeup.done():
                wakeup.set_result(None)
        return seq

    def _check_type(self, type_: str) -> None:
        if len(type_) > _MAX_TYPE or not _TYPE.match(type_) or type_.startswith("events."):
            raise ValueError(
                f"event type {type_!r} must be a dotted name of at most {_MAX_TYPE} characters"
                " outside the reserved events.* types"
            )
        if len(self._types) < 1024:
            self._types.add(type_)

    def _count(self) -> None:
        """Count the pending events against the byte bound, dropping the oldest if needed.

        They are the newest events, the ring's last ``len(pending)`` (fewer if it is smaller).
        """
        pending = self._pending
        try:
            raw = _dumps(pending, _default)
        except TypeError:
            raw = None
        if raw is not None and len(raw) <= self._max_data:  # so is every payload in it
            cost = (len(raw) if raw.isascii() else 4 * len(raw)) + _ENTRY_COST * len(pending)
        else:
            ring = self._ring
            events = [ring[i] for i in range(-min(len(pending), len(ring)), 0)]
            cost = sum(self._settle(event) for event in events)
        pending.clear()
        self._chunks.append([self._seq, cost])
        self._room -= cost
        if self._room < 0:
            self._reclaim()

    def _settle(self, event: _Event) -> int:
        """Encode one payload for good (text, or a `_Lost`); what it is counted for."""
        data = event[_DATA]
        if isinstance(data, _Lost):
            return _ENTRY_COST
        if not isinstance(data, str):
            try:
                raw = _dumps(data, _default)
            except TypeError as exc:
                log.error("event %d (%s): data is not JSON: %s", event[_SEQ], event[_TYPE_], exc)
                event[_DATA] = _Lost("not_json", 0)
                return _ENTRY_COST
            if len(raw) > self._max_data:
                event[_DATA] = _Lost("too_large", len(raw))
                return _ENTRY_COST
            data = event[_DATA] = raw.decode()
        return _charge(len(data), data.isascii())

    def _reclaim(self) -> None:
        """Give back what events dropped by count were counted for; then, if the bound is
        passed, drop the oldest events until a quarter of it is free (so this runs rarely)."""
        ring, chunks = self._ring, self._chunks
        oldest = ring[0][_SEQ] if ring else self._seq + 1
        while chunks and chunks[0][0] < oldest:
            self._room += chunks.popleft()[1]
        if self._room >= 0:
            return
        while chunks and self._room < self._max_bytes // 4:
            last, cost = chunks.popleft()
            while ring and ring[0][_SEQ] <= last:
                ring.popleft()
            self._room += cost

    def _item(self, event: _Event) -> dict[str, Any]:
        """The wire item of a retained event (rfcs/0003 §2), built once and kept."""
        item: dict[str, Any] | None = event[_ITEM]
        if item is None:
            if not isinstance(event[_DATA], str | _Lost):
                self._settle(event)  # a reader got here before the event was counted
            data = event[_DATA]
            item = {"seq": event[_SEQ], "type": event[_TYPE_], "time": _rfc3339(event[_TIME])}
            if isinstance(data, _Lost):
                item = _marker(item, event[_TYPE_], data.reason, data.size, self._max_data)
            else:
                item["data"] = data
            event[_ITEM] = item
        return item

    def subscribe(
        self,
        types: Sequence[str] = ("*",),
        cursor: int | None = None,
        *,
        call: CallState | None = None,
    ) -> Subscription:
        """A reader of the feed: events after ``cursor`` (or from now on) whose type matches
        one of the ``types`` globs (``*`` one segment, ``**`` any; rfcs/0003 §2).

        ``async for item in bus.subscribe(...)`` yields the ``events`` verb's items (``data``
        is compact JSON text; `event_data` decodes it), ``events.gap`` markers for what was
        lost, and waits for live events. With ``call``, the handler's call: iteration ends
        once it is cancelled, and an item too large for its connection's ``max_frame``
        becomes an ``events.truncated`` marker. A subscription is only a position in the
        ring: a slow reader holds no queue and costs the daemon no memory; one that falls
        behind what the ring keeps gets a gap marker (rfcs/0003 §3).
        """
        return Subscription(self, compile_globs(types), cursor, call=call)

    async def changed(self) -> None:
        """Wait until the next event is published."""
        if self._wakeup is None or self._wakeup.done():
            self._wakeup = asyncio.get_running_loop().create_future()
        await asyncio.shield(self._wakeup)

    async def handle(self, call: Call, params: dict[str, Any]) -> dict[str, Any]:
        """The ``events`` verb: replay after ``cursor``, then follow live events if asked.

        Lost events (dropped from the ring, or a cursor from before a restart) are reported by
        one ``events.gap`` item whose seq is one less than the next seq sent (rfcs/0003 §3).
        """
        sub = self.subscribe(params["types"], params.get("cursor"))
        fit = _FrameFit(call)
        end = self._seq
        while (item := sub.poll(until=end)) is not None:
            await call.emit(fit(item))
        if not params["follow"]:
            return {"last": sub.last}
        while True:
            while (item := sub.poll()) is not None:
                await call.emit(fit(item))
            await self.changed()


class Subscription:
    """One reader's position in the feed: items (rfcs/0003 §2) in ``seq`` order, gaps reported.

    `poll` returns the next item available now; ``async for`` also waits for live events.
    ``last`` is the seq of the last item returned (the cursor to resume from).
    """

    __slots__ = ("_bus", "_call", "_fit", "_match", "last", "position")

    def __init__(
        self, bus: EventBus, match: Matcher, cursor: int | None, *, call: CallState | None = None
    ) -> None:
        self._bus = bus
        self._match = match
        self._call = call
        self._fit = None if call is None else _FrameFit(call)
        #: The seq of the last event looked at, whether or not its type matched.
        self.position = bus.last_seq if cursor is None else cursor
        self.last = 0 if cursor is None else cursor

    def poll(self, until: int | None = None) -> dict[str, Any] | None:
        """The next matching item, a gap marker, or None when none is retained (up to ``until``)."""
        bus = self._bus
        if self.position > bus.last_seq:  # the cursor is from an earlier daemon run
            after, self.position = self.position, bus.last_seq
            self.last = self.position
            return _gap(self.position, after=after)
        ring = bus._ring
        limit = bus.last_seq if until is None else min(until, bus.last_seq)
        while self.position < limit:
            oldest = ring[0][_SEQ]
            if self.position + 1 < oldest:
                after, self.position = self.position, oldest - 1
                self.last = self.position
                return _gap(self.position, after=after)
            event = ring[self.position + 1 - oldest]
            self.position = event[_SEQ]
            if self._match(event[_TYPE_]):
                self.last = self.position
                return bus._item(event)
        return None

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> dict[str, Any]:
        call = self._call
        while True:
            if call is not None and call.cancelled:
                raise StopAsyncIteration
            item = self.poll()
            if item is not None:
                return item if self._fit is None else self._fit(item)
            await self._bus.changed()


def event_data(item: Mapping[str, Any]) -> Any:
    """The decoded ``data`` of an item a `Subscription` yields (markers' data included)."""
    return orjson.loads(item["data"])


class _FrameFit:
    """Replaces an item too large for the subscriber's ``max_frame`` by a truncation marker."""

    __slots__ = ("_call", "_max_frame")

    def __init__(self, call: CallState) -> None:
        self._call = call
        self._max_frame: int = call.connection.max_frame

    def __call__(self, item: dict[str, Any]) -> dict[str, Any]:
        # Each character of the data text takes at most 4 bytes on the wire (a quote or
        # backslash is escaped to 2, the rest is UTF-8); the exact size is computed only when
        # that bound does not fit.
        data, type_ = item["data"], item["type"]
        if 4 * (len(data) + len(type_)) + _LINE_SLACK <= self._max_frame:
            return item
        if len(encode_item(self._call.id, item)) <= self._max_frame:
            return item
        return _marker(item, type_, "too_large", len(data.encode()), self._max_frame)
