"""`EventBus.subscribe` for handlers: globs, cursor replay, gaps, cancellation, frame fit."""

from __future__ import annotations

import asyncio
import tracemalloc
from typing import Any

import pytest

from venom_gen.daemon.events import GAP, TRUNCATED, EventBus, event_data
from venom_proto import Call, ConnectionInfo


class _Host:
    async def emit_item(self, call: Call, item: Any) -> None:
        pass


def _call(max_frame: int = 1024 * 1024) -> Call:
    info = ConnectionInfo(id=1, uid=0, gid=0, pid=None, max_frame=max_frame)
    return Call(7, "note.watch", info, _Host(), streams=True)


async def _take(sub: Any, n: int) -> list[dict[str, Any]]:
    out = []
    async with asyncio.timeout(5):
        async for item in sub:
            out.append(item)
            if len(out) == n:
                break
    return out


def test_replay_after_a_cursor_with_a_glob_filter() -> None:
    bus = EventBus()
    for type_ in ("note.added", "echo.echoed", "note.removed", "note.added"):
        bus.publish(type_, {"t": type_})
    items = asyncio.run(_take(bus.subscribe(["note.*"], cursor=1), 2))
    assert [(i["seq"], i["type"]) for i in items] == [(3, "note.removed"), (4, "note.added")]
    assert event_data(items[0]) == {"t": "note.removed"}


def test_without_a_cursor_only_later_events_arrive() -> None:
    async def main() -> list[dict[str, Any]]:
        bus = EventBus()
        bus.publish("a.old", {})
        sub = bus.subscribe()

        async def later() -> None:
            await asyncio.sleep(0.01)
            bus.publish("a.new", {"n": 1})

        task = asyncio.create_task(later())
        items = await _take(sub, 1)
        await task
        return items

    [item] = asyncio.run(main())
    assert (item["seq"], item["type"]) == (2, "a.new")


def test_a_reader_behind_the_ring_gets_a_gap_then_the_rest() -> None:
    bus = EventBus(ring_size=4)
    for n in range(10):
        bus.publish("a.b", {"n": n})
    items = asyncio.run(_take(bus.subscribe(cursor=0), 5))
    assert items[0]["type"] == GAP
    assert event_data(items[0]) == {"after": 0, "next": 7}
    assert [i["seq"] for i in items[1:]] == [7, 8, 9, 10]


def test_a_cursor_from_an_earlier_run_is_a_gap() -> None:
    bus = EventBus()
    bus.publish("a.b", {})
    [gap] = asyncio.run(_take(bus.subscribe(cursor=50), 1))
    assert gap["type"] == GAP
    assert event_data(gap) == {"after": 50, "next": 2}


def test_iteration_ends_when_the_call_is_cancelled() -> None:
    async def main() -> list[dict[str, Any]]:
        bus = EventBus()
        call = _call()
        got: list[dict[str, Any]] = []

        async def watch() -> None:
            async for item in bus.subscribe(call=call):
                got.append(item)
                call.cancelled = True  # the client cancels after the first item

        task = asyncio.create_task(watch())
        await asyncio.sleep(0)
        bus.publish("a.b", {})
        bus.publish("a.b", {})
        async with asyncio.timeout(5):
            await task
        return got

    assert [i["seq"] for i in asyncio.run(main())] == [1]


def test_a_cancelled_task_stops_waiting_and_leaves_the_bus_usable() -> None:
    async def main() -> list[int]:
        bus = EventBus()
        first = asyncio.create_task(_take(bus.subscribe(), 1))
        await asyncio.sleep(0.01)
        first.cancel()
        with pytest.raises(asyncio.CancelledError):
            await first
        second = asyncio.create_task(_take(bus.subscribe(), 1))
        await asyncio.sleep(0.01)
        bus.publish("a.b", {})
        return [i["seq"] for i in await second]

    assert asyncio.run(main()) == [1]


def test_an_item_too_large_for_the_callers_frame_is_a_marker() -> None:
    bus = EventBus()
    bus.publish("a.big", {"text": "x" * 5000})
    [item] = asyncio.run(_take(bus.subscribe(cursor=0, call=_call(max_frame=1024)), 1))
    assert item["type"] == TRUNCATED
    assert event_data(item)["type"] == "a.big"
    assert event_data(item)["limit"] == 1024


def test_a_slow_subscriber_holds_no_queue() -> None:
    """Memory does not grow with events published while a subscriber reads nothing."""
    bus = EventBus(ring_size=256)
    subs = [bus.subscribe(cursor=0) for _ in range(100)]
    for n in range(300):
        bus.publish("a.b", {"n": n})
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for n in range(20000):
        bus.publish("a.b", {"n": n})
    grown = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert grown < 1024 * 1024  # the ring is bounded; 100 readers add nothing per event
    [gap, first] = asyncio.run(_take(subs[0], 2))
    assert gap["type"] == GAP
    assert first["seq"] == bus.last_seq - 255
