"""Progress notifications for a ``tools/call`` that carries a ``progressToken`` (issue 26).

Hosts give up on a call that stays silent (the TypeScript SDK's client after 60 s unless
progress resets its timer), so while a call runs the adapter reports, on the caller's token:

- for a streaming verb, one notification per item received: ``progress`` is the number of
  items so far, ``total`` the number the params fix (``item_totals``), else absent;
- for any call, a heartbeat when nothing was sent for ``interval`` seconds.

The progress value must increase with every notification (MCP), and a heartbeat adds no item,
so heartbeat ``k`` since the last item reports ``items + k/(k+1)``: strictly increasing, and its
whole part is still the items so far. ``total`` is sent only while ``progress`` stays within it.
Items are still buffered and returned whole (RFC-0004 §5): a notification carries no item data.

Bounded in rate: items that arrive within ``min_gap`` of the last notification are counted and
reported by the next one, or by `Progress.finish` when the stream ends. Every notification is
sent before the call's result (the caller stops `Progress` first), and none without a token
(the caller creates none).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import anyio

__all__ = ("HEARTBEAT", "MIN_GAP", "Progress", "SendProgress")

#: Seconds without a notification before a heartbeat (issue 26: every 5-10 s).
HEARTBEAT = 5.0
#: Fewest seconds between two item notifications; faster items are coalesced.
MIN_GAP = 0.05

#: ``(progress, total, message)``: the SDK's ``report_progress`` for the call's token.
SendProgress = Callable[[float, float | None, str | None], Awaitable[None]]


class Progress:
    """The progress of one call: `item` per stream item, `heartbeat` as a task beside it."""

    def __init__(
        self,
        send: SendProgress,
        *,
        total: int | None = None,
        interval: float = HEARTBEAT,
        min_gap: float = MIN_GAP,
    ) -> None:
        self._send = send
        self._total = total
        self._interval = interval
        self._min_gap = min_gap
        self._items = 0
        self._reported = 0  # items counted by the last item notification
        self._beats = 0  # heartbeats since the last item notification
        self._start = anyio.current_time()
        self._last = float("-inf")  # when the last notification went out
        self._lock = anyio.Lock()  # one value computed and written at a time: they must rise

    async def item(self) -> None:
        """Count one item; notify unless the last notification was under ``min_gap`` ago."""
        self._items += 1
        if anyio.current_time() - self._last >= self._min_gap:
            async with self._lock:
                self._beats = 0
                self._reported = self._items
                await self._notify(float(self._items), None)

    async def finish(self) -> None:
        """Report items counted but not yet reported (coalesced), once the stream has ended
        and before its result goes out, so the last notification holds the final count."""
        async with self._lock:
            if self._items > self._reported:
                self._beats = 0
                self._reported = self._items
                await self._notify(float(self._items), None)

    async def heartbeat(self) -> None:
        """Notify whenever ``interval`` seconds pass without a notification; runs until
        cancelled."""
        while True:
            due = max(self._start, self._last) + self._interval
            await anyio.sleep_until(due)
            if max(self._start, self._last) + self._interval > anyio.current_time():
                continue  # an item notification went out meanwhile
            async with self._lock:
                self._beats += 1
                progress = self._items + self._beats / (self._beats + 1)
                await self._notify(progress, "running")

    async def _notify(self, progress: float, message: str | None) -> None:
        total = self._total
        if total is not None and progress > total:
            total = None  # a heartbeat after the last item: progress past total would be a lie
        self._last = anyio.current_time()
        await self._send(progress, None if total is None else float(total), message)
