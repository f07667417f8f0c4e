"""The event bus behind the shared ``events`` verb (rfcs/0003-events.md).

Events live in one bounded ring. A subscriber is only a read position into it: publishing never
waits for a subscriber, and one that falls further behind than the ring holds is told so with an
``events.gap`` item instead of stalling the daemon or growing memory.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections import deque
from collections.abc import Iterable, Mapping
from itertools import islice
from typing import Any

from venom_proto import VenomError
from venom_proto._server import Call

__all__ = ("EventBus",)

_PATTERN = re.compile(r"[a-z0-9_.*]+\Z")
GAP = "events.gap"


def _rfc3339(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t * 1000) % 1000:03d}Z"


_time = time.time


def _now() -> str:
    return _rfc3339(_time())


# One retained event: [seq, type, time, data, item]. A list rather than a class: publishing
# runs on every echo call, and building a list display costs a fraction of an __init__ call.
# The item (time text, compact JSON data) is built when a subscriber is first sent it, so a
# daemon nobody listens to pays almost nothing per event.
_Event = list[Any]
_SEQ, _TYPE, _TIME, _DATA, _ITEM = range(5)


def _item(event: _Event) -> dict[str, Any]:
    item: dict[str, Any] | None = event[_ITEM]
    if item is None:
        data = json.dumps(event[_DATA], separators=(",", ":"), ensure_ascii=False)
        item = event[_ITEM] = {"seq": event[_SEQ], "type": event[_TYPE],
                               "time": _rfc3339(event[_TIME]), "data": data}  # fmt: skip
    return item


def _compile_globs(types: Iterable[str]) -> re.Pattern[str]:
    parts = []
    for i, glob in enumerate(types):
        if not _PATTERN.match(glob):
            raise VenomError(
                "invalid_params.pattern",
                f"type glob {glob!r} uses characters outside [a-z0-9_.*]",
                {"param": f"types.{i}"},
            )
        parts.append(".*".join(re.escape(p) for p in glob.split("*")))
    return re.compile("(?:" + "|".join(parts) + r")\Z") if parts else re.compile(r"(?!)")


class EventBus:
    """Publishes events with a strictly increasing ``seq`` and serves ``events`` subscriptions."""

    def __init__(self, ring_size: int = 4096) -> None:
        self._ring: deque[_Event] = deque(maxlen=ring_size)
        self._append = self._ring.append
        self._seq = 0
        self._wakeup: asyncio.Future[None] | None = None

    @property
    def last_seq(self) -> int:
        """The seq of the newest event, 0 before the first."""
        return self._seq

    def publish(self, type_: str, data: Mapping[str, Any]) -> int:
        """Record an event and wake subscribers; returns its seq. Never blocks."""
        seq = self._seq = self._seq + 1
        self._append([seq, type_, _time(), data, None])
        if self._wakeup is not None:
            wakeup, self._wakeup = self._wakeup, None
            if not wakeup.done():
                wakeup.set_result(None)
        return seq

    def _after(self, seq: int) -> list[_Event]:
        """Retained events with seq > ``seq``, oldest first."""
        ring = self._ring
        if not ring or ring[-1][_SEQ] <= seq:
            return []
        start = max(0, seq + 1 - ring[0][_SEQ])
        return list(islice(ring, start, None))

    async def _changed(self) -> None:
        if self._wakeup is None or self._wakeup.done():
            self._wakeup = asyncio.get_running_loop().create_future()
        await asyncio.shield(self._wakeup)

    async def handle(self, call: Call, params: dict[str, Any]) -> dict[str, Any]:
        """The ``events`` verb: replay after ``cursor``, then follow live events until cancelled.

        Lost events (dropped from the ring, or a cursor from before a restart) are reported by
        one ``events.gap`` item whose seq is one less than the next seq sent (rfcs/0003 §3).
        """
        match = _compile_globs(params["types"]).match
        cursor = params.get("cursor")
        position = self._seq if cursor is None else cursor
        last = 0 if cursor is None else cursor
        if position > self._seq:  # the cursor is from an earlier daemon run
            await call.emit(_gap(self._seq, after=position))
            position = last = self._seq
        while True:
            batch = self._after(position)
            if batch and batch[0][_SEQ] > position + 1:
                gap_seq = batch[0][_SEQ] - 1
                await call.emit(_gap(gap_seq, after=position))
                last = gap_seq
            for event in batch:
                position = event[_SEQ]
                if match(event[_TYPE]):
                    await call.emit(_item(event))
                    last = position
            if not params["follow"]:
                return {"last": last}
            if self._seq == position:
                await self._changed()


def _gap(seq: int, *, after: int) -> dict[str, Any]:
    data = json.dumps({"after": after, "next": seq + 1}, separators=(",", ":"))
    return {"seq": seq, "type": GAP, "time": _now(), "data": data}
