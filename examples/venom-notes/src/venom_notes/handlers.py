"""venom-notes' handlers, bound to their exact wire names.

The store is blocking sqlite3 and a write waits for an fsync (milliseconds, more on a busy disk),
so each handler runs its store call in a worker thread instead of inline on the event loop: a
slow commit must not stall pings, event streams or other connections. The reply is sent only
after the call returns, that is after ``COMMIT``, which is what makes an acknowledged note
durable. Events are published back on the event loop, after the commit, because the bus is not
thread-safe. A write, once started, is shielded from cancellation: the client that cancelled
gets ``cancelled`` (and must not assume either outcome), but the commit and its event still
happen together.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from anyio import CancelScope, to_thread

from venom_gen.daemon.app import App
from venom_notes.store import Note, NoteStore, StorageError, data_path
from venom_proto import VenomError
from venom_proto._server import Call, Handler

__all__ = ("PAGE", "NoteHandlers", "handlers")

#: Notes fetched per store round trip while streaming ``note.list``; bounds the daemon's memory.
PAGE = 100


def _not_found(note_id: int) -> VenomError:
    return VenomError("not_found.note", f"no note has id {note_id}", {"id": note_id})


class NoteHandlers:
    """The ``note.*`` verbs over one `NoteStore`. Writes publish ``note.added``/``note.removed``."""

    def __init__(self, app: App, store: NoteStore) -> None:
        self.store = store
        self.publish = app.events.publish

    async def add(self, call: Call, params: dict[str, Any]) -> dict[str, Any]:
        with CancelScope(shield=True):
            note = await to_thread.run_sync(self.store.add, params["text"], params.get("tags", ()))
            self.publish("note.added", {"id": note["id"], "tags": note["tags"]})
        return {"id": note["id"], "created": note["created"]}

    async def get(self, call: Call, params: dict[str, Any]) -> Note:
        note = await to_thread.run_sync(self.store.get, params["id"])
        if note is None:
            raise _not_found(params["id"])
        return note

    async def list(self, call: Call, params: dict[str, Any]) -> dict[str, Any]:
        tag, limit = params.get("tag"), params.get("limit")
        sent, after = 0, 0
        while limit is None or sent < limit:
            size = PAGE if limit is None else min(PAGE, limit - sent)
            page = await to_thread.run_sync(
                partial(self.store.page, after=after, size=size, tag=tag)
            )
            for note in page:
                await call.emit(note)
            sent += len(page)
            if len(page) < size:
                break
            after = page[-1]["id"]
        return {"count": sent}

    async def remove(self, call: Call, params: dict[str, Any]) -> dict[str, Any]:
        note_id = params["id"]
        with CancelScope(shield=True):
            removed = await to_thread.run_sync(self.store.remove, note_id)
            if removed:
                self.publish("note.removed", {"id": note_id})
        if not removed:
            raise _not_found(note_id)
        return {"id": note_id}

    async def search(self, call: Call, params: dict[str, Any]) -> dict[str, Any]:
        query, limit = params["query"], params["limit"]
        notes = await to_thread.run_sync(partial(self.store.search, query, limit=limit))
        return {"notes": notes}


def open_store(app: App) -> NoteStore:
    """The store under the XDG data dir; a failure stops start-up with a clear error."""
    try:
        return NoteStore(data_path())
    except StorageError as exc:
        raise VenomError("unavailable.storage", str(exc), {"path": str(data_path())}) from None


def handlers(app: App, store: NoteStore | None = None) -> Mapping[str, Handler]:
    """Handlers by exact wire name; the registry refuses to start if one is missing or extra."""
    h = NoteHandlers(app, store if store is not None else open_store(app))
    return {
        "note.add": h.add,
        "note.get": h.get,
        "note.list": h.list,
        "note.remove": h.remove,
        "note.search": h.search,
    }
