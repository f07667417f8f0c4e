"""Running the calls a connection's core admits: sync handlers inline, async ones as tasks.

Every reply goes back through the core (``send_ok``/``send_error``/``send_item``), which drops
it when the call is no longer in flight, so whichever comes first, the handler's own result or
a ``cancelled`` error the core wrote, is the one final reply. A handler's exception other than
`VenomError` is logged with its traceback and answered ``internal`` (D-W11).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable
from typing import Any, Protocol

from venom_proto._core.errors import VenomError
from venom_proto._core.server_connection import ServerConnection
from venom_proto._core.server_events import PENDING, CallStarted
from venom_proto._core.server_settings import VerbSpec

from .api import Call, ConnectionInfo, VerbHandler
from .call_reuse import ALONE, refcount
from .config import ServerConfig

__all__ = ("CallRunner", "OutputHost")

log = logging.getLogger("venom_proto.server")

# Results of these types are never awaitable; skipping inspect.isawaitable saves ~1 µs per call.
_PLAIN = frozenset({dict, list, str, int, float, bool, type(None)})
_new = object.__new__
# Calls are reused by filling their slots directly (~90 ns less than Call.__init__); fail on
# import, not on the first request, if Call ever gains a slot this module does not know.
if set(Call.__slots__) != {"_host", "cancelled", "connection", "id", "streams", "verb"}:
    raise ImportError("venom_proto._server.calls: Call's slots changed; update CallRunner.start")


class OutputHost(Protocol):
    """The transport side: told when replies were written outside its own input handling."""

    def output_ready(self) -> None:
        """Replies are waiting in the core: write them soon."""

    async def wait_writable(self) -> None:
        """Return once the peer has read enough; yields to other tasks at least once."""


def _internal(verb: str) -> VenomError:
    return VenomError(
        "internal", f"internal error in verb {verb!r}; details are in the daemon's log"
    )


def _stop(call: Call, task: asyncio.Task[None], awaitable: Awaitable[Any]) -> None:
    call.cancelled = True
    task.cancel()
    if inspect.iscoroutine(awaitable) and inspect.getcoroutinestate(awaitable) == "CORO_CREATED":
        awaitable.close()  # its task never ran: else Python warns it was never awaited


class CallRunner:
    """The calls of one connection: the core's `InlineRunner` for sync verbs, the handler of
    its `CallStarted` events, and the `CallHost` that ``emit`` goes through."""

    __slots__ = ("_core", "_host", "_info", "_running", "_spare", "verbs")

    def __init__(self, config: ServerConfig, info: ConnectionInfo, host: OutputHost) -> None:
        self._info = info
        self._host = host
        self._running: dict[int | str, tuple[Call, asyncio.Task[None], Awaitable[Any]]] = {}
        self._spare: Call | None = None
        #: `InlineRunner.verbs`: the sync ones, which run on the spot.
        self.verbs: dict[str, VerbHandler] = {
            n: v for n, v in config.verbs.items() if not v.is_async
        }

    def attach(self, core: ServerConnection) -> None:
        """Send replies through ``core`` (set once, right after both are made)."""
        self._core = core

    def __len__(self) -> int:
        return len(self._running)

    def get(self, rid: object) -> Call | None:
        """The running async call with request id ``rid``, if any."""
        entry = self._running.get(rid)  # type: ignore[call-overload]
        return None if entry is None else entry[0]

    def run(self, rid: int | str, name: str, params: dict[str, Any], spec: VerbSpec) -> Any:
        """`InlineRunner.run`: call the handler; an async one (or awaitable result) goes on in
        a task, and `PENDING` says so."""
        verb: VerbHandler = spec  # type: ignore[assignment]  # the core returns ours
        call = self._spare
        if call is None:
            call = _new(Call)
            call.connection, call._host = self._info, self
        else:
            self._spare = None
        # One statement per slot: a four-name assignment would build and unpack a tuple.
        call.id = rid
        call.verb = name
        call.streams = verb.streams
        call.cancelled = False
        handler = verb.handler  # a slot: calling it as a method would not be specialised
        result = handler(call, params)
        # An object result is by far the most common: one identity test spares it the set.
        if (
            type(result) is not dict
            and type(result) not in _PLAIN
            and (verb.is_async or inspect.isawaitable(result))
        ):
            task = asyncio.get_running_loop().create_task(self._run(call, result))
            self._running[rid] = (call, task, result)
            return PENDING
        if refcount(call) == ALONE:  # the handler kept no reference: the next call may reuse it
            self._spare = call
        return result

    def failed(self, rid: int | str, name: str, exc: Exception) -> VenomError:
        """`InlineRunner.failed`: log ``exc`` and return the ``internal`` error the peer sees."""
        log.error("verb %r (request %r) raised", name, rid, exc_info=exc)
        return _internal(name)

    def start(self, event: CallStarted) -> None:
        """Handle a `CallStarted` event: the same as the core's fast path does inline."""
        rid, core = event.id, self._core
        try:
            result = self.run(rid, event.verb, event.params, event.spec)
            if result is PENDING:
                return
            core.send_ok(rid, result)
        except VenomError as exc:
            core.send_error(rid, exc)
        except Exception as exc:  # from the handler, or its result would not encode
            core.send_error(rid, self.failed(rid, event.verb, exc))

    def cancelled(self, rid: int | str, reason: str) -> None:
        """The core ended call ``rid`` (``reason``: ``"client"``, a cancel request): stop its
        task."""
        entry = self._running.pop(rid, None)
        if entry is not None:
            _stop(*entry)

    def cancel_all(self) -> None:
        """Stop every running call; the core has answered them already, or the peer is gone."""
        running, self._running = self._running, {}
        for entry in running.values():
            _stop(*entry)

    async def _run(self, call: Call, awaitable: Awaitable[Any]) -> None:
        core = self._core
        try:
            result = await awaitable
        except asyncio.CancelledError:
            self._finish(call)  # whoever cancelled it has answered already, or the peer is gone
            return
        except VenomError as exc:
            if self._finish(call):
                core.send_error(call.id, exc)
        except Exception as exc:
            if self._finish(call):
                core.send_error(call.id, self.failed(call.id, call.verb, exc))
        else:
            if self._finish(call):
                try:
                    core.send_ok(call.id, result)
                except TypeError as exc:  # the result would not encode
                    core.send_error(call.id, self.failed(call.id, call.verb, exc))
        self._host.output_ready()

    def _finish(self, call: Call) -> bool:
        """Take a completed call out of the table; False if it was already ended."""
        entry = self._running.get(call.id)
        if entry is None or entry[0] is not call:
            return False
        del self._running[call.id]
        return True

    async def emit_item(self, call: Call, item: Any) -> None:
        """`Call.emit`: write one item, then wait while the peer is slow to read."""
        if call.cancelled:
            raise asyncio.CancelledError
        self._core.send_item(call.id, item)
        self._host.output_ready()
        await self._host.wait_writable()
