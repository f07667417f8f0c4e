"""The async calls of one connection that are still running (RFC-0002 4.3, 4.4).

Each runs as an asyncio task; exactly one final reply leaves for it, whichever comes first: its
own result or error, or the ``cancelled`` error of a cancel, a shutdown or a lost peer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, Protocol

from venom_proto._core.connection import ServerConnectionState
from venom_proto._core.errors import VenomError
from venom_proto._core.hello import HelloOutcome
from venom_proto._core.messages import encode_error, encode_item

from .api import Call, ConnectionInfo
from .reply_lines import error_line, internal_error, ok_line

__all__ = ("DispatchHost", "RunningCalls")


class DispatchHost(Protocol):
    """The connection side of a `Dispatcher`."""

    def send(self, line: bytes) -> None:
        """Queue one NDJSON message (with its ``\\n``) for the peer."""

    def close(self) -> None:
        """Flush queued output, then close the connection."""

    async def wait_writable(self) -> None:
        """Return once the peer has read enough; yields to other tasks at least once."""

    def inflight_changed(self, count: int) -> None:
        """The number of running async calls changed (for input backpressure)."""

    def hello_done(self, outcome: HelloOutcome) -> None:
        """Hello (explicit or implicit) settled the connection's limits."""


class RunningCalls:
    """Running async calls by request id; also the `CallHost` their ``emit`` goes through."""

    __slots__ = ("_calls", "_host", "_info", "_state")

    def __init__(
        self, host: DispatchHost, state: ServerConnectionState, info: ConnectionInfo
    ) -> None:
        self._host = host
        self._state = state
        self._info = info
        self._calls: dict[int | str, tuple[Call, asyncio.Task[None]]] = {}

    def __len__(self) -> int:
        return len(self._calls)

    def __contains__(self, rid: object) -> bool:
        return rid in self._calls

    def get(self, rid: object) -> Call | None:
        """The running call with request id ``rid``, if any."""
        entry = self._calls.get(rid)  # type: ignore[call-overload]
        return None if entry is None else entry[0]

    def start(self, call: Call, awaitable: Awaitable[Any]) -> None:
        """Run ``awaitable`` (the handler's) as a task; its reply is sent when it ends."""
        task = asyncio.get_running_loop().create_task(self._run(call, awaitable))
        self._calls[call.id] = (call, task)
        self._host.inflight_changed(len(self._calls))

    def end(self, rid: int | str, err: VenomError | None) -> None:
        """Finish a running call now: send ``err`` (unless None), cancel its task."""
        call, task = self._calls.pop(rid)
        self._state.finish(rid)
        call.cancelled = True
        if err is not None:
            self._host.send(encode_error(rid, err))
        task.cancel()
        self._host.inflight_changed(len(self._calls))

    def cancel_all(self, message: str | None) -> None:
        """End every running call: with a ``cancelled`` error, or silently when ``None``."""
        err = None if message is None else VenomError("cancelled", message)
        for rid in list(self._calls):
            self.end(rid, err)

    async def _run(self, call: Call, awaitable: Awaitable[Any]) -> None:
        send = self._host.send
        try:
            result = await awaitable
        except asyncio.CancelledError:
            # Whoever cancelled the task has answered already, or the peer is gone.
            self._finish(call)
        except VenomError as exc:
            if self._finish(call):
                send(error_line(call.id, exc))
        except Exception:
            if self._finish(call):
                send(error_line(call.id, internal_error(call)))
        else:
            if self._finish(call):
                send(ok_line(call, result, self._info.max_frame))
        finally:
            # After the reply, so a half-closed connection closes only once it is sent.
            self._host.inflight_changed(len(self._calls))

    def _finish(self, call: Call) -> bool:
        """Take a completed call out of the table; False if it was already ended."""
        entry = self._calls.get(call.id)
        if entry is None or entry[0] is not call:
            return False
        del self._calls[call.id]
        self._state.finish(call.id)
        return True

    async def emit_item(self, call: Call, item: Any) -> None:
        """`Call.emit`: queue one item, then wait while the peer is slow."""
        if call.cancelled:
            raise asyncio.CancelledError
        line = encode_item(call.id, item)
        max_frame = self._info.max_frame
        if len(line) > max_frame:
            raise VenomError(
                "internal.too_large", "item larger than max_frame", {"max_frame": max_frame}
            )
        self._host.send(line)
        await self._host.wait_writable()
