"""`NoteStore`: the notes in one SQLite file, written so that an acknowledged note survives a crash.

Durability: every write is one ``BEGIN IMMEDIATE ... COMMIT`` transaction and the handler replies
only after ``COMMIT`` returns. The journal is WAL with ``synchronous=FULL``, so each commit
fsyncs the WAL before returning: a committed note survives a kill -9 of the daemon (it is in the
WAL, which SQLite replays on the next open) and also an OS crash or power loss. WAL with
``synchronous=NORMAL`` would survive a kill -9 too, but could lose the last commits on power
loss, and a notes store writes too rarely for the fsync per commit to matter.

One connection serves the whole daemon. Handlers call the store from worker threads, so the
connection is opened with ``check_same_thread=False`` and every method holds one lock.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TypedDict

__all__ = ("Note", "NoteStore", "StorageError", "data_path")

#: ``PRAGMA user_version`` of the schema below; a later version would migrate from it.
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS notes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,  -- AUTOINCREMENT: a removed note's id is never reused
    text TEXT NOT NULL,
    created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS note_tags (
    note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
    tag TEXT NOT NULL,
    PRIMARY KEY (note_id, tag)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS note_tags_by_tag ON note_tags(tag, note_id);
"""

#: A note's columns, its tags gathered (sorted) into one JSON array.
_COLUMNS = (
    "n.id, n.text, n.created, (SELECT json_group_array(tag) FROM"
    " (SELECT tag FROM note_tags WHERE note_id = n.id ORDER BY tag))"
)


class Note(TypedDict):
    """One note as the verbs return it."""

    id: int
    text: str
    tags: list[str]
    created: str


class StorageError(Exception):
    """Raised by `NoteStore` when the database file cannot be opened or is not ours."""


def data_path(environ: Mapping[str, str] = os.environ) -> Path:
    """``$XDG_DATA_HOME/venom-notes/notes.db``, with ``~/.local/share`` when unset or relative."""
    base = environ.get("XDG_DATA_HOME", "")
    if not os.path.isabs(base):  # the XDG spec says to ignore relative paths
        home = environ.get("HOME") or str(Path.home())
        base = os.path.join(home, ".local", "share")
    return Path(base) / "venom-notes" / "notes.db"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _note(row: tuple[int, str, str, str]) -> Note:
    return {"id": row[0], "text": row[1], "tags": json.loads(row[3]), "created": row[2]}


class NoteStore:
    """The notes database at ``path`` (created with its directory, mode 0700, when missing)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            # Notes are private: create the file 0600 (SQLite gives -wal and -shm the same mode).
            os.close(os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600))
            # isolation_level=None: we issue BEGIN/COMMIT ourselves, nothing is implicit.
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._setup()
        except (OSError, sqlite3.Error) as exc:
            raise StorageError(f"cannot open {self.path}: {exc}") from exc

    def _setup(self) -> None:
        db = self._db
        db.execute("PRAGMA busy_timeout = 5000")
        mode = db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if mode != "wal":
            raise StorageError(f"{self.path}: journal_mode is {mode!r}, WAL is required")
        db.execute("PRAGMA synchronous = FULL")
        db.execute("PRAGMA foreign_keys = ON")
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StorageError(f"{self.path}: schema version {version} is newer than this program")
        db.executescript(f"BEGIN; {_SCHEMA} PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;")

    def close(self) -> None:
        """Close the connection (checkpointing the WAL)."""
        with self._lock:
            self._db.close()

    def add(self, text: str, tags: Sequence[str] = ()) -> Note:
        """Insert a note and commit; when this returns the note is on disk."""
        created = _now()
        unique = sorted(set(tags))
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                cur = self._db.execute(
                    "INSERT INTO notes (text, created) VALUES (?, ?)", (text, created)
                )
                note_id = cur.lastrowid
                assert note_id is not None
                self._db.executemany(
                    "INSERT INTO note_tags (note_id, tag) VALUES (?, ?)",
                    [(note_id, tag) for tag in unique],
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return {"id": note_id, "text": text, "tags": unique, "created": created}

    def get(self, note_id: int) -> Note | None:
        """The note with ``note_id``, or None."""
        with self._lock:
            row = self._db.execute(
                f"SELECT {_COLUMNS} FROM notes n WHERE n.id = ?", (note_id,)
            ).fetchone()
        return None if row is None else _note(row)

    def page(self, *, after: int, size: int, tag: str | None = None) -> list[Note]:
        """Up to ``size`` notes with id > ``after`` (and ``tag``), in id order."""
        if tag is None:
            sql = f"SELECT {_COLUMNS} FROM notes n WHERE n.id > ? ORDER BY n.id LIMIT ?"
            args: tuple[object, ...] = (after, size)
        else:
            sql = (
                f"SELECT {_COLUMNS} FROM note_tags t JOIN notes n ON n.id = t.note_id"
                " WHERE t.tag = ? AND t.note_id > ? ORDER BY t.note_id LIMIT ?"
            )
            args = (tag, after, size)
        with self._lock:
            rows = self._db.execute(sql, args).fetchall()
        return [_note(row) for row in rows]

    def remove(self, note_id: int) -> bool:
        """Delete a note (its tags go with it) and commit; False if there was none."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                gone = self._db.execute("DELETE FROM notes WHERE id = ?", (note_id,)).rowcount
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return gone > 0

    def search(self, query: str, *, limit: int) -> list[Note]:
        """Notes whose text contains ``query``, ignoring ASCII case, in id order.

        A substring test (``instr``) rather than FTS5: FTS5 is not compiled into every Python's
        sqlite3, and it matches tokens, not substrings. A scan is fine at personal-notes scale.
        """
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM notes n WHERE instr(lower(n.text), lower(?)) > 0"
                " ORDER BY n.id LIMIT ?",
                (query, limit),
            ).fetchall()
        return [_note(row) for row in rows]
