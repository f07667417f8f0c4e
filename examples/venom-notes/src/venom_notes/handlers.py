"""venom-notes' handlers, bound to their exact wire names.

The store is blocking sqlite3 and a write waits for an fsync (milliseconds, more on a busy disk),
so each handler runs its store call in a worker thread instead of inline on the event loop: a
slow commit must not stall pings, event streams or other connections. The reply is sent only
after the call returns, that is after ``COMMIT``, which is what makes an acknowledged note
durable. Events are published back on the event loop, after the commit, because the bus is not
thread-safe. A write, once started, runs to its end through `finish`: the client that cancelled
gets ``cancelled`` (and must not assume either outcome), but the commit and its event still
happen together.

Every note the store accepts can be read back: `note.add` refuses one whose reply would not fit
the default frame (RFC-0002 §4.1), and a reader whose connection has a smaller ``max_frame``
gets ``failed.note_too_large`` naming the note, so it can pass ``after`` to read on past it.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

from anyio import to_thread

from venom_gen.daemon import App, finish
from venom_gen.daemon.events import GAP, event_data
from venom_notes.handler_types import (
    NoteAddParams,
    NoteAddResult,
    NoteGetParams,
    NoteGetResult,
    NoteListItem,
    NoteListParams,
    NoteListResult,
    NoteRemoveParams,
    NoteRemoveResult,
    NoteSearchParams,
    NoteSearchResult,
    NoteWatchItem,
    NoteWatchItemChange,
    NoteWatchParams,
    NoteWatchResult,
    StreamingCall,
    bind_handlers,
)
from venom_notes.store import Note, NoteStore, StorageError, WriteFailed, data_path
from venom_proto import Call, Handler, VenomError, encode_item

__all__ = (
    "MAX_NOTE_BYTES",
    "PAGE",
    "PAGE_BYTES",
    "NoteHandlers",
    "handlers",
    "open_store",
)

#: Notes fetched per store round trip while streaming ``note.list``; bounds the daemon's memory,
#: as does `PAGE_BYTES`, the most text one round trip fetches (one note may exceed it).
PAGE = 100
PAGE_BYTES = 4 * 1024 * 1024
#: The largest note, as the compact JSON of its item: the default max_frame (1 MiB) less room
#: for the reply around it, so every stored note can be sent to every default client.
MAX_NOTE_BYTES = 1024 * 1024 - 1024
#: The widest request id a reply can carry (RFC-0002 §4.2: at most 64 bytes, here all escaped).
_WIDEST_ID = "\x00" * 64


def _not_found(note_id: int) -> VenomError:
    return VenomError("not_found.note", f"no note has id {note_id}", {"id": note_id})


def _too_large(note: Note, size: int, max_frame: int) -> VenomError:
    return VenomError(
        "failed.note_too_large",
        f"note {note['id']} takes {size} bytes, more than this connection's max_frame"
        f" ({max_frame}); pass after={note['id']} to read past it",
        {"id": note["id"], "size": size, "max_frame": max_frame},
    )


def _reply_size(call: Call | StreamingCall[NoteListItem], note: Note) -> int:
    """The bytes of the reply carrying ``note`` (an item line; an ok line is 2 bytes shorter)."""
    return len(encode_item(call.id, note))


def _check_fits(call: Call | StreamingCall[NoteListItem], note: Note) -> int:
    """The size of ``note``'s reply, or ``failed.note_too_large`` if the frame cannot hold it."""
    size = _reply_size(call, note)
    max_frame = call.connection.max_frame
    if size > max_frame:
        raise _too_large(note, size, max_frame)
    return size


def _write_failed(store: NoteStore, exc: WriteFailed) -> VenomError:
    reason = str(exc)
    return VenomError(
        "failed.write",
        f"cannot write {store.path}: {reason}",
        {"path": str(store.path), "reason": reason},
    )


class NoteHandlers:
    """The ``note.*`` verbs over one `NoteStore`, typed by `venom_notes.handler_types` (generated
    from the schema). Writes publish ``note.added``/``note.removed``."""

    def __init__(self, app: App, store: NoteStore) -> None:
        self.store = store
        self.events = app.events
        self.publish = app.events.publish

    async def note_add(self, call: Call, params: NoteAddParams) -> NoteAddResult:
        text, tags = params["text"], sorted(set(params.get("tags", ())))
        widest: Note = {"id": 2**53 - 1, "text": text, "tags": tags, "created": "0" * 24}
        size = len(encode_item(_WIDEST_ID, widest))
        if size > MAX_NOTE_BYTES:
            raise VenomError(
                "invalid_params.too_large",
                f"the note would take {size} bytes; at most {MAX_NOTE_BYTES} can be read back",
                {"param": "text", "size": size, "limit": MAX_NOTE_BYTES},
            )

        async def commit_and_publish() -> Note:
            try:
                note = await to_thread.run_sync(self.store.add, text, tags)
            except WriteFailed as exc:
                raise _write_failed(self.store, exc) from None
            self.publish("note.added", {"id": note["id"], "tags": note["tags"]})
            return note

        note = await finish(commit_and_publish())
        return {"id": note["id"], "created": note["created"]}

    async def note_get(self, call: Call, params: NoteGetParams) -> NoteGetResult:
        note = await to_thread.run_sync(self.store.get, params["id"])
        if note is None:
            raise _not_found(params["id"])
        _check_fits(call, note)
        return note

    async def note_list(
        self, call: StreamingCall[NoteListItem], params: NoteListParams
    ) -> NoteListResult:
        tag, limit, after = params.get("tag"), params.get("limit"), params.get("after", 0)
        sent = 0
        while limit is None or sent < limit:
            size = PAGE if limit is None else min(PAGE, limit - sent)
            page = await to_thread.run_sync(
                partial(self.store.page, after=after, size=size, tag=tag, max_bytes=PAGE_BYTES)
            )
            for note in page:
                _check_fits(call, note)
                await call.emit(note)
            sent += len(page)
            if not page:
                break
            after = page[-1]["id"]
        return {"count": sent}

    async def note_remove(self, call: Call, params: NoteRemoveParams) -> NoteRemoveResult:
        note_id = params["id"]

        async def commit_and_publish() -> bool:
            try:
                removed = await to_thread.run_sync(self.store.remove, note_id)
            except WriteFailed as exc:
                raise _write_failed(self.store, exc) from None
            if removed:
                self.publish("note.removed", {"id": note_id})
            return removed

        if not await finish(commit_and_publish()):
            raise _not_found(note_id)
        return {"id": note_id}

    async def note_search(self, call: Call, params: NoteSearchParams) -> NoteSearchResult:
        """Matches in id order, as many as ``limit`` and the frame hold; ``next`` pages on."""
        query, limit, after = params["query"], params["limit"], params.get("after", 0)
        max_frame = call.connection.max_frame
        room = max_frame - len(encode_item(call.id, {"notes": [], "next": 2**53 - 1}))
        bare = len(encode_item(call.id, {})) - 2  # the reply without the note's own JSON
        notes: list[Note] = []
        while True:
            page = await to_thread.run_sync(
                partial(self.store.search, query, limit=PAGE, after=after, max_bytes=PAGE_BYTES)
            )
            for note in page:
                size = _reply_size(call, note) - bare + 1  # its JSON and a comma
                if len(notes) == limit or size > room:
                    if not notes:  # one note alone is too large for this connection
                        raise _too_large(note, _reply_size(call, note), max_frame)
                    return {"notes": notes, "next": notes[-1]["id"]}
                room -= size
                notes.append(note)
            if not page:
                return {"notes": notes}
            after = page[-1]["id"]

    async def note_watch(
        self, call: StreamingCall[NoteWatchItem], params: NoteWatchParams
    ) -> NoteWatchResult:
        """The bus's own subscription: replay after ``cursor``, follow, end on cancel."""
        limit, sent = params.get("limit"), 0
        subscription = self.events.subscribe(["note.*"], params.get("cursor"), call=call)
        async for event in subscription:
            change = _CHANGES.get(event["type"])
            if change is None:  # a truncation marker: our payloads are tiny, so never seen
                continue
            data = event_data(event)
            item: NoteWatchItem = {"seq": event["seq"], "change": change}
            if "id" in data:
                item["id"] = data["id"]
            if "tags" in data:
                item["tags"] = data["tags"]
            await call.emit(item)
            sent += 1
            if sent == limit:
                break
        return {"last": subscription.last}


_CHANGES: dict[str, NoteWatchItemChange] = {
    "note.added": "added",
    "note.removed": "removed",
    GAP: "gap",
}


def open_store(app: App) -> NoteStore:
    """The store under the XDG data dir; a failure stops start-up with a clear error."""
    try:
        return NoteStore(data_path())
    except StorageError as exc:
        raise VenomError("unavailable.storage", str(exc), {"path": str(data_path())}) from None


def handlers(app: App, store: NoteStore | None = None) -> Mapping[str, Handler]:
    """Handlers by exact wire name; the registry refuses to start if one is missing or extra."""
    return bind_handlers(NoteHandlers(app, store if store is not None else open_store(app)))
