"""Issued, scoped tokens (rfcs/0005-local-grants.md §7): text, store, checks, live grants.

A token reads ``vt1_<id>_<secret>``: ``id`` is public (12 hex digits), ``secret`` is 32 random
bytes as 64 hex digits. The store (``$XDG_STATE_HOME/<tool>/tokens.json``, mode 0600) keeps,
per token, its name, grants, times and the SHA-256 of the secret, never the secret.

This module is the store file's one owner: its path, its JSON, its trust checks, its lock and
its writes (by `venom_proto.files.write_atomic`). The file is the single source of truth for
every instance of a tool (rfcs/0005 §7.3): a `TokenStore` is a snapshot of it, `refresh`
re-reads it when its bytes changed, and each change (`issue`, `revoke`) is a read-modify-write
of the file as it is now, under an exclusive ``flock`` on ``tokens.lock`` beside it, so no
write resurrects a token another instance revoked or drops one it issued. The daemon's
``token.*`` verbs (`venom_gen.daemon.tokens`) run these blocking calls in worker threads;
`check_token` is the read-only check ``<tool> bridge`` runs against the file for each
connection, which is why the module is not under `venom_gen.daemon` (importing that loads the
whole daemon).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
import stat
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any, Literal, TypeVar

from venom_proto import VenomError
from venom_proto.files import FileRefused, read_regular, remove_stale, write_atomic
from venom_proto.paths import state_home
from venom_schema.grants import GRANTS, PUBLIC_GRANTS

__all__ = (
    "ISSUABLE_GRANTS",
    "LOCK_TIMEOUT",
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
    "closing_error",
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
#: Seconds a change waits for another instance's change to finish (the lock) before it fails.
LOCK_TIMEOUT = 10.0
_LOCK_NAME = "tokens.lock"
T = TypeVar("T")

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

    Membership is decided at each test against the store's current snapshot, so a revocation
    or an expiry applies to connections already open (rfcs/0005 §7.4). A token that no longer
    counts holds nothing at all: the daemon ends its connection (rfcs/0006 §2.4). ``refresh``
    (the registry awaits it before every admission) brings the snapshot up to date with the
    file and raises ``denied.auth`` when the token no longer counts; ``reason`` says why.
    """

    __slots__ = ("_digest", "_id", "_refresh", "_store")

    def __init__(
        self,
        store: TokenStore,
        token_id: str | None,
        digest: str,
        refresh: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self._store = store
        self._id = token_id
        self._digest = digest
        self._refresh = refresh

    @property
    def token_id(self) -> str | None:
        """The public id of the presented token (None for a malformed text)."""
        return self._id

    def _entry(self) -> IssuedToken | None:
        entry = None if self._id is None else self._store.get(self._id)
        if entry is None or not hmac.compare_digest(entry.sha256, self._digest):
            return None
        return entry

    def __contains__(self, grant: object) -> bool:
        entry = self._entry()
        return entry is not None and entry.state() == "active" and grant in entry.grants

    @property
    def reason(self) -> TokenState:
        entry = self._entry()
        return "unknown" if entry is None else entry.state()

    async def refresh(self) -> None:
        """Re-read the store if the daemon gave a way to; ``denied.auth`` unless still active."""
        if self._refresh is not None:
            await self._refresh()
        reason = self.reason
        if reason != "active":
            raise closing_error(reason)


_CLOSING = {
    "revoked": ("revoked", "the token this connection presented was revoked"),
    "expired": ("expired", "the token this connection presented has expired"),
    "unknown": ("unknown_token", "the token this connection presented is not valid here"),
}


def closing_error(state: TokenState) -> VenomError:
    """``denied.auth`` for a connection whose issued token stopped counting (rfcs/0006 §2.4);
    ``data.reason`` as the bridge's refusals: ``revoked``, ``expired``, ``unknown_token``."""
    reason, message = _CLOSING.get(state, _CLOSING["unknown"])
    return VenomError("denied.auth", message + "; the connection is closed", {"reason": reason})


def _load(path: str) -> list[IssuedToken]:
    """The entries of the store at ``path``; nothing for a missing or untrustworthy file."""
    return _read_store(path)[0]


def _read_bytes(path: str) -> tuple[bytes | None, str | None]:
    """The store's bytes (None when absent or refused), and why it was refused."""
    try:
        return read_regular(path, MAX_STORE_BYTES, private=True), None
    except FileRefused as exc:
        return None, str(exc)
    except OSError as exc:
        return None, f"cannot read it ({exc.strerror or exc})"


def _parse(data: bytes | None) -> tuple[list[IssuedToken], str | None]:
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


def _read_store(path: str) -> tuple[list[IssuedToken], str | None]:
    """The store's entries, and why the file was not trusted (None when it was, or is absent).

    The file must be a regular file of ours, mode 0600 at most, not a symlink: a store anyone
    else could write would let them mint grants. `venom_proto.files.read_regular` checks that
    without blocking on a FIFO and reads at most `MAX_STORE_BYTES` + 1 bytes, whatever the
    file claims its size is.
    """
    data, problem = _read_bytes(path)
    if problem is not None:
        return [], problem
    return _parse(data)


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


def _check_issue(name: str, grants: list[str], expires_in: int | None) -> None:
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


def _active(entries: Mapping[str, IssuedToken], name: str) -> IssuedToken | None:
    for entry in entries.values():
        if entry.name == name and entry.state() == "active":
            return entry
    return None


def _make_room(entries: dict[str, IssuedToken]) -> None:
    """Drop the oldest inactive entry when the store is full."""
    if len(entries) < MAX_TOKENS:
        return
    stale = sorted(
        (e for e in entries.values() if e.state() != "active"),
        key=lambda e: e.revoked or e.expires or e.created,
    )
    if not stale:
        raise VenomError(
            "unavailable.too_many_tokens",
            f"{MAX_TOKENS} tokens are active, the limit; revoke some first",
            {"limit": MAX_TOKENS},
        )
    del entries[stale[0].id]


def _document(entries: Mapping[str, IssuedToken]) -> bytes:
    ordered = sorted(entries.values(), key=lambda e: (e.created, e.name))
    document = {"version": 1, "tokens": [e.to_record() for e in ordered]}
    return json.dumps(document, indent=1, sort_keys=True).encode() + b"\n"


class TokenStore:
    """A snapshot of the store file, and the changes to it (rfcs/0005 §7.3).

    ``refresh`` re-reads the file when its bytes differ from the snapshot's; ``issue`` and
    ``revoke`` change the file as it is now, under an exclusive lock shared by every process
    of the tool, and take what they wrote as the new snapshot. All three block: the daemon
    runs them in worker threads, and the snapshot is replaced whole, never changed in place,
    so the event loop always reads a consistent one.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self.lock_path = os.path.join(os.path.dirname(path), _LOCK_NAME)
        data, problem = _read_bytes(path)
        entries, parse_problem = _parse(data) if problem is None else ([], problem)
        #: Why the file on disk was not trusted at the last read (no token from it is valid).
        self.problem = parse_problem
        self._data = data
        self._by_id: dict[str, IssuedToken] = {e.id: e for e in entries}

    def __iter__(self) -> Iterator[IssuedToken]:
        return iter(sorted(self._by_id.values(), key=lambda e: (e.created, e.name)))

    def get(self, token_id: str) -> IssuedToken | None:
        """The entry with public id ``token_id`` in the snapshot."""
        return self._by_id.get(token_id)

    def next_expiry(self, now: float | None = None) -> int | None:
        """The earliest expiry time of a token active at ``now``, if any expires."""
        at = time.time() if now is None else now
        times = [e.expires for e in self._by_id.values() if e.expires is not None]
        return min((t for t in times if t > at), default=None)

    def refresh(self) -> bool:
        """Re-read the file; True when its content changed since the snapshot. Blocks."""
        data, problem = _read_bytes(self.path)
        if problem is None and data == self._data:
            return False
        entries, parse_problem = _parse(data) if problem is None else ([], problem)
        self.problem = parse_problem
        self._data = data
        self._by_id = {e.id: e for e in entries}
        return True

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """Hold the exclusive lock on ``tokens.lock`` (created 0600, never a symlink)."""
        import fcntl

        os.makedirs(os.path.dirname(self.path), mode=0o700, exist_ok=True)
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
        fd = os.open(self.lock_path, flags, 0o600)
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
                raise OSError(f"{self.lock_path} is not a regular file of ours")
            deadline = time.monotonic() + LOCK_TIMEOUT
            pause = 0.001
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise OSError(
                            f"another process held {self.lock_path} for {LOCK_TIMEOUT:g} s"
                        ) from None
                    time.sleep(pause)
                    pause = min(pause * 2, 0.05)
            yield
        finally:
            os.close(fd)  # releases the lock

    def _change(self, apply: Callable[[dict[str, IssuedToken]], T]) -> T:
        """Read the file under the lock, ``apply`` the change to its entries, write it back.

        The snapshot becomes what was written. An untrusted file counts as empty (none of its
        tokens is valid) and is replaced, never written through. Raises ``OSError`` for the
        lock or the write, and whatever ``apply`` raises, with the file unchanged.
        """
        with self._locked():
            # An untrusted file counts as empty: none of its tokens was ever valid.
            entries, _ = _read_store(self.path)
            current = {e.id: e for e in entries}
            result = apply(current)
            written = _document(current)
            if len(written) > MAX_STORE_BYTES:  # unreachable with MAX_TOKENS entries
                raise OSError(f"the store would exceed {MAX_STORE_BYTES} bytes")
            write_atomic(self.path, written, 0o600, prefix=TEMP_PREFIX)
        self.problem = None
        self._data = written
        self._by_id = current
        return result

    def issue(
        self, name: str, grants: list[str], expires_in: int | None = None
    ) -> tuple[IssuedToken, str]:
        """Create a token in the file; returns its entry and its text (shown once). Blocks."""
        _check_issue(name, grants, expires_in)
        secret = secrets.token_hex(32)

        def add(entries: dict[str, IssuedToken]) -> IssuedToken:
            if _active(entries, name) is not None:
                raise VenomError(
                    "conflict.token_exists",
                    f"a token named {name!r} exists; revoke it first",
                    {"name": name},
                )
            _make_room(entries)
            now = int(time.time())
            token_id = secrets.token_hex(6)
            while token_id in entries:
                token_id = secrets.token_hex(6)
            entry = IssuedToken(
                id=token_id,
                name=name,
                grants=frozenset(grants) | _FLOOR,
                created=now,
                sha256=_hash(secret),
                expires=None if expires_in is None else now + expires_in,
            )
            entries[token_id] = entry
            return entry

        entry = self._change(add)
        return entry, f"{TOKEN_PREFIX}{entry.id}_{secret}"

    def revoke(self, name: str) -> IssuedToken:
        """Revoke the active token called ``name`` in the file; ``not_found.token`` if none."""

        def mark(entries: dict[str, IssuedToken]) -> IssuedToken:
            entry = _active(entries, name)
            if entry is None:
                raise VenomError(
                    "not_found.token", f"no active token named {name!r}", {"name": name}
                )
            revoked = entries[entry.id] = replace(entry, revoked=int(time.time()))
            return revoked

        return self._change(mark)

    def grants_for(
        self, text: str, refresh: Callable[[], Awaitable[None]] | None = None
    ) -> TokenGrants | frozenset[str]:
        """What a connection presenting ``text`` holds: the floor for a text that is not an
        issued token's, else the token's live set (`TokenGrants`), which ``refresh`` (the
        daemon's re-read of the file) brings up to date before each admission."""
        if not is_issued_token(text):
            return _FLOOR
        found = _TEXT.match(text)
        if found is None:
            return TokenGrants(self, None, "", refresh)
        return TokenGrants(self, found.group(1), _hash(found.group(2)), refresh)

    def remove_stale(self) -> int:
        """Remove temporary files a writer killed mid-write left beside the store."""
        return remove_stale(os.path.dirname(self.path), TEMP_PREFIX)
