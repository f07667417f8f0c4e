"""The ``token.issue``, ``token.list`` and ``token.revoke`` verbs (rfcs/0005 §7), owner only,
and the sessions issued tokens open (rfcs/0006 §2.4).

The store is `venom_gen.token_store.TokenStore`, a snapshot of a file every instance of the
tool shares (rfcs/0005 §7.3). Every blocking step runs in a worker thread, never on the event
loop: a change (``token.issue``, ``token.revoke``) is a read-modify-write of the file under its
lock, shielded from cancellation so the file and the snapshot agree however the call ends; a
refresh re-reads the file. Before each admission of a call on a connection that presented an
issued token, the registry awaits `TokenVerbs.fresh`: a re-read that began after the call
arrived, so a revocation or an issue by any instance is seen first. A connection whose token
stopped counting is closed with ``denied.auth`` (its reason ``revoked``, ``expired`` or
``unknown_token``) at once: by the instance that revoked it, by any instance at its next
admission, and by a watcher that re-reads the store every `WATCH_INTERVAL` seconds and wakes
at the next expiry while such connections are open.

A token's text appears in ``token.issue``'s result and nowhere else: never in a log line.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Container, Mapping
from functools import partial
from typing import TYPE_CHECKING, TypeVar

import anyio
from anyio import to_thread

from venom_gen.token_store import (
    TokenGrants,
    TokenStore,
    closing_error,
    is_issued_token,
    rfc3339,
    store_path,
)
from venom_proto import VenomError

if TYPE_CHECKING:
    from venom_proto import Call, ConnectionInfo
    from venom_schema.model import JsonObject

__all__ = ("REFRESH_TIMEOUT", "WATCH_INTERVAL", "CloseConnections", "TokenVerbs")

#: Seconds an admission waits for a fresh read of the store before it is refused
#: (``unavailable.token_store``): a hung file system delays calls, never admits a revoked token.
REFRESH_TIMEOUT = 5.0
#: Seconds between the watcher's reads while connections with issued tokens are open: the
#: longest a revocation made by another instance takes to end an idle session here.
WATCH_INTERVAL = 1.0

T = TypeVar("T")
#: `venom_proto.Server.close_connections`: close each connection ``which`` gives an error for.
CloseConnections = Callable[[Callable[["ConnectionInfo"], "VenomError | None"]], int]


def _presented(connection: ConnectionInfo) -> str | None:
    """The issued token's text a connection's hello presented, if any."""
    auth = connection.hello.get("auth")
    token = auth.get("token") if isinstance(auth, dict) else None
    return token if is_issued_token(token) else None


class TokenVerbs:
    """The daemon's view of the token store, the three verbs, and the sessions tokens open."""

    def __init__(self, tool: str, environ: Mapping[str, str] | None = None) -> None:
        # Read once at start-up, before the daemon serves; the read cannot block (a FIFO, a
        # huge file and a symlink are refused) and is bounded by MAX_STORE_BYTES.
        self.store = TokenStore(store_path(tool, environ))
        self._log = logging.getLogger(tool)
        self._lock = anyio.Lock()
        # One thread for the store, so a read never overlaps a change of this process (an
        # older read applied after a newer write would bring back what it revoked).
        self._limiter: anyio.CapacityLimiter | None = None
        self._close: CloseConnections | None = None
        self._next: asyncio.Future[None] | None = None  # the read the next waiters share
        self._reading = False
        self._reader: asyncio.Task[None] | None = None
        self._watcher: asyncio.Task[None] | None = None
        self._warned: str | None = None
        self._expiry_seen = time.time()
        self.store.remove_stale()  # left by a writer killed mid-write
        self._warn_problem()

    def attach(self, close: CloseConnections) -> None:
        """Give the way to close connections (the server's), once it exists."""
        self._close = close

    def _warn_problem(self) -> None:
        problem = self.store.problem
        if problem is not None and problem != self._warned:
            self._log.warning(
                "ignoring the token store %s: %s; no issued token is valid until it is fixed "
                "or replaced by the next token.issue",
                self.store.path,
                problem,
            )
        self._warned = problem

    async def _blocking(self, fn: Callable[[], T], *, abandon: bool) -> T:
        """``fn()`` in the store's one worker thread; ``abandon`` for reads: a cancelled caller
        stops waiting, and the thread finishes what it started."""
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(1)
        return await to_thread.run_sync(fn, abandon_on_cancel=abandon, limiter=self._limiter)

    def _failed(self, reason: str) -> VenomError:
        return VenomError(
            "failed.write",
            f"cannot write {self.store.path}: {reason}",
            {"path": self.store.path, "reason": reason},
        )

    async def _change(self, fn: Callable[[], T]) -> T:
        """Run a store change in the worker, shielded; an ``OSError`` is ``failed.write``."""
        async with self._lock:
            try:
                with anyio.CancelScope(shield=True):
                    result = await self._blocking(fn, abandon=False)
            except OSError as exc:
                raise self._failed(str(exc.strerror or exc)) from exc
        self._warn_problem()
        self.end_sessions()
        return result

    # -- the verbs -------------------------------------------------------------------------

    async def issue(self, call: Call, params: JsonObject) -> JsonObject:
        """``token.issue``: a new token; its text is in this result only."""
        expires_in = params.get("expires_in")
        entry, text = await self._change(
            partial(
                self.store.issue,
                str(params["name"]),
                [str(g) for g in params["grants"]],
                None if expires_in is None else int(expires_in),
            )
        )
        self._log.info("issued token %s (%s)", entry.name, entry.id)
        view = entry.describe()
        del view["state"]
        return {**view, "token": text}

    async def list(self, call: Call, params: JsonObject) -> JsonObject:
        """``token.list``: every stored token, oldest first, without secrets, read afresh."""
        await self.fresh()
        return {"tokens": [entry.describe() for entry in self.store]}

    async def revoke(self, call: Call, params: JsonObject) -> JsonObject:
        """``token.revoke``: the named token stops counting; its sessions here end at once."""
        entry = await self._change(partial(self.store.revoke, str(params["name"])))
        self._log.info("revoked token %s (%s)", entry.name, entry.id)
        assert entry.revoked is not None
        return {"name": entry.name, "id": entry.id, "revoked": rfc3339(entry.revoked)}

    # -- freshness and sessions ------------------------------------------------------------

    def grants_for(self, text: str) -> Container[str]:
        """`venom_schema.grants.IssuedTokens`: the live set, refreshed before each admission."""
        held = self.store.grants_for(text, self.fresh)
        if isinstance(held, TokenGrants):
            self._watch()
        return held

    async def fresh(self) -> None:
        """Return once a read of the store that began after this call has been applied.

        Reads are single-flight: callers that arrive while one runs share the next, so a storm
        of admissions costs one read per round, and none is answered from a read older than
        itself. Raises ``unavailable.token_store`` after `REFRESH_TIMEOUT` seconds.
        """
        loop = asyncio.get_running_loop()
        if self._next is None:
            self._next = loop.create_future()
            if not self._reading:
                self._reader = loop.create_task(self._read_rounds())
        waiting = self._next
        try:
            async with asyncio.timeout(REFRESH_TIMEOUT):  # no task, unlike wait_for
                await asyncio.shield(waiting)
        except TimeoutError:
            raise VenomError(
                "unavailable.token_store",
                f"the token store {self.store.path} could not be read within {REFRESH_TIMEOUT:g} s",
                {"path": self.store.path, "timeout": REFRESH_TIMEOUT},
            ) from None

    async def _read_rounds(self) -> None:
        self._reading = True
        try:
            while (done := self._next) is not None:
                self._next = None
                try:
                    changed = await self._blocking(self.store.refresh, abandon=True)
                except BaseException:
                    done.cancel()  # shutting down: nobody is admitted from a read not made
                    raise
                if changed or self._expiry_passed():
                    self._warn_problem()
                    self.end_sessions()
                done.set_result(None)
        finally:
            self._reading = False

    def _expiry_passed(self) -> bool:
        due = self.store.next_expiry(self._expiry_seen)
        return due is not None and due <= time.time()

    def end_sessions(self) -> int:
        """Close every connection whose issued token no longer counts; returns how many are
        still open with an issued token that does."""
        self._expiry_seen = time.time()
        close = self._close
        if close is None:
            return 0
        live = 0

        def which(connection: ConnectionInfo) -> VenomError | None:
            nonlocal live
            text = _presented(connection)
            if text is None:
                return None
            held = self.store.grants_for(text)
            reason = held.reason if isinstance(held, TokenGrants) else "unknown"
            if reason == "active":
                live += 1
                return None
            return closing_error(reason)

        closed = close(which)
        if closed:
            self._log.info("closed %d connection(s) whose token stopped counting", closed)
        return live

    def _watch(self) -> None:
        if self._close is None or (self._watcher is not None and not self._watcher.done()):
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # asked outside the daemon's loop (a test kit): nothing to watch
            return
        self._watcher = loop.create_task(self._watching())

    async def _watching(self) -> None:
        """While sessions with issued tokens are open: re-read every `WATCH_INTERVAL` seconds,
        and at the next expiry, closing the sessions of tokens that stopped counting."""
        while True:
            now = time.time()
            expiry = self.store.next_expiry(now)
            wait = WATCH_INTERVAL if expiry is None else min(WATCH_INTERVAL, expiry - now)
            await asyncio.sleep(max(wait, 0.0))
            try:
                await self.fresh()
            except VenomError:
                continue  # the store is unreadable for now; admissions fail closed meanwhile
            if self.end_sessions() == 0:
                return
