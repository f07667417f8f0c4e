"""`NoteStore`: the notes in one SQLite file, written so that an acknowledged note survives a crash.

Durability: every write is one ``BEGIN IMMEDIATE ... COMMIT`` transaction and the handler replies
only after ``COMMIT`` returns. The journal is WAL with ``synchronous=FULL``, so each commit
fsyncs the WAL before returning: a committed note survives a kill -9 of the daemon (it is in the
WAL, which SQLite replays on the next open) and also an OS crash or power loss. WAL with
``synchronous=NORMAL`` would survive a kill -9 too, but could lose the last commits on power
loss, and a notes store writes too rarely for the fsync per commit to matter.

One connection serves the whole daemon. Handlers call the store from worker threads, so the
connection is opened with ``check_same_thread=False`` and every method holds one lock.

A write that the disk refuses (full, read-only, an I/O error) raises `WriteFailed`; SQLite has
then rolled the transaction back. The data directory is kept at mode 0700 and the database files
at 0600 even if they were created wider, since notes are private.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import stat
import threading
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import NoReturn, TypedDict

from venom_proto.paths import data_home

__all__ = (
    "SCHEMA_VERSION",
    "Note",
    "NoteStore",
    "StorageError",
    "WriteFailed",
    "data_path",
)

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


#: SQLite's primary result codes for a disk that refuses a write (https://sqlite.org/rescode.html):
#: PERM, BUSY, LOCKED, READONLY, IOERR, CORRUPT, FULL, CANTOPEN, NOLFS.
_DISK_ERRORS = frozenset({3, 5, 6, 8, 10, 11, 13, 14, 22})


class StorageError(Exception):
    """Raised by `NoteStore` when the database file cannot be opened or is not ours."""


class WriteFailed(StorageError):
    """Raised by `NoteStore.add` and `NoteStore.remove` when the disk refuses the write."""


def data_path(environ: Mapping[str, str] = os.environ) -> Path:
    """``$XDG_DATA_HOME/venom-notes/notes.db``, with ``~/.local/share`` when unset or relative."""
    return Path(data_home(environ)) / "venom-notes" / "notes.db"


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
            os.chmod(self.path.parent, 0o700)  # it may have existed with wider modes
            _private(self.path, create=True)
            # isolation_level=None: we issue BEGIN/COMMIT ourselves, nothing is implicit.
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._setup()
            for suffix in ("-wal", "-shm", "-journal"):  # SQLite makes them like the db, if new
                _private(self.path.with_name(self.path.name + suffix), create=False)
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

    def _rollback(self, exc: BaseException) -> NoReturn:
        """End the failed transaction (SQLite may have ended it already) and raise."""
        if self._db.in_transaction:
            with contextlib.suppress(sqlite3.Error):  # the original error says what went wrong
                self._db.execute("ROLLBACK")
        if isinstance(exc, sqlite3.Error) and (exc.sqlite_errorcode & 0xFF) in _DISK_ERRORS:
            raise WriteFailed(str(exc)) from exc
        raise exc

    def add(self, text: str, tags: Sequence[str] = ()) -> Note:
        """Insert a note and commit; when this returns the note is on disk."""
        created = _now()
        unique = sorted(set(tags))
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
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
            except BaseException as exc:
                self._rollback(exc)
        return {"id": note_id, "text": text, "tags": unique, "created": created}

    def get(self, note_id: int) -> Note | None:
        """The note with ``note_id``, or None."""
        with self._lock:
            row = self._db.execute(
                f"SELECT {_COLUMNS} FROM notes n WHERE n.id = ?", (note_id,)
            ).fetchone()
        return None if row is None else _note(row)

    def _select(
        self, where: str, args: list[object], size: int, max_bytes: int | None
    ) -> list[Note]:
        """Up to ``size`` notes matching ``where``, in id order; with ``max_bytes`` the list stops
        before the note whose text would take it past that many bytes (it always holds one)."""
        with self._lock:
            if max_bytes is not None:
                lengths = self._db.execute(
                    f"SELECT length(CAST(n.text AS BLOB)) FROM notes n WHERE {where}"
                    " ORDER BY n.id LIMIT ?",
                    (*args, size),
                ).fetchall()
                total, size = 0, 0
                for (length,) in lengths:
                    total += length
                    if size and total > max_bytes:
                        break
                    size += 1
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM notes n WHERE {where} ORDER BY n.id LIMIT ?",
                (*args, size),
            ).fetchall()
        return [_note(row) for row in rows]

    def page(
        self, *, after: int, size: int, tag: str | None = None, max_bytes: int | None = None
    ) -> list[Note]:
        """Up to ``size`` notes with id > ``after`` (and ``tag``), in id order, at most about
        ``max_bytes`` of text (see `_select`)."""
        if tag is None:
            return self._select("n.id > ?", [after], size, max_bytes)
        where = "n.id IN (SELECT note_id FROM note_tags WHERE tag = ? AND note_id > ?)"
        return self._select(where, [tag, after], size, max_bytes)

    def remove(self, note_id: int) -> bool:
        """Delete a note (its tags go with it) and commit; False if there was none."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                gone = self._db.execute("DELETE FROM notes WHERE id = ?", (note_id,)).rowcount
                self._db.execute("COMMIT")
            except BaseException as exc:
                self._rollback(exc)
        return gone > 0

    def search(
        self, query: str, *, limit: int, after: int = 0, max_bytes: int | None = None
    ) -> list[Note]:
        """Notes with id > ``after`` whose text contains ``query``, ignoring ASCII case, in id
        order; at most ``limit`` and about ``max_bytes`` of text (see `_select`).

        A substring test (``instr``) rather than FTS5: FTS5 is not compiled into every Python's
        sqlite3, and it matches tokens, not substrings. A scan is fine at personal-notes scale.
        """
        where = "n.id > ? AND instr(lower(n.text), lower(?)) > 0"
        return self._select(where, [after, query], limit, max_bytes)


def _private(path: Path, *, create: bool) -> None:
    """Make ``path`` a regular file of mode 0600 (creating it if asked), never via a symlink."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(path, flags | (os.O_CREAT if create else 0), 0o600)
    except FileNotFoundError:
        return
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise StorageError(f"{path} is not a regular file")
        os.fchmod(fd, 0o600)
    finally:
        os.close(fd)
