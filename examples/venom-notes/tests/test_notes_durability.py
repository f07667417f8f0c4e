"""An acknowledged note survives kill -9 of the daemon (commit before reply, WAL + FULL sync)."""

from __future__ import annotations

import signal
from pathlib import Path

from venom_gen.testing import DaemonProcess


def test_note_survives_kill_9_right_after_add_returns(fresh: DaemonProcess) -> None:
    fresh.start()
    added = [fresh.cli_json("note", "add", "--text", f"keep {i}")["id"] for i in range(3)]
    # No pause: SIGKILL the moment the last CLI call returns, so nothing can flush afterwards.
    assert fresh.stop(signal.SIGKILL) == -signal.SIGKILL
    assert Path(
        str(fresh.dirs.root / "data" / "venom-notes" / "notes.db") + "-wal"
    ).exists()  # the commits sit in the WAL, not yet merged
    fresh.start()
    for note_id in added:
        note = fresh.cli_json("note", "get", "--id", str(note_id))
        assert note["text"] == f"keep {note_id - 1}"


def test_many_acknowledged_socket_writes_survive_kill_9(fresh: DaemonProcess) -> None:
    """Pipelined writes on one connection: every one that got an ok is there after a restart."""
    fresh.start()
    replies = fresh.request(
        *[{"id": i, "verb": "note.add", "params": {"text": f"n{i}"}} for i in range(1, 51)],
        owner=True,
    )
    acknowledged = {r["ok"]["id"] for r in replies if "ok" in r}
    fresh.stop(signal.SIGKILL)
    fresh.start()
    (*items, done) = fresh.request({"id": 1, "verb": "note.list", "params": {}})
    assert {r["item"]["id"] for r in items} >= acknowledged
    assert done["ok"]["count"] == 50 == len(acknowledged)


def test_a_killed_daemon_restarts_on_its_stale_socket(fresh: DaemonProcess) -> None:
    """RFC-0002 §2.5: the lock is free after kill -9, so the new daemon takes over the path."""
    fresh.start()
    fresh.stop(signal.SIGKILL)
    fresh.start()
    assert fresh.cli_json("ping") == {}
