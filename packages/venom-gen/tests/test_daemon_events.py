"""The event bus (rfcs/0003): seq, globs, cursor replay, gaps, follow."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from venom_gen.daemon.events import EventBus
from venom_proto import ConnectionInfo, VenomError


class FakeCall:
    def __init__(self) -> None:
        self.id = 1
        self.connection = ConnectionInfo(id=1, uid=0, gid=0, pid=None)
        self.items: list[dict[str, Any]] = []

    async def emit(self, item: Any) -> None:
        self.items.append(item)


def run(bus: EventBus, **params: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    call = FakeCall()
    full = {"types": ["*"], "follow": False, **params}
    result = asyncio.run(bus.handle(call, full))  # type: ignore[arg-type]
    return call.items, result


def test_seq_strictly_increases_and_data_is_compact_json() -> None:
    bus = EventBus()
    assert [bus.publish("a.x", {"n": i}) for i in range(3)] == [1, 2, 3]
    items, result = run(bus, cursor=0)
    assert [i["seq"] for i in items] == [1, 2, 3]
    assert json.loads(items[0]["data"]) == {"n": 0}
    assert items[0]["data"] == '{"n":0}'
    assert result == {"last": 3}


def test_globs_filter_types() -> None:
    bus = EventBus()
    for t in ("echo.echoed", "note.added", "echo.repeated"):
        bus.publish(t, {})
    items, _ = run(bus, cursor=0, types=["echo.*"])
    assert [i["type"] for i in items] == ["echo.echoed", "echo.repeated"]


def test_cursor_replays_only_later_events() -> None:
    bus = EventBus()
    for _ in range(5):
        bus.publish("a", {})
    items, result = run(bus, cursor=3)
    assert [i["seq"] for i in items] == [4, 5]
    assert result == {"last": 5}


def test_no_cursor_means_only_new_events() -> None:
    bus = EventBus()
    bus.publish("a", {})
    items, result = run(bus)
    assert items == []
    assert result == {"last": 0}


def test_cursor_older_than_the_ring_yields_a_gap_marker() -> None:
    bus = EventBus(ring_size=3)
    for _ in range(6):
        bus.publish("a", {})
    items, result = run(bus, cursor=0)
    assert items[0]["type"] == "events.gap"
    assert items[0]["seq"] == 3
    assert items[0]["data"] == '{"after":0,"next":4}'
    assert [i["seq"] for i in items[1:]] == [4, 5, 6]
    assert result == {"last": 6}


def test_cursor_from_an_earlier_run_yields_a_gap_then_live_events() -> None:
    bus = EventBus()
    bus.publish("a", {})
    items, result = run(bus, cursor=50, types=["nothing"])
    assert [(i["type"], i["seq"]) for i in items] == [("events.gap", 1)]
    assert items[0]["data"] == '{"after":50,"next":2}'
    assert result == {"last": 1}


def test_bad_glob_is_invalid_params_pattern() -> None:
    with pytest.raises(VenomError) as info:
        run(EventBus(), types=["ok.*", "Bad!"])
    assert info.value.code == "invalid_params.pattern"
    assert info.value.data == {"param": "types.1"}


def test_follow_delivers_live_events_in_order() -> None:
    async def scenario() -> list[int]:
        bus = EventBus()
        call = FakeCall()
        task = asyncio.create_task(bus.handle(call, {"types": ["*"], "follow": True}))  # type: ignore[arg-type]
        await asyncio.sleep(0)
        for _ in range(3):
            bus.publish("x", {})
            await asyncio.sleep(0)
        bus.publish("x", {})
        for _ in range(10):
            await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return [i["seq"] for i in call.items]

    assert asyncio.run(scenario()) == [1, 2, 3, 4]
