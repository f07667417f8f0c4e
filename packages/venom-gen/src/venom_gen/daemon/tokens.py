"""The ``token.issue``, ``token.list`` and ``token.revoke`` verbs (rfcs/0005 §7), owner only.

The store is `venom_schema.tokens.TokenStore`; this module adapts it to the daemon's verbs.
A token's text appears in ``token.issue``'s result and nowhere else: never in a log line.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING

from venom_proto import VenomError
from venom_schema.tokens import TokenStore, rfc3339, store_path

if TYPE_CHECKING:
    from venom_proto import Call
    from venom_schema.model import JsonObject

__all__ = ("TokenVerbs",)


class TokenVerbs:
    """The daemon's issued tokens and the three verbs that manage them."""

    def __init__(self, tool: str, environ: Mapping[str, str] | None = None) -> None:
        self.store = TokenStore(store_path(tool, environ))
        self._log = logging.getLogger(tool)
        if self.store.problem is not None:
            self._log.warning(
                "ignoring the token store %s: %s; no issued token is valid until it is fixed "
                "or replaced by the next token.issue",
                self.store.path,
                self.store.problem,
            )

    def _saving(self, exc: OSError) -> VenomError:
        reason = str(exc.strerror or exc)
        return VenomError(
            "failed.write",
            f"cannot write {self.store.path}: {reason}",
            {"path": self.store.path, "reason": reason},
        )

    def issue(self, call: Call, params: JsonObject) -> JsonObject:
        """``token.issue``: a new token; its text is in this result only."""
        expires_in = params.get("expires_in")
        try:
            entry, text = self.store.issue(
                str(params["name"]),
                [str(g) for g in params["grants"]],
                None if expires_in is None else int(expires_in),
            )
        except OSError as exc:
            raise self._saving(exc) from exc
        self._log.info("issued token %s (%s)", entry.name, entry.id)
        view = entry.describe()
        del view["state"]
        return {**view, "token": text}

    def list(self, call: Call, params: JsonObject) -> JsonObject:
        """``token.list``: every stored token, oldest first, without secrets."""
        return {"tokens": [entry.describe() for entry in self.store]}

    def revoke(self, call: Call, params: JsonObject) -> JsonObject:
        """``token.revoke``: the named token stops counting, on open connections too."""
        try:
            entry = self.store.revoke(str(params["name"]))
        except OSError as exc:
            raise self._saving(exc) from exc
        self._log.info("revoked token %s (%s)", entry.name, entry.id)
        assert entry.revoked is not None
        return {"name": entry.name, "id": entry.id, "revoked": rfc3339(entry.revoked)}
