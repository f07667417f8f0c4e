"""The event feed behind the shared ``events`` verb (rfcs/0003-events.md).

Events live in one ring, bounded in count and in bytes. A reader (`Subscription`) is only a
position in it: publishing never waits for a reader, and one that falls further behind than the
ring holds is told so with an ``events.gap`` item instead of stalling the daemon or growing its
memory. No event can poison the feed: its payload is encoded once, when it is published, and
one larger than `MAX_EVENT_DATA` is kept as an ``events.truncated`` marker instead; an item too
big for one subscriber's ``max_frame`` is replaced by the same marker for that subscriber alone.
"""

from __future__ import annotations

import asyncio
import re
import sys
import time
from collections import deque
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import orjson

from venom_proto import encode_item

from .globs import Matcher, compile_globs

if TYPE_CHECKING:
    from venom_proto import Call

__all__ = (
    "GAP",
    "MAX_EVENT_DATA",
    "RING_BYTES",
    "RING_EVENTS",
    "TRUNCATED",
    "EventBus",
    "Subscription",
)

GAP = "events.gap"
TRUNCATED = "events.truncated"
#: Events the ring keeps at most (rfcs/0003 §3).
RING_EVENTS = 4096
#: Bytes the ring's events may hold at most, payloads and bookkeeping counted (rfcs/0003 §3).
RING_BYTES = 16 * 1024 * 1024
#: Largest payload (compact JSON, UTF-8 bytes) an event keeps; a larger one becomes a marker.
MAX_EVENT_DATA = 64 * 1024

_TYPE = re.compile(r"[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*\Z")
_MAX_TYPE = 128
#: What an event costs besides its payload bytes: the entry list, its seq, time and bytes header.
_ENTRY_COST = 200
#: What a built item adds besides its data text: the dict, the time text.
_ITEM_COST = 400
#: Room for the rest of an item line (id, seq, time, keys) when bounding its size from above.
_LINE_SLACK = 600


def _rfc3339(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t * 1000) % 1000:03d}Z"


_time = time.time


def _default(value: Any) -> Any:
    """orjson's fallback: any mapping encodes as an object; anything else is not JSON."""
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"event data holds a {type(value).__name__}, which is not JSON")


_dumps = orjson.dumps


def _compact(value: Any) -> str:
    return orjson.dumps(value).decode()


# One retained event: [seq, type, time, data, item, cost]. A list rather than a class:
# publishing runs on every echo call, and building a list display costs a fraction of an
# __init__ call. ``data`` is the payload as compact JSON bytes, or its size (an int) when it was
# too large to keep. The item (time text, data text) is built when a reader first needs it, so
# a daemon nobody listens to pays almost nothing per event.
_Event = list[Any]
_SEQ, _TYPE_, _TIME, _DATA, _ITEM, _COST = range(6)


def _gap(seq: int, *, after: int) -> dict[str, Any]:
    data = _compact({"after": after, "next": seq + 1})
    return {"seq": seq, "type": GAP, "time": _rfc3339(_time()), "data": data}


def _truncated(item: Mapping[str, Any], type_: str, size: int, limit: int) -> dict[str, Any]:
    data = _compact({"type": type_, "size": size, "limit": limit})
    return {"seq": item["seq"], "type": TRUNCATED, "time": item["time"], "data": data}


class EventBus:
    """Publishes events with a strictly increasing ``seq`` and serves ``events`` subscriptions.

    ``ring_events`` and ``ring_bytes`` bound what is retained for replay; ``max_data`` bounds one
    event's payload.
    """

    __slots__ = ("_append", "_max_bytes", "_max_cost", "_max_data", "_ring", "_room", "_seq",
                 "_types", "_wakeup")  # fmt: skip

    def __init__(
        self,
        ring_size: int = RING_EVENTS,
        *,
        ring_bytes: int = RING_BYTES,
        max_data: int = MAX_EVENT_DATA,
    ) -> None:
        if ring_size < 1 or max_data < 2 or ring_bytes < max_data + _ENTRY_COST + _ITEM_COST:
            raise ValueError("the ring must hold at least one event of max_data bytes")
        self._ring: deque[_Event] = deque(maxlen=ring_size)
        self._append = self._ring.append
        self._max_bytes = ring_bytes
        self._max_data = max_data
        self._max_cost = max_data + _ENTRY_COST
        self._room = ring_bytes
        self._seq = 0
        self._types: set[str] = set()
        self._wakeup: asyncio.Future[None] | None = None

    @property
    def last_seq(self) -> int:
        """The seq of the newest event, 0 before the first."""
        return self._seq

    @property
    def retained(self) -> tuple[int, int]:
        """How many events the ring holds and the bytes they are counted for."""
        return len(self._ring), sum(event[_COST] for event in self._ring)

    def publish(self, type_: str, data: Mapping[str, Any]) -> int:
        """Record an event and wake subscribers; returns its seq. Never blocks.

        ``data`` is encoded now, so later changes to it do not reach subscribers. Data that is
        not JSON raises ``TypeError`` and a type that is not a dotted name raises
        ``ValueError``; either way nothing is recorded.
        """
        if type_ not in self._types:
            self._check_type(type_)
        text = _dumps(data, _default)
        cost = len(text) + _ENTRY_COST
        seq = self._seq = self._seq + 1
        if cost <= self._max_cost:
            self._append([seq, type_, _time(), text, None, cost])
        else:  # too large to keep: readers get an events.truncated marker holding its size
            self._append([seq, type_, _time(), len(text), None, _ENTRY_COST])
            cost = _ENTRY_COST
        # `_room` is a lower bound: events the ring drops by count are not given back here
        # (that would cost every publish); `_trim` recounts once it runs out.
        room = self._room = self._room - cost
        if room < 0:
            self._trim()
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

    def _trim(self) -> None:
        """Recount the ring's bytes; over the limit, drop the oldest events down to 3/4 of it.

        Trimming below the limit means the next recount is at least a quarter of the limit in
        new events away, so recounting stays amortised O(1) per event.
        """
        ring = self._ring
        total = sum(event[_COST] for event in ring)
        if total > self._max_bytes:
            low = self._max_bytes * 3 // 4
            while len(ring) > 1 and total > low:
                total -= ring.popleft()[_COST]
        self._room = self._max_bytes - total

    def _item(self, event: _Event) -> dict[str, Any]:
        """The wire item of a retained event (rfcs/0003 §2), built once and kept."""
        item: dict[str, Any] | None = event[_ITEM]
        if item is not None:
            return item
        data = event[_DATA]
        if isinstance(data, int):
            item = {"seq": event[_SEQ], "type": event[_TYPE_], "time": _rfc3339(event[_TIME])}
            item = _truncated(item, event[_TYPE_], data, self._max_data)
        else:
            item = {"seq": event[_SEQ], "type": event[_TYPE_],
                    "time": _rfc3339(event[_TIME]), "data": data.decode()}  # fmt: skip
        event[_ITEM] = item
        # The text is a second copy of the payload (up to 4 bytes a character): count it.
        extra = sys.getsizeof(item["data"]) + _ITEM_COST
        event[_COST] += extra
        self._room -= extra
        if self._room < 0:
            self._trim()
        return item

    def subscribe(self, types: Sequence[str] = ("*",), cursor: int | None = None) -> Subscription:
        """A reader of the feed: events after ``cursor`` (or from now on) whose type matches."""
        return Subscription(self, compile_globs(types), cursor)

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

    __slots__ = ("_bus", "_match", "last", "position")

    def __init__(self, bus: EventBus, match: Matcher, cursor: int | None) -> None:
        self._bus = bus
        self._match = match
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
        while (item := self.poll()) is None:
            await self._bus.changed()
        return item


class _FrameFit:
    """Replaces an item too large for the subscriber's ``max_frame`` by a truncation marker."""

    __slots__ = ("_call", "_max_frame")

    def __init__(self, call: Call) -> None:
        self._call = call
        self._max_frame: int = call.connection.max_frame

    def __call__(self, item: dict[str, Any]) -> dict[str, Any]:
        # Each character of the data text takes at most 4 bytes on the wire (a quote or
        # backslash is escaped to 2, the rest is UTF-8); the exact size is computed only when
        # that bound does not fit.
        data, type_ = item["data"], item["type"]
        if 4 * (len(data) + len(type_)) + _LINE_SLACK <= self._max_frame:
            return item
        line = len(encode_item(self._call.id, item))
        if line <= self._max_frame:
            return item
        return _truncated(item, type_, len(data.encode()), self._max_frame)
