"""Issued, scoped tokens (rfcs/0005-local-grants.md §7): text, store, checks, live grants.

A token reads ``vt1_<id>_<secret>``: ``id`` is public (12 hex digits), ``secret`` is 32 random
bytes as 64 hex digits. The store (``$XDG_STATE_HOME/<tool>/tokens.json``, mode 0600) keeps,
per token, its name, grants, times and the SHA-256 of the secret, never the secret.

This module is the store file's one owner: its path, its JSON, its trust checks, its writes
(by `venom_proto.files.write_atomic`). The daemon holds a `TokenStore` and is the store's only
writer (its ``token.*`` verbs: `venom_gen.daemon.tokens`); `check_token` is the read-only
check ``<tool> bridge`` runs against the file for each connection, which is why the module is
not under `venom_gen.daemon` (importing that loads the whole daemon).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from venom_proto import VenomError
from venom_proto.files import FileRefused, read_regular, remove_stale, write_atomic
from venom_proto.paths import state_home
from venom_schema.grants import GRANTS, PUBLIC_GRANTS

__all__ = (
    "ISSUABLE_GRANTS",
    "MAX_EXPIRES_IN",
    "MAX_STORE_BYTES",
    "MAX_TOKENS",
    "TEMP_PREFIX",
    "TOKEN_PREFIX",
    "IssuedToken",
    "TokenGrants",
    "TokenState",
    "TokenStore",
    "check_token",
    "is_issued_token",
    "rfc3339",
    "store_path",
)

#: The prefix of every issued token's text (format 1).
TOKEN_PREFIX = "vt1_"
#: The grants an issued token may hold beyond ``none``; ``admin`` stays the owner's
#: (rfcs/0005 §7.1).
ISSUABLE_GRANTS: tuple[str, ...] = tuple(g for g in GRANTS if g not in {"none", "admin"})
#: Entries the store keeps at most, revoked and expired ones included.
MAX_TOKENS = 1024
#: Longest ``expires_in``: ten years, in seconds.
MAX_EXPIRES_IN = 315_360_000
_FLOOR = PUBLIC_GRANTS
#: Temporary files beside ``tokens.json`` are ``.tokens.<16 hex digits>.tmp``.
TEMP_PREFIX = ".tokens."
_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}\Z")
_TEXT = re.compile(r"vt1_([0-9a-f]{12})_([0-9a-f]{64})\Z")
#: The largest store file read or written; 1024 entries take about 300 KiB (rfcs/0005 §7.3).
MAX_STORE_BYTES = 4 * 1024 * 1024

TokenState = Literal["active", "expired", "revoked", "unknown"]


def rfc3339(epoch: float) -> str:
    """``2026-12-01T16:00:00Z`` for a Unix time."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))


def store_path(tool: str, environ: Mapping[str, str] | None = None) -> str:
    """``$XDG_STATE_HOME/<tool>/tokens.json``, with ``~/.local/state`` when it is unset."""
    return os.path.join(state_home(environ), tool, "tokens.json")


def is_issued_token(text: object) -> bool:
    """Whether ``text`` has the shape of an issued token (not whether it is valid)."""
    return isinstance(text, str) and text.startswith(TOKEN_PREFIX)


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("ascii")).hexdigest()


@dataclass(slots=True, eq=False)
class IssuedToken:
    """One store entry. Times are Unix seconds; ``sha256`` is the secret's hex digest."""

    id: str
    name: str
    grants: frozenset[str]
    created: int
    sha256: str
    expires: int | None = None
    revoked: int | None = None

    def state(self, now: float | None = None) -> TokenState:
        """``active``, ``expired`` or ``revoked`` at ``now`` (default: the current time)."""
        if self.revoked is not None:
            return "revoked"
        if self.expires is not None and (time.time() if now is None else now) >= self.expires:
            return "expired"
        return "active"

    def matches(self, secret: str) -> bool:
        """Constant-time comparison of ``secret``'s digest with the stored one."""
        return hmac.compare_digest(_hash(secret).encode(), self.sha256.encode())

    def describe(self) -> dict[str, Any]:
        """The public view ``token.list`` shows: no secret, no hash."""
        view: dict[str, Any] = {
            "name": self.name,
            "id": self.id,
            "grants": sorted(self.grants - {"none"}),
            "created": rfc3339(self.created),
            "state": self.state(),
        }
        if self.expires is not None:
            view["expires"] = rfc3339(self.expires)
        if self.revoked is not None:
            view["revoked"] = rfc3339(self.revoked)
        return view

    def to_record(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "grants": sorted(self.grants),
            "created": self.created,
            "expires": self.expires,
            "revoked": self.revoked,
            "sha256": self.sha256,
        }

    @classmethod
    def from_record(cls, record: Any) -> IssuedToken | None:
        """The entry a stored record describes, or None for anything malformed."""
        if not isinstance(record, dict):
            return None
        try:
            entry = cls(
                id=str(record["id"]),
                name=str(record["name"]),
                grants=frozenset(str(g) for g in record["grants"]) | _FLOOR,
                created=int(record["created"]),
                sha256=str(record["sha256"]),
                expires=None if record.get("expires") is None else int(record["expires"]),
                revoked=None if record.get("revoked") is None else int(record["revoked"]),
            )
        except (KeyError, TypeError, ValueError):
            return None
        if not re.fullmatch(r"[0-9a-f]{12}", entry.id) or len(entry.sha256) != 64:
            return None
        if not entry.grants <= _FLOOR | set(ISSUABLE_GRANTS):
            return None
        return entry


class TokenGrants:
    """The grants a connection holds through an issued token: the token's live set.

    Membership is decided at each test, so a revocation or an expiry applies to connections
    already open (rfcs/0005 §7.4); ``reason`` says why a grant beyond the floor is missing.
    """

    __slots__ = ("_entry",)

    def __init__(self, entry: IssuedToken) -> None:
        self._entry = entry

    def __contains__(self, grant: object) -> bool:
        entry = self._entry
        if entry.revoked is None and (entry.expires is None or time.time() < entry.expires):
            return grant in entry.grants
        return grant in _FLOOR

    @property
    def reason(self) -> TokenState:
        return self._entry.state()


class _Refused(frozenset[str]):
    """The floor, for a ``vt1_`` text the store does not know; remembers why."""

    reason: TokenState = "unknown"


_UNKNOWN = _Refused(_FLOOR)


def _load(path: str) -> list[IssuedToken]:
    """The entries of the store at ``path``; nothing for a missing or untrustworthy file."""
    return _read_store(path)[0]


def _read_store(path: str) -> tuple[list[IssuedToken], str | None]:
    """The store's entries, and why the file was not trusted (None when it was, or is absent).

    The file must be a regular file of ours, mode 0600 at most, not a symlink: a store anyone
    else could write would let them mint grants. `venom_proto.files.read_regular` checks that
    without blocking on a FIFO and reads at most `MAX_STORE_BYTES` + 1 bytes, whatever the
    file claims its size is.
    """
    try:
        data = read_regular(path, MAX_STORE_BYTES, private=True)
    except FileRefused as exc:
        return [], str(exc)
    except OSError as exc:
        return [], f"cannot read it ({exc.strerror or exc})"
    if data is None:
        return [], None
    try:
        document = json.loads(data)
    except ValueError:
        return [], "it is not valid JSON"
    records = document.get("tokens") if isinstance(document, dict) else None
    if not isinstance(records, list):
        return [], "it holds no token list"
    return [e for e in map(IssuedToken.from_record, records) if e is not None], None


def check_token(text: object, path: str, now: float | None = None) -> TokenState:
    """The state of the issued token ``text`` in the store at ``path``, read afresh.

    ``unknown`` for a text that is malformed, not in the store or whose secret does not match.
    """
    found = _TEXT.match(text) if isinstance(text, str) else None
    if found is None:
        return "unknown"
    token_id, secret = found.groups()
    for entry in _load(path):
        if entry.id == token_id:
            return entry.state(now) if entry.matches(secret) else "unknown"
    return "unknown"


class TokenStore:
    """The daemon's issued tokens, loaded from ``path`` at start-up and saved on each change."""

    def __init__(self, path: str) -> None:
        self.path = path
        entries, problem = _read_store(path)
        #: Why the file on disk was ignored at load (no token from it is valid), or None.
        self.problem = problem
        self._by_id: dict[str, IssuedToken] = {e.id: e for e in entries}

    def __iter__(self) -> Iterator[IssuedToken]:
        return iter(sorted(self._by_id.values(), key=lambda e: (e.created, e.name)))

    def _active(self, name: str) -> IssuedToken | None:
        for entry in self._by_id.values():
            if entry.name == name and entry.state() == "active":
                return entry
        return None

    def issue(
        self, name: str, grants: list[str], expires_in: int | None = None
    ) -> tuple[IssuedToken, str]:
        """Create and save a token; returns its entry and its text (shown once)."""
        entry, text, undo = self.stage_issue(name, grants, expires_in)
        try:
            self.save()
        except BaseException:
            undo()
            raise
        return entry, text

    def stage_issue(
        self, name: str, grants: list[str], expires_in: int | None = None
    ) -> tuple[IssuedToken, str, Callable[[], None]]:
        """`issue` in memory only: the entry, its text, and a call that undoes the change.

        The caller saves `document` (off the event loop, in the daemon) and undoes the change
        if that fails, so memory never holds what the file lacks once the caller returns.
        """
        if not _NAME.match(name):
            raise VenomError(
                "invalid_params.name",
                "a token name is 1-64 of a-z 0-9 . _ -, starting with a letter or digit",
                {"name": name},
            )
        bad = sorted(set(grants) - set(ISSUABLE_GRANTS) - {"none"})
        if bad:
            raise VenomError(
                "invalid_params.grant",
                f"a token cannot hold {', '.join(map(repr, bad))}; "
                f"choose from {', '.join(ISSUABLE_GRANTS)}",
                {"grants": bad},
            )
        if expires_in is not None and not 1 <= expires_in <= MAX_EXPIRES_IN:
            raise VenomError(
                "invalid_params.expires_in",
                f"expires_in must be 1 to {MAX_EXPIRES_IN} seconds",
                {"expires_in": expires_in},
            )
        if self._active(name) is not None:
            raise VenomError(
                "conflict.token_exists",
                f"a token named {name!r} exists; revoke it first",
                {"name": name},
            )
        evicted = self._make_room()
        now = int(time.time())
        token_id = secrets.token_hex(6)
        while token_id in self._by_id:
            token_id = secrets.token_hex(6)
        secret = secrets.token_hex(32)
        entry = IssuedToken(
            id=token_id,
            name=name,
            grants=frozenset(grants) | _FLOOR,
            created=now,
            sha256=_hash(secret),
            expires=None if expires_in is None else now + expires_in,
        )
        self._by_id[token_id] = entry

        def undo() -> None:
            self._by_id.pop(token_id, None)
            if evicted is not None:
                self._by_id[evicted.id] = evicted

        return entry, f"{TOKEN_PREFIX}{token_id}_{secret}", undo

    def _make_room(self) -> IssuedToken | None:
        """Drop the oldest inactive entry when the store is full; returns it."""
        if len(self._by_id) < MAX_TOKENS:
            return None
        stale = sorted(
            (e for e in self._by_id.values() if e.state() != "active"),
            key=lambda e: e.revoked or e.expires or e.created,
        )
        if not stale:
            raise VenomError(
                "unavailable.too_many_tokens",
                f"{MAX_TOKENS} tokens are active, the limit; revoke some first",
                {"limit": MAX_TOKENS},
            )
        return self._by_id.pop(stale[0].id)

    def revoke(self, name: str) -> IssuedToken:
        """Revoke the active token called ``name`` and save; ``not_found.token`` if none."""
        entry, undo = self.stage_revoke(name)
        try:
            self.save()
        except BaseException:
            undo()
            raise
        return entry

    def stage_revoke(self, name: str) -> tuple[IssuedToken, Callable[[], None]]:
        """`revoke` in memory only (it applies at once); returns the entry and an undo."""
        entry = self._active(name)
        if entry is None:
            raise VenomError("not_found.token", f"no active token named {name!r}", {"name": name})
        entry.revoked = int(time.time())

        def undo() -> None:
            entry.revoked = None

        return entry, undo

    def grants_for(self, text: str) -> TokenGrants | frozenset[str]:
        """What a connection presenting ``text`` holds: the token's live set, or the floor
        (which says ``unknown`` for an issued token's text this store does not know)."""
        if not is_issued_token(text):
            return _FLOOR
        found = _TEXT.match(text)
        entry = None if found is None else self._by_id.get(found.group(1))
        if entry is None or found is None or not entry.matches(found.group(2)):
            return _UNKNOWN
        return TokenGrants(entry)

    def document(self) -> bytes:
        """The store file's bytes for the entries held now."""
        document = {"version": 1, "tokens": [e.to_record() for e in self]}
        return json.dumps(document, indent=1, sort_keys=True).encode() + b"\n"

    def save(self) -> None:
        """Write the entries held now to the file (`write`); this blocks."""
        self.write(self.document())

    def write(self, data: bytes) -> None:
        """Write `document` bytes atomically with mode 0600 (rfcs/0005 §7.3); this blocks.

        The daemon calls it in a file worker (rfcs/0006), never on its event loop.
        """
        os.makedirs(os.path.dirname(self.path), mode=0o700, exist_ok=True)
        write_atomic(self.path, data, 0o600, prefix=TEMP_PREFIX)

    def remove_stale(self) -> int:
        """Remove temporary files a writer killed mid-write left beside the store."""
        return remove_stale(os.path.dirname(self.path), TEMP_PREFIX)
