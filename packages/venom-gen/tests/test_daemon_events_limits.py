"""The event feed against hostile input (rfcs/0003 §1-§3): globs, oversized events, the ring.

Each test takes a class of input: globs of any shape and count, payloads of any size and
escaping, and rings filled by count or by bytes. Timing is asserted only with margins of a
thousand or more, as CPU time, for the cases whose failure mode is a stalled event loop.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import tracemalloc
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from venom_gen.daemon.events import CHUNK, MAX_EVENT_DATA, EventBus
from venom_gen.daemon.globs import MAX_GLOB_LENGTH, MAX_GLOBS, compile_globs, glob_matches
from venom_proto import ConnectionInfo, VenomError, encode_item


class FakeCall:
    """What the events handler needs of a call: an id, a connection and ``emit``."""

    def __init__(self, max_frame: int = 1024 * 1024, id_: int | str = 1) -> None:
        self.id = id_
        self.connection = ConnectionInfo(id=1, uid=0, gid=0, pid=None, max_frame=max_frame)
        self.items: list[dict[str, Any]] = []

    async def emit(self, item: Any) -> None:
        line = encode_item(self.id, item)
        assert len(line) <= self.connection.max_frame, "an item larger than max_frame was sent"
        self.items.append(item)


def replay(bus: EventBus, call: FakeCall | None = None, **params: Any) -> list[dict[str, Any]]:
    call = call or FakeCall()
    full = {"types": ["*"], "follow": False, "cursor": 0, **params}
    asyncio.run(bus.handle(call, full))  # type: ignore[arg-type]
    return call.items


def _reference(glob: str, text: str) -> bool:
    """A glob as a regex, on inputs small enough for its backtracking."""
    return re.fullmatch(".*".join(map(re.escape, glob.split("*"))), text, re.DOTALL) is not None


# -- globs ------------------------------------------------------------------------------------

_ALPHABET = "ab.*"


@settings(max_examples=3000, deadline=None)
@given(st.text(_ALPHABET, min_size=1, max_size=12), st.text("ab.", max_size=12))
def test_glob_matching_agrees_with_the_regex_reading(glob: str, text: str) -> None:
    """rfcs/0003 §1: the linear matcher means exactly what `*` as `.*` means."""
    assert glob_matches(glob.split("*"), text) == _reference(glob, text)


@pytest.mark.parametrize(
    "glob",
    [
        "*" * 20 + "q",  # the reported case: 6 s of event loop over three events
        "*" * 127 + "q",
        "*a" * 64,
        "a*" * 64,
        ("*" + "a" * 20) * 6,
        "*" + "ab" * 63 + "*",
    ],
)
def test_hostile_globs_cost_linear_time(glob: str) -> None:
    """No glob of the allowed alphabet and length makes matching backtrack."""
    glob = glob[:MAX_GLOB_LENGTH]
    bus = EventBus()
    for text in ("echo.echoed", "a" * 120 + ".b", "ab" * 60):
        bus.publish(text, {})
    start = time.process_time()
    for _ in range(20):
        replay(bus, types=[glob])
    assert time.process_time() - start < 1.0


def test_too_many_globs_are_invalid_params_range() -> None:
    """rfcs/0003 §1: at most MAX_GLOBS globs per call."""
    compile_globs(["a"] * MAX_GLOBS)
    with pytest.raises(VenomError) as info:
        compile_globs(["a"] * (MAX_GLOBS + 1))
    assert (info.value.code, info.value.data) == ("invalid_params.range", {"param": "types"})


def test_a_too_long_glob_is_invalid_params_range_naming_it() -> None:
    """rfcs/0003 §1: at most MAX_GLOB_LENGTH characters per glob."""
    compile_globs(["*" * MAX_GLOB_LENGTH])
    with pytest.raises(VenomError) as info:
        compile_globs(["ok", "*" * (MAX_GLOB_LENGTH + 1)])
    assert (info.value.code, info.value.data) == ("invalid_params.range", {"param": "types.1"})


def test_star_only_globs_match_everything_and_no_globs_nothing() -> None:
    assert compile_globs(["x", "***"])("any.type")
    assert not compile_globs([])("any.type")


# -- oversized and unencodable events ---------------------------------------------------------


def _texts() -> st.SearchStrategy[str]:
    heavy = st.sampled_from(['"', "\\", "\x01", "é", "\u2028", "\U0001f600", "a"])
    return st.builds(lambda ch, n: ch * n, heavy, st.integers(0, 300_000))


@settings(max_examples=60, deadline=None)
@given(_texts(), st.sampled_from([4096, 65536, 1024 * 1024]), st.sampled_from([1, "x" * 64]))
def test_every_item_fits_the_subscribers_frame(text: str, max_frame: int, id_: int | str) -> None:
    """No event makes a follower or a replay fail: an item too large for the frame is replaced.

    FakeCall.emit asserts the encoded line fits; the later event must always arrive.
    """
    bus = EventBus()
    bus.publish("echo.echoed", {"text": text})
    bus.publish("echo.echoed", {"text": "after"})
    items = replay(bus, FakeCall(max_frame, id_))
    assert [i["seq"] for i in items] == [1, 2]
    assert json.loads(items[1]["data"]) == {"text": "after"}
    first = items[0]
    if first["type"] == "events.truncated":
        marker = json.loads(first["data"])
        assert marker["type"] == "echo.echoed"
        assert marker["size"] == len(orjson.dumps({"text": text}))
        assert marker["limit"] in (MAX_EVENT_DATA, max_frame)
    else:
        assert json.loads(first["data"]) == {"text": text}


def test_an_event_over_the_payload_limit_is_kept_as_a_marker() -> None:
    """rfcs/0003 §2: 400k quotes (the reported case) become one events.truncated item."""
    bus = EventBus()
    bus.publish("echo.echoed", {"text": '"' * 400_000})
    items = replay(bus)
    assert items[0]["type"] == "events.truncated"
    assert json.loads(items[0]["data"]) == {
        "type": "echo.echoed",
        "reason": "too_large",
        "size": 800_011,
        "limit": MAX_EVENT_DATA,
    }
    for _ in range(CHUNK):
        bus.publish("echo.echoed", {"text": "small"})  # the chunk the big one is in is counted
    count, held = bus.retained
    assert count == CHUNK + 1
    assert held < (CHUNK + 1) * 1024, "the payload is not kept"


def test_truncation_markers_follow_the_subscribers_globs() -> None:
    bus = EventBus()
    bus.publish("big.one", {"text": "x" * (MAX_EVENT_DATA + 1)})
    assert replay(bus, types=["small.*"]) == []
    assert [i["type"] for i in replay(bus, types=["big.*"])] == ["events.truncated"]


def test_small_frame_subscribers_get_a_marker_others_the_event() -> None:
    bus = EventBus()
    bus.publish("echo.echoed", {"text": "y" * 10_000})
    small = replay(bus, FakeCall(4096))
    assert small[0]["type"] == "events.truncated"
    assert json.loads(small[0]["data"])["limit"] == 4096
    assert replay(bus)[0]["type"] == "echo.echoed"


@pytest.mark.parametrize("data", [{"x": {1, 2}}, {"x": b"bytes"}, {"x": object()}, {1: "int"}])
@pytest.mark.parametrize("read_first", [False, True])
def test_data_that_is_not_json_becomes_a_marker_and_is_logged(
    data: Any, read_first: bool, caplog: pytest.LogCaptureFixture
) -> None:
    """A publisher's bug costs its own event only: readers get a marker, the rest goes on,
    whether a reader or the chunk count meets the event first."""
    bus = EventBus()
    bus.publish("a.b", {"before": 1})
    bus.publish("a.b", data)
    if not read_first:
        for _ in range(CHUNK):
            bus.publish("a.c", {})
    bus.publish("a.b", {"after": 1})
    items = replay(bus, types=["a.b"])
    assert [i["type"] for i in items] == ["a.b", "events.truncated", "a.b"]
    assert json.loads(items[1]["data"])["reason"] == "not_json"
    assert "data is not JSON" in caplog.text


@pytest.mark.parametrize("type_", ["", "Bad", "a..b", "a.", "events.gap", "events.mine", "a" * 200])
def test_bad_event_types_are_refused_at_publish(type_: str) -> None:
    with pytest.raises(ValueError, match="must be a dotted name"):
        EventBus().publish(type_, {})


# -- the ring ---------------------------------------------------------------------------------


def test_the_ring_is_bounded_in_bytes() -> None:
    """rfcs/0003 §3: 300 payloads of 6 KB do not pin 1.8 MB in a 1 MiB ring; replay reports the
    loss."""
    limit = 1024 * 1024
    uncounted = (CHUNK - 1) * (6020 + 512)  # the bound holds for counted events
    bus = EventBus(ring_bytes=limit, max_data=7000)
    for i in range(300):
        bus.publish("echo.echoed", {"text": f"{i:05d}" + "z" * 6000})
        assert bus.retained[1] <= limit + uncounted
    items = replay(bus)
    assert items[0]["type"] == "events.gap"
    assert bus.retained[1] <= limit + uncounted, "building items must stay within the bound"
    assert [i["seq"] for i in items[1:]] == list(range(items[0]["seq"] + 1, 301))
    assert len(items) - 1 <= limit // 6000 + CHUNK


def test_the_ring_is_bounded_in_count() -> None:
    bus = EventBus(ring_size=10)
    for _ in range(25):
        bus.publish("a.b", {})
    assert bus.retained[0] == 10
    assert [i["seq"] for i in replay(bus)] == [15, *range(16, 26)]


def test_payload_memory_is_counted_as_held() -> None:
    """Non-ASCII text takes up to 4 bytes a character in memory; the byte bound counts that."""
    bus = EventBus()
    bus.publish("a.b", {"t": "\U0001f600" * 1000})
    assert bus.retained[1] >= 4000


@pytest.mark.parametrize(
    ("size", "count", "read"),
    [(2, 4096, True), (60_000, 2000, False), (60_000, 2000, True), (300, 20_000, True)],
)
def test_what_the_ring_holds_in_memory_stays_within_its_bound(
    size: int, count: int, read: bool
) -> None:
    """Measured with tracemalloc, not with the ring's own count, every payload a new object (as
    each echo's text is). orjson's bytes hold at least 4 KiB, so they must not be kept."""
    limit = 10 * 1024 * 1024
    tracemalloc.start()
    try:
        bus = EventBus(ring_bytes=limit)
        for i in range(count):
            bus.publish("echo.echoed", {"text": f"{i:06d}" + "m" * size})
        if read:
            replay(bus)  # building items must not break the bound either
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    slack = CHUNK * (size + 1000) + 1024 * 1024  # the events not yet counted, the replay's list
    assert held < limit + slack, f"{held / 2**20:.1f} MiB held"


def test_a_slow_reader_is_told_what_it_missed() -> None:
    """A follower stuck in emit while the ring turns over gets a gap, then what is retained."""

    async def scenario() -> tuple[list[int], int]:
        bus = EventBus(ring_size=4)
        gate = asyncio.Event()
        seen: list[int] = []

        class Slow(FakeCall):
            async def emit(self, item: Any) -> None:
                seen.append(item["seq"])
                await gate.wait()

        call = Slow()
        task = asyncio.create_task(
            bus.handle(call, {"types": ["*"], "follow": True})  # type: ignore[arg-type]
        )
        await asyncio.sleep(0)
        bus.publish("a.b", {})
        for _ in range(3):
            await asyncio.sleep(0)  # the reader takes event 1 and waits in emit
        for _ in range(49):
            bus.publish("a.b", {})
        gate.set()
        for _ in range(20):
            await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return seen, bus.retained[0]

    seen, retained = asyncio.run(scenario())
    assert seen[0] == 1
    assert seen[1] == 46  # the gap marker: events 2-46 were dropped while it waited
    assert seen[2:] == [47, 48, 49, 50]
    assert retained == 4


def test_follow_false_ends_even_while_events_keep_coming() -> None:
    """The replay covers the events retained when the call started, then ends."""

    async def scenario() -> dict[str, Any]:
        bus = EventBus()
        for _ in range(5):
            bus.publish("a.b", {})

        class Busy(FakeCall):
            async def emit(self, item: Any) -> None:
                bus.publish("a.b", {})
                await asyncio.sleep(0)

        return await bus.handle(Busy(), {"types": ["*"], "follow": False, "cursor": 0})  # type: ignore[arg-type]

    assert asyncio.run(scenario()) == {"last": 5}


def test_subscription_iterates_live_events() -> None:
    """The reader the ``events`` verb sits on, usable by any coroutine."""

    async def scenario() -> list[tuple[int, str]]:
        bus = EventBus()
        sub = bus.subscribe(["note.*"])
        got: list[tuple[int, str]] = []

        async def read() -> None:
            async for item in sub:
                got.append((item["seq"], item["type"]))
                if len(got) == 2:
                    return

        task = asyncio.create_task(read())
        await asyncio.sleep(0)
        for type_ in ("note.added", "echo.echoed", "note.removed"):
            bus.publish(type_, {})
            await asyncio.sleep(0)
        await asyncio.wait_for(task, 5)
        return got

    assert asyncio.run(scenario()) == [(1, "note.added"), (3, "note.removed")]
