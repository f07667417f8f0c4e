"""venom-notes accepts only notes it can return, pages past any note, survives a full disk.

Classes of input: note sizes around the limit (plain and escape-heavy text), notes too large
for one connection's frame (small ``max_frame``, or an oversized row already in the database),
searches whose matches together overflow one reply, a disk that refuses writes, and data files
that existed with wide modes.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import stat
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from venom_gen.daemon.events import EventBus
from venom_gen.testing import DaemonProcess
from venom_notes.handlers import MAX_NOTE_BYTES, NoteHandlers
from venom_notes.store import NoteStore, StorageError, WriteFailed
from venom_proto import ConnectionInfo, VenomError


def _add(daemon: DaemonProcess, text: str) -> Any:
    """note.add on the default frame: any text whose request fits 1 MiB can be tried."""
    return daemon.request({"id": 1, "verb": "note.add", "params": {"text": text}}, owner=True)[0]


def _insert_raw(db: Path, text: str) -> None:
    """A row as an older version (or another program) could have stored it."""
    con = sqlite3.connect(db)
    try:
        con.execute(
            "INSERT INTO notes (text, created) VALUES (?, ?)", (text, "2026-11-30T00:00:00Z")
        )
        con.commit()
    finally:
        con.close()


# -- note.add refuses what could not be read back ---------------------------------------------


@pytest.mark.parametrize("char", ["a", '"', "\\", "\x01", "é", "\U0001f600"])
def test_note_add_refuses_a_note_whose_reply_would_not_fit(
    daemon: DaemonProcess, char: str
) -> None:
    """Whatever escaping does to the text, a refused note is reported and nothing is stored."""
    text = char * (MAX_NOTE_BYTES // (len(json.dumps(char, ensure_ascii=False).encode()) - 2))
    reply = _add(daemon, text)
    assert reply["error"]["code"] == "invalid_params.too_large", reply
    data = reply["error"]["data"]
    assert (data["param"], data["limit"]) == ("text", MAX_NOTE_BYTES)
    assert data["size"] > MAX_NOTE_BYTES
    listed = daemon.request({"id": 2, "verb": "note.list", "params": {}})
    assert listed == [{"id": 2, "ok": {"count": 0}}]


def test_the_largest_accepted_note_reads_back_on_a_default_connection(
    daemon: DaemonProcess,
) -> None:
    """At the limit exactly: accepted, then returned by note.get and note.list to a client with
    the default max_frame and the widest request id."""
    widest = "\x00" * 64
    empty = {"id": 2**53 - 1, "text": "", "tags": [], "created": "0" * 24}
    line = json.dumps({"id": widest, "item": empty}, separators=(",", ":")) + "\n"
    room = MAX_NOTE_BYTES - len(line)
    added = _add(daemon, "n" * room)
    assert "ok" in added, added
    got = daemon.request({"id": widest, "verb": "note.get", "params": {"id": added["ok"]["id"]}})
    assert got[0]["ok"]["text"] == "n" * room
    listed = daemon.request({"id": widest, "verb": "note.list", "params": {}})
    assert [r["item"]["id"] for r in listed if "item" in r] == [added["ok"]["id"]]
    assert "error" in _add(daemon, "n" * (room + 1))


# -- a way past any note ----------------------------------------------------------------------


@pytest.fixture
def with_oversized(fresh: DaemonProcess) -> DaemonProcess:
    """Notes 1 and 3 are ordinary; note 2 (2 MB) is larger than any default frame."""
    fresh.start()
    assert "ok" in _add(fresh, "first")
    _insert_raw(fresh.dirs.root / "data" / "venom-notes" / "notes.db", "x" * 2_000_000)
    assert "ok" in _add(fresh, "third")
    return fresh


def test_note_get_of_an_oversized_note_is_failed_note_too_large(
    with_oversized: DaemonProcess,
) -> None:
    reply = with_oversized.request({"id": 1, "verb": "note.get", "params": {"id": 2}})[0]
    assert reply["error"]["code"] == "failed.note_too_large"
    assert reply["error"]["data"]["id"] == 2
    assert reply["error"]["data"]["max_frame"] == 1024 * 1024


def test_note_list_names_the_note_it_cannot_send_and_after_reads_past_it(
    with_oversized: DaemonProcess,
) -> None:
    first = with_oversized.request({"id": 1, "verb": "note.list", "params": {}})
    assert [r["item"]["text"] for r in first if "item" in r] == ["first"]
    assert first[-1]["error"]["code"] == "failed.note_too_large"
    assert first[-1]["error"]["data"]["id"] == 2
    rest = with_oversized.request({"id": 1, "verb": "note.list", "params": {"after": 2}})
    assert [r["item"]["text"] for r in rest if "item" in r] == ["third"]
    assert rest[-1] == {"id": 1, "ok": {"count": 1}}
    cli = with_oversized.cli("note", "list", "--after", "2", "--json")
    assert [json.loads(line)["text"] for line in cli.stdout.splitlines()] == ["third"]


def test_note_search_pages_past_an_oversized_note(with_oversized: DaemonProcess) -> None:
    def search(after: int) -> Any:
        params = {"query": "", "after": after}
        return with_oversized.request({"id": 1, "verb": "note.search", "params": params})[0]

    first = search(0)
    assert first["ok"] == {"notes": [first["ok"]["notes"][0]], "next": 1}
    stuck = search(1)
    assert stuck["error"]["code"] == "failed.note_too_large"
    assert stuck["error"]["data"]["id"] == 2
    assert [n["text"] for n in search(2)["ok"]["notes"]] == ["third"]


def test_a_small_frame_client_is_told_which_note_it_cannot_read(daemon: DaemonProcess) -> None:
    assert "ok" in _add(daemon, "y" * 10_000)
    assert "ok" in _add(daemon, "small")
    small = daemon.request({"id": 1, "verb": "note.list", "params": {}}, max_frame=4096)
    assert small[0]["error"]["code"] == "failed.note_too_large"
    assert small[0]["error"]["data"] == {"id": 1, "size": small[0]["error"]["data"]["size"],
                                         "max_frame": 4096}  # fmt: skip
    after = daemon.request({"id": 1, "verb": "note.list", "params": {"after": 1}}, max_frame=4096)
    assert [r["item"]["text"] for r in after if "item" in r] == ["small"]


def test_search_results_never_pass_the_frame_and_next_pages_through_all(
    daemon: DaemonProcess,
) -> None:
    """Five 300 KB matches cannot share one 1 MiB reply: each reply holds what fits."""
    for i in range(5):
        assert "ok" in _add(daemon, f"{i}" + "z" * 300_000)
    seen: list[int] = []
    after = 0
    for _ in range(10):
        reply = daemon.request(
            {"id": 1, "verb": "note.search", "params": {"query": "zzz", "after": after}}
        )[0]
        assert "ok" in reply, reply
        seen += [n["id"] for n in reply["ok"]["notes"]]
        if "next" not in reply["ok"]:
            break
        after = reply["ok"]["next"]
    assert seen == [1, 2, 3, 4, 5]


def test_search_limit_sets_next_only_when_more_match(daemon: DaemonProcess) -> None:
    for text in ("a1", "a2", "a3"):
        assert "ok" in _add(daemon, text)

    def search(**params: Any) -> Any:
        req = {"id": 1, "verb": "note.search", "params": {"query": "a", **params}}
        return daemon.request(req)[0]["ok"]

    assert search(limit=2) == {"notes": search(limit=2)["notes"], "next": 2}
    assert [n["id"] for n in search(limit=3)["notes"]] == [1, 2, 3]
    assert "next" not in search(limit=3)
    assert "next" not in search(limit=2, after=2)


# -- the disk refuses the write ---------------------------------------------------------------


def _full_store(tmp_path: Path) -> NoteStore:
    store = NoteStore(tmp_path / "notes.db")
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count = {pages + 2}")  # a disk with two pages left
    return store


def test_a_full_disk_is_write_failed_and_the_store_stays_usable(tmp_path: Path) -> None:
    """sqlite's "database or disk is full" used to be followed by a failed ROLLBACK."""
    store = _full_store(tmp_path)
    kept = store.add("kept")
    with pytest.raises(WriteFailed, match="full"):
        store.add("x" * 100_000, ["t"])
    assert store.page(after=0, size=10) == [kept]
    assert store.remove(kept["id"]) is True
    store.close()


def _handlers(store: NoteStore) -> tuple[NoteHandlers, EventBus]:
    bus = EventBus()
    return NoteHandlers(SimpleNamespace(events=bus), store), bus  # type: ignore[arg-type]


class _Call:
    def __init__(self) -> None:
        self.id = 1
        self.connection = ConnectionInfo(id=1, uid=0, gid=0, pid=None)


def test_note_add_on_a_full_disk_is_failed_write_and_publishes_nothing(tmp_path: Path) -> None:
    store = _full_store(tmp_path)
    h, bus = _handlers(store)
    with pytest.raises(VenomError) as info:
        asyncio.run(h.note_add(_Call(), {"text": "x" * 100_000, "tags": []}))  # type: ignore[arg-type]
    assert info.value.code == "failed.write"
    assert info.value.data == {"path": str(store.path), "reason": "database or disk is full"}
    assert bus.last_seq == 0
    store.close()


def test_a_cancelled_note_add_still_commits_and_publishes(tmp_path: Path) -> None:
    """The server cancels with Task.cancel(); the commit and its event go together anyway."""
    store = NoteStore(tmp_path / "notes.db")
    started, release = threading.Event(), threading.Event()
    real = store.add

    def slow(text: str, tags: list[str]) -> Any:
        started.set()
        release.wait(10)
        return real(text, tags)

    store.add = slow  # type: ignore[method-assign,assignment]
    h, bus = _handlers(store)

    async def scenario() -> None:
        task = asyncio.create_task(h.note_add(_Call(), {"text": "late"}))  # type: ignore[arg-type]
        while not started.is_set():
            await asyncio.sleep(0.005)
        task.cancel()
        release.set()
        with pytest.raises(asyncio.CancelledError):
            await task
        for _ in range(500):
            if bus.last_seq:
                return
            await asyncio.sleep(0.01)

    asyncio.run(scenario())
    assert [n["text"] for n in store.page(after=0, size=10)] == ["late"]
    assert bus.last_seq == 1
    store.close()


# -- private modes ----------------------------------------------------------------------------


def test_an_existing_wide_data_dir_and_files_become_private(tmp_path: Path) -> None:
    directory = tmp_path / "venom-notes"
    NoteStore(directory / "notes.db").close()
    directory.chmod(0o755)
    for name in ("notes.db", "notes.db-wal", "notes.db-shm"):
        path = directory / name
        path.touch()
        path.chmod(0o644)
    store = NoteStore(directory / "notes.db")
    try:
        assert stat.S_IMODE(os.stat(directory).st_mode) == 0o700
        for name in ("notes.db", "notes.db-wal", "notes.db-shm"):
            assert stat.S_IMODE(os.stat(directory / name).st_mode) == 0o600, name
    finally:
        store.close()


def test_a_symlinked_database_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "real.db"
    NoteStore(real).close()
    (tmp_path / "d").mkdir()
    os.symlink(real, tmp_path / "d" / "notes.db")
    with pytest.raises(StorageError):
        NoteStore(tmp_path / "d" / "notes.db")


def test_pages_are_bounded_in_bytes_and_hold_at_least_one_note(tmp_path: Path) -> None:
    store = NoteStore(tmp_path / "notes.db")
    try:
        for _ in range(5):
            store.add("p" * 300_000)
        assert len(store.page(after=0, size=100, max_bytes=1_000_000)) == 3
        assert len(store.page(after=0, size=100, max_bytes=10)) == 1
        assert len(store.search("p", limit=100, max_bytes=700_000)) == 2
    finally:
        store.close()
