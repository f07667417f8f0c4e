"""`note.watch` through the real daemon: the bus's subscription replays, follows and cancels."""

from __future__ import annotations

import json

import pytest

from venom_gen.testing import TIMEOUT, DaemonProcess
from venom_proto import SyncClient, VenomError


def test_watch_replays_after_a_cursor_then_follows_live_changes(daemon: DaemonProcess) -> None:
    daemon.cli_json("note", "add", "--text", "one", "--tags", '["b", "a"]')
    daemon.cli_json("note", "add", "--text", "two")
    daemon.cli_json("note", "remove", "--id", "1")
    with SyncClient(daemon.socket, timeout=TIMEOUT) as client:
        stream = client.stream("note.watch", {"cursor": 0, "limit": 4})
        items = iter(stream)
        replayed = [next(items) for _ in range(3)]
        daemon.cli_json("note", "add", "--text", "three")
        live = next(items)
        assert stream.result == {"last": live["seq"]}
    assert [(i["change"], i["id"]) for i in replayed] == [
        ("added", 1),
        ("added", 2),
        ("removed", 1),
    ]
    assert replayed[0]["tags"] == ["a", "b"]
    assert "tags" not in replayed[2]
    assert (live["change"], live["id"]) == ("added", 3)
    assert [i["seq"] for i in [*replayed, live]] == sorted({i["seq"] for i in [*replayed, live]})


def test_watch_resumes_from_the_last_seq(daemon: DaemonProcess) -> None:
    daemon.cli_json("note", "add", "--text", "one")
    first = daemon.cli("note", "watch", "--cursor", "0", "--limit", "1", "--json")
    assert first.returncode == 0, first.stderr
    [item] = [json.loads(line) for line in first.stdout.splitlines()]
    daemon.cli_json("note", "add", "--text", "two")
    again = daemon.cli("note", "watch", "--cursor", str(item["seq"]), "--limit", "1", "--json")
    [after] = [json.loads(line) for line in again.stdout.splitlines()]
    assert after["id"] == 2


def test_a_cursor_from_before_a_restart_is_a_gap(daemon: DaemonProcess) -> None:
    daemon.cli_json("note", "add", "--text", "one")
    run = daemon.cli("note", "watch", "--cursor", "99", "--limit", "1", "--json")
    assert run.returncode == 0, run.stderr
    [gap] = [json.loads(line) for line in run.stdout.splitlines()]
    assert gap["change"] == "gap"
    assert "id" not in gap


def test_cancelling_a_watch_ends_it_and_the_connection_stays_usable(daemon: DaemonProcess) -> None:
    with SyncClient(daemon.socket, timeout=TIMEOUT) as client:
        stream = client.stream("note.watch")
        client.cancel(stream.id)
        with pytest.raises(VenomError) as info:
            list(stream)
        assert info.value.code == "cancelled"
        assert client.call("note.search", {"query": "x"}) == {"notes": []}
