"""The events verb on the socket: live items, cancel, cursor replay, gaps (rfcs/0003)."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest
from integration_kit import TIMEOUT, Daemon, request


@pytest.mark.covers("socket", "events", "cancel", "echo")
def test_events_live_then_cancel(daemon: Daemon) -> None:
    """rfcs/0003 §2, §4; RFC-0002 §4.4: a live echo.echoed item, then cancel ends the stream."""
    with daemon.connect() as sub, daemon.connect() as other:
        sub.hello()
        sub.send_lines(request(1, "events", {"types": ["echo.echoed"], "follow": True}))
        item = None
        deadline = time.monotonic() + TIMEOUT
        # Echo until the subscription, whose start the wire does not signal, sees one.
        while item is None and time.monotonic() < deadline:
            assert other.call(1, "echo", {"text": "socket-live"})["ok"] == {"text": "socket-live"}
            item = sub.poll_line(0.1)
        assert item is not None
        assert item["id"] == 1
        event = item["item"]
        assert event["type"] == "echo.echoed"
        assert json.loads(event["data"]) == {"text": "socket-live"}
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", event["time"])
        sub.send_lines(request(3, "cancel", {"id": 1}))
        replies: list[Any] = []
        while len([r for r in replies if "item" not in r]) < 2:  # skip later echoes' items
            replies += sub.json_lines(1)
    finals = [r for r in replies if "item" not in r]
    assert {"id": 1, "error": {"code": "cancelled", "message": "cancelled by client"}} in finals
    assert {"id": 3, "ok": None} in finals


@pytest.mark.covers("socket", "events", "echo")
def test_events_cursor_replay_without_follow(daemon: Daemon) -> None:
    """rfcs/0003 §3, §4: cursor replays seq > cursor matching types; follow=false ends with last."""
    with daemon.connect() as c:
        c.call(1, "echo", {"text": "replay-me"})
        c.send_lines(request(2, "events", {"cursor": 0, "types": ["echo.*"], "follow": False}))
        replies: list[Any] = []
        while not replies or "item" in replies[-1]:
            replies += c.json_lines(1)
    items = [r["item"] for r in replies[:-1]]
    seqs = [i["seq"] for i in items]
    assert seqs == sorted(set(seqs))
    assert seqs[0] >= 1
    assert all(i["type"].startswith("echo.") for i in items)
    assert {"text": "replay-me"} in [json.loads(i["data"]) for i in items]
    assert replies[-1] == {"id": 2, "ok": {"last": seqs[-1]}}
    mine = next(i["seq"] for i in items if json.loads(i["data"]) == {"text": "replay-me"})
    with daemon.connect() as c:
        c.send_lines(
            request(3, "events", {"cursor": mine - 1, "types": ["*.echoed"], "follow": False})
        )
        first = c.json_lines(1)[0]
    assert first["item"]["seq"] == mine


@pytest.mark.covers("socket", "events", "echo")
def test_events_cursor_from_the_future_gets_a_gap_marker(daemon: Daemon) -> None:
    """rfcs/0003 §3: a cursor past the last seq (a restart) first yields events.gap, whatever
    types says, with data {"after": c, "next": s + 1}."""
    cursor = 10**9
    with daemon.connect() as c:
        c.call(1, "echo", {"text": "before-gap"})
        c.send_lines(request(3, "events", {"cursor": cursor, "types": ["x"], "follow": False}))
        (first,) = c.json_lines(1)
    marker = first["item"]
    assert marker["type"] == "events.gap"
    assert marker["data"] == json.dumps(
        {"after": cursor, "next": marker["seq"] + 1}, separators=(",", ":")
    )


@pytest.mark.covers("socket", "events", "echo")
def test_events_ring_overflow_gap_marker(own_daemon: Daemon) -> None:
    """rfcs/0003 §3: events dropped from the ring (4096 retained) are reported by one
    events.gap item with seq = oldest_retained - 1, then the retained events follow."""
    n = 4200
    with own_daemon.connect() as c:
        c.send_lines(*(request(i, "echo", {"text": "fill"}) for i in range(n)))
        assert len(c.json_lines(n)) == n
        c.send_lines(request(n, "events", {"cursor": 0, "types": ["echo.*"], "follow": False}))
        gap, first = c.json_lines(2)
    marker, oldest = gap["item"], first["item"]["seq"]
    assert oldest > 1
    assert (marker["type"], marker["seq"]) == ("events.gap", oldest - 1)
    assert json.loads(marker["data"]) == {"after": 0, "next": oldest}


@pytest.mark.covers("socket", "events")
def test_events_no_follow_without_cursor_ends_with_last_0(daemon: Daemon) -> None:
    """rfcs/0003 §4: {"last": n}: the last seq sent, or the cursor, or 0 when none was sent."""
    with daemon.connect() as c:
        c.call(1, "echo", {"text": "seq-above-0"})
        reply = c.call(2, "events", {"follow": False})
    assert reply == {"id": 2, "ok": {"last": 0}}


@pytest.mark.covers("socket", "events")
def test_events_bad_glob(daemon: Daemon) -> None:
    """rfcs/0003 §1: invalid_params.pattern with data.param naming the glob."""
    with daemon.connect() as c:
        reply = c.call(1, "events", {"types": ["Echo"], "follow": False})
    assert reply["error"]["code"] == "invalid_params.pattern"
    assert reply["error"]["data"] == {"param": "types.0"}
