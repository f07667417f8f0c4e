"""`NoteStore` on its own: transactions, ordering, tags, search and the SQLite settings."""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from venom_notes.store import NoteStore, StorageError, data_path


@pytest.fixture
def store(tmp_path: Path) -> Iterator[NoteStore]:
    s = NoteStore(tmp_path / "notes" / "notes.db")
    try:
        yield s
    finally:
        s.close()


def test_add_then_get_round_trips(store: NoteStore) -> None:
    added = store.add("buy milk", ["shop", "home", "shop"])
    assert added["id"] == 1
    assert added["tags"] == ["home", "shop"]  # unique and sorted
    assert added["created"].endswith("Z")
    assert store.get(1) == added


def test_get_of_a_missing_id_is_none(store: NoteStore) -> None:
    assert store.get(42) is None


def test_ids_of_removed_notes_are_never_reused(store: NoteStore) -> None:
    store.add("a")
    second = store.add("b")
    assert store.remove(second["id"]) is True
    assert store.add("c")["id"] == 3


def test_remove_reports_a_missing_note_and_drops_tags(store: NoteStore) -> None:
    note = store.add("a", ["x"])
    assert store.remove(note["id"]) is True
    assert store.remove(note["id"]) is False
    assert store.page(after=0, size=10, tag="x") == []


def test_page_is_in_id_order_and_resumes_after_an_id(store: NoteStore) -> None:
    ids = [store.add(f"n{i}", ["even"] if i % 2 == 0 else [])["id"] for i in range(7)]
    first = store.page(after=0, size=3)
    assert [n["id"] for n in first] == ids[:3]
    assert [n["id"] for n in store.page(after=first[-1]["id"], size=10)] == ids[3:]
    assert [n["text"] for n in store.page(after=0, size=10, tag="even")] == ["n0", "n2", "n4", "n6"]


def test_search_is_a_case_insensitive_substring_match(store: NoteStore) -> None:
    store.add("Buy MILK")
    store.add("call bob")
    store.add("milkshake recipe")
    assert [n["text"] for n in store.search("milk", limit=10)] == ["Buy MILK", "milkshake recipe"]
    assert [n["text"] for n in store.search("milk", limit=1)] == ["Buy MILK"]
    assert store.search("%", limit=10) == []  # no LIKE wildcards: instr is literal


def test_notes_survive_reopening(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    first = NoteStore(path)
    note = first.add("kept", ["t"])
    first.close()
    second = NoteStore(path)
    assert second.get(note["id"]) == note
    second.close()


def test_durability_settings_are_wal_and_full_sync(store: NoteStore) -> None:
    """A commit fsyncs the WAL: acknowledged notes survive a crash (see store.py)."""
    db = sqlite3.connect(store.path)
    try:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        db.close()
    assert store._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert store._db.execute("PRAGMA foreign_keys").fetchone()[0] == 1


def test_a_failed_write_rolls_back_the_whole_note(store: NoteStore) -> None:
    with pytest.raises(sqlite3.IntegrityError):
        store.add("bad", [None])  # type: ignore[list-item]
    assert store.page(after=0, size=10) == []
    assert store.add("good")["id"] >= 1


def test_database_file_is_private(store: NoteStore) -> None:
    assert stat.S_IMODE(os.stat(store.path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(store.path.parent).st_mode) == 0o700


def test_an_unopenable_path_raises_storage_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a directory")
    with pytest.raises(StorageError, match="cannot open"):
        NoteStore(tmp_path / "file" / "notes.db")


def test_a_file_that_is_not_sqlite_raises_storage_error(tmp_path: Path) -> None:
    (tmp_path / "notes.db").write_bytes(b"x" * 4096)
    with pytest.raises(StorageError):
        NoteStore(tmp_path / "notes.db")


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"XDG_DATA_HOME": "/d", "HOME": "/h"}, "/d/venom-notes/notes.db"),
        ({"HOME": "/h"}, "/h/.local/share/venom-notes/notes.db"),
        ({"XDG_DATA_HOME": "", "HOME": "/h"}, "/h/.local/share/venom-notes/notes.db"),
        ({"XDG_DATA_HOME": "rel", "HOME": "/h"}, "/h/.local/share/venom-notes/notes.db"),
    ],
)
def test_data_path_follows_xdg(environ: dict[str, str], expected: str) -> None:
    assert data_path(environ) == Path(expected)
