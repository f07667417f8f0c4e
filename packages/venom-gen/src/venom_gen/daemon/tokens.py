"""The ``token.issue``, ``token.list`` and ``token.revoke`` verbs (rfcs/0005 §7), owner only.

The store is `venom_gen.token_store.TokenStore`; this module adapts it to the daemon's verbs.
A token's text appears in ``token.issue``'s result and nowhere else: never in a log line.

The store file is written as ``config.toml`` is (`venom_proto.files`): in a file worker,
never on the event loop, atomically by rename with mode 0600, through a locked temporary file
that a later start removes if a killed daemon left it. One lock serializes the changes, so
parallel ``token.issue`` and ``token.revoke`` calls each land in the file and none is lost.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING

import anyio

from venom_gen.token_store import MAX_STORE_BYTES, TokenStore, rfc3339, store_path
from venom_proto import VenomError

from .files import FileWorkers

if TYPE_CHECKING:
    from venom_proto import Call
    from venom_schema.model import JsonObject

__all__ = ("TokenVerbs",)


class TokenVerbs:
    """The daemon's issued tokens and the three verbs that manage them."""

    def __init__(self, tool: str, environ: Mapping[str, str] | None = None) -> None:
        # Read once at start-up, before the daemon serves; the read cannot block (a FIFO, a
        # huge file and a symlink are refused) and is bounded by MAX_STORE_BYTES.
        self.store = TokenStore(store_path(tool, environ))
        self._log = logging.getLogger(tool)
        self._workers = FileWorkers()
        self._lock = anyio.Lock()
        self.store.remove_stale()  # left by a daemon killed mid-write
        if self.store.problem is not None:
            self._log.warning(
                "ignoring the token store %s: %s; no issued token is valid until it is fixed "
                "or replaced by the next token.issue",
                self.store.path,
                self.store.problem,
            )

    def _failed(self, reason: str) -> VenomError:
        return VenomError(
            "failed.write",
            f"cannot write {self.store.path}: {reason}",
            {"path": self.store.path, "reason": reason},
        )

    async def _commit(self, undo: Callable[[], None]) -> None:
        """Save the store as it is now, or undo the staged change and raise ``failed.write``.

        Shielded: once the write starts, a cancelled caller waits for it, so memory and the
        file agree whichever way it ends.
        """
        data = self.store.document()
        try:
            if len(data) > MAX_STORE_BYTES:  # unreachable with MAX_TOKENS entries; kept bounded
                raise self._failed(f"the store would exceed {MAX_STORE_BYTES} bytes")
            with anyio.CancelScope(shield=True):
                await self._workers.run(partial(self.store.write, data))
        except OSError as exc:
            undo()
            raise self._failed(str(exc.strerror or exc)) from exc
        except BaseException:
            undo()
            raise

    async def issue(self, call: Call, params: JsonObject) -> JsonObject:
        """``token.issue``: a new token; its text is in this result only."""
        expires_in = params.get("expires_in")
        async with self._lock:
            entry, text, undo = self.store.stage_issue(
                str(params["name"]),
                [str(g) for g in params["grants"]],
                None if expires_in is None else int(expires_in),
            )
            await self._commit(undo)
        self._log.info("issued token %s (%s)", entry.name, entry.id)
        view = entry.describe()
        del view["state"]
        return {**view, "token": text}

    def list(self, call: Call, params: JsonObject) -> JsonObject:
        """``token.list``: every stored token, oldest first, without secrets."""
        return {"tokens": [entry.describe() for entry in self.store]}

    async def revoke(self, call: Call, params: JsonObject) -> JsonObject:
        """``token.revoke``: the named token stops counting, on open connections too."""
        async with self._lock:
            entry, undo = self.store.stage_revoke(str(params["name"]))
            await self._commit(undo)
        self._log.info("revoked token %s (%s)", entry.name, entry.id)
        assert entry.revoked is not None
        return {"name": entry.name, "id": entry.id, "revoked": rfc3339(entry.revoked)}
