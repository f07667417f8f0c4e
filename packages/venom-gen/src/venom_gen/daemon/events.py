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
from typing import Any

from venom_proto import VenomError
from venom_proto._server import Call

__all__ = ("EventBus",)

_PATTERN = re.compile(r"[a-z0-9_.*]+\Z")
GAP = "events.gap"


def _rfc3339(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t * 1000) % 1000:03d}Z"


def _now() -> str:
    return _rfc3339(time.time())


class _Event:
    """One retained event. Publishing only records it: the item (time text, compact JSON data)
    is built when a subscriber is sent it, so a daemon nobody listens to pays almost nothing.
    """

    __slots__ = ("_item", "data", "seq", "time", "type")

    def __init__(self, seq: int, type_: str, data: Mapping[str, Any]) -> None:
        self.seq = seq
        self.type = type_
        self.time = time.time()
        self.data = data
        self._item: dict[str, Any] | None = None

    def item(self) -> dict[str, Any]:
        if self._item is None:
            data = json.dumps(self.data, separators=(",", ":"), ensure_ascii=False)
            self._item = {"seq": self.seq, "type": self.type, "time": _rfc3339(self.time),
                          "data": data}  # fmt: skip
        return self._item


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
        self._seq = 0
        self._wakeup: asyncio.Future[None] | None = None

    @property
    def last_seq(self) -> int:
        """The seq of the newest event, 0 before the first."""
        return self._seq

    def publish(self, type_: str, data: Mapping[str, Any]) -> int:
        """Record an event and wake subscribers; returns its seq. Never blocks."""
        self._seq += 1
        self._ring.append(_Event(self._seq, type_, data))
        wakeup, self._wakeup = self._wakeup, None
        if wakeup is not None and not wakeup.done():
            wakeup.set_result(None)
        return self._seq

    def _after(self, seq: int) -> list[_Event]:
        """Retained events with seq > ``seq``, oldest first."""
        if not self._ring or self._ring[-1].seq <= seq:
            return []
        start = max(0, seq + 1 - self._ring[0].seq)
        return [self._ring[i] for i in range(start, len(self._ring))]

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
            if batch and batch[0].seq > position + 1:
                gap_seq = batch[0].seq - 1
                await call.emit(_gap(gap_seq, after=position))
                last = gap_seq
            for event in batch:
                position = event.seq
                if match(event.type):
                    await call.emit(event.item())
                    last = position
            if not params["follow"]:
                return {"last": last}
            if self._seq == position:
                await self._changed()


def _gap(seq: int, *, after: int) -> dict[str, Any]:
    data = json.dumps({"after": after, "next": seq + 1}, separators=(",", ":"))
    return {"seq": seq, "type": GAP, "time": _now(), "data": data}
