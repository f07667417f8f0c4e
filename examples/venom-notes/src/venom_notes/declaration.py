"""venom-notes' verbs, declared in Python: the one source of its ``verbs.zon``.

Build time only: ``venom-gen generate`` (which finds it in pyproject.toml's ``[tool.venom]``)
writes the data-only manifest from it, then the model cache and every generated file from that
manifest. Neither the CLI nor the daemon imports this module (or
pydantic). The standard bundles (ping, events, skill, doctor, config.*, serve, mcp) are merged
in by venom-schema.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from venom_schema.declare import MISSING, Declaration, Error, Example

__all__ = (
    "DECLARATION",
    "NOTE_TOO_LARGE",
    "NOT_FOUND",
    "WRITE_FAILED",
    "AddParams",
    "AddResult",
    "IdParams",
    "ListParams",
    "ListResult",
    "NotFound",
    "Note",
    "NoteTooLarge",
    "RemoveResult",
    "SearchParams",
    "SearchResult",
    "TooLarge",
    "WatchItem",
    "WatchParams",
    "WatchResult",
    "WriteFailed",
)

_CREATED = "When it was stored (UTC, RFC 3339)"
_RESUME = (
    "The note's reply does not fit this connection's max_frame; pass after = id to read past it"
)


class Note(BaseModel):
    """One stored note, as note.get returns it and note.list streams it."""

    id: int = Field(ge=1, description="The note's id")
    text: str = Field(description="The note's text")
    tags: list[str] = Field(description="Its labels, sorted")
    created: str = Field(description=_CREATED)


class WatchParams(BaseModel):
    cursor: int | MISSING = Field(
        default=MISSING,
        ge=0,
        description="Only changes after this seq: the last seq you got, to resume",
    )
    limit: int | MISSING = Field(
        default=MISSING, ge=1, le=1000000, description="Stop after this many items"
    )


class WatchResult(BaseModel):
    last: int = Field(ge=0, description="The seq of the last item sent: the cursor to resume from")


class WatchItem(BaseModel):
    seq: int = Field(ge=0, description="The change's event seq")
    change: Literal["added", "removed", "gap"] = Field(
        description="added, removed, or gap when changes were missed (re-read with note.list)"
    )
    id: int | MISSING = Field(default=MISSING, ge=1, description="The note (absent for a gap)")
    tags: list[str] | MISSING = Field(default=MISSING, description="Its labels, for an added note")


class AddParams(BaseModel):
    text: str = Field(description="The note's text")
    tags: list[str] | MISSING = Field(default=MISSING, description="Labels to file the note under")


class AddResult(BaseModel):
    id: int = Field(ge=1, description="The new note's id")
    created: str = Field(description=_CREATED)


class IdParams(BaseModel):
    id: int = Field(ge=1, description="The note's id")


class RemoveResult(BaseModel):
    id: int = Field(ge=1, description="The deleted note's id")


class ListParams(BaseModel):
    tag: str | MISSING = Field(default=MISSING, description="Only notes with this tag")
    limit: int | MISSING = Field(
        default=MISSING, ge=0, le=1000000, description="At most this many notes"
    )
    after: int | MISSING = Field(
        default=MISSING,
        ge=0,
        description="Only notes with a greater id: the last id you got, to resume",
    )


class ListResult(BaseModel):
    count: int = Field(ge=0, description="Notes sent")


class SearchParams(BaseModel):
    query: str = Field(description="The text to look for")
    limit: int = Field(default=50, ge=1, le=1000, description="At most this many notes")
    after: int | MISSING = Field(
        default=MISSING, ge=0, description="Only notes with a greater id: a previous result's next"
    )


class SearchResult(BaseModel):
    notes: list[Note] = Field(description="The matching notes, oldest first")
    next: int | MISSING = Field(
        default=MISSING,
        ge=1,
        description="More notes match: pass this as after; absent when none are left",
    )


class TooLarge(BaseModel):
    param: str = Field(description="The parameter, text")
    size: int = Field(description="Bytes the note's reply would take")
    limit: int = Field(description="The most it may take")


class WriteFailed(BaseModel):
    path: str = Field(description="The database file")
    reason: str = Field(description="SQLite's error")


class NotFound(BaseModel):
    id: int = Field(description="The id asked for")


class NoteTooLarge(BaseModel):
    id: int = Field(description="The note")
    size: int = Field(description="Bytes its reply takes")
    max_frame: int = Field(description="This connection's max_frame")


WRITE_FAILED = Error(
    "failed.write",
    "The database could not be written (full disk, read-only, I/O error); nothing changed",
    WriteFailed,
)
NOT_FOUND = Error("not_found.note", "No note has that id", NotFound)
NOTE_TOO_LARGE = Error("failed.note_too_large", _RESUME, NoteTooLarge)

DECLARATION = Declaration("venom-notes", "A per-user notes daemon")

DECLARATION.verb(
    "note.add",
    "Store a new note (as JSON, at most about 1 MiB)",
    grant="write",
    params=AddParams,
    result=AddResult,
    errors=[
        Error(
            "invalid_params.too_large",
            "The note could not be read back: its reply would pass 1047552 bytes",
            TooLarge,
        ),
        WRITE_FAILED,
    ],
    examples=[
        Example(
            AddParams(text="buy milk", tags=["home"]),
            AddResult(id=1, created="2026-11-30T11:00:00.000Z"),
        )
    ],
)
DECLARATION.verb(
    "note.get",
    "Return one note",
    grant="read",
    params=IdParams,
    result=Note,
    errors=[NOT_FOUND, NOTE_TOO_LARGE],
)
DECLARATION.verb(
    "note.list",
    "Stream the notes, oldest first",
    grant="read",
    params=ListParams,
    result=ListResult,
    item=Note,
    errors=[NOTE_TOO_LARGE],
)
DECLARATION.verb(
    "note.remove",
    "Delete one note",
    grant="write",
    params=IdParams,
    result=RemoveResult,
    errors=[NOT_FOUND, WRITE_FAILED],
    destructive=True,
)
DECLARATION.verb(
    "note.search",
    "Find notes whose text contains a string, ignoring ASCII case; as many as fit one reply",
    grant="read",
    params=SearchParams,
    result=SearchResult,
    errors=[NOTE_TOO_LARGE],
)
DECLARATION.verb(
    "note.watch",
    "Stream each note added or removed, from now on or after a cursor",
    grant="read",
    params=WatchParams,
    result=WatchResult,
    item=WatchItem,
)
