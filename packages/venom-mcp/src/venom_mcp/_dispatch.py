"""Forwarding tool calls to the daemon: one RFC-0002 connection per call.

A connection per call costs a connect and a hello per call (measured in bench/bench_mcp.py),
but it isolates calls from each other, needs no reconnect logic, and can never hold a dead
connection: when the daemon is down a call fails with ``unavailable.not_running`` and the next
call after it starts simply works.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, Mapping
from contextlib import aclosing
from typing import TYPE_CHECKING, Any, cast

import anyio

from venom_mcp._deps import VenomError
from venom_mcp._limits import StreamBuffer

if TYPE_CHECKING:
    from venom_proto.client import AsyncClient, AsyncStreamCall

__all__ = ("DaemonUpstream",)

log = logging.getLogger("venom_mcp")

#: Bound on waiting for the daemon to answer our cancel.
_CANCEL_WAIT = 2.0
#: Bound on a whole exchange once the caller gave up (connect, hello, cancel, close).
_STOP_GRACE = _CANCEL_WAIT + 1.0


class DaemonUpstream:
    """Runs verbs on the daemon at ``socket_path`` and returns RFC-0004 §5 success wrappers.

    The adapter authenticates as the owner (rfcs/0005-local-grants.md §3): ``hello.auth`` holds
    ``token`` if given, else the token file beside the socket when it is readable.
    """

    def __init__(
        self,
        socket_path: str,
        *,
        client_name: str,
        client_version: str,
        token: str | None = None,
    ) -> None:
        self.socket_path = socket_path
        self.client_name = client_name
        self.client_version = client_version
        self.token = token

    def _auth(self) -> dict[str, Any] | None:
        if self.token is not None:
            return {"token": self.token}
        # Read per connection: every daemon start-up writes a fresh owner token.
        from venom_schema.grants import client_auth

        auth: dict[str, Any] | None = client_auth(self.socket_path)
        return auth

    async def invoke(self, verb: Mapping[str, Any], params: dict[str, Any]) -> dict[str, Any]:
        """Run ``verb`` with validated ``params``; raises ``VenomError`` on any failure.

        Cancelling the calling task cancels the request on the daemon: the exchange runs in a
        shielded child task (so the connection's own I/O tasks survive our cancellation), which
        then sends an RFC-0002 ``cancel``, awaits its answer (bounded) and closes.
        """
        outcome: list[dict[str, Any] | BaseException] = []
        stop = anyio.Event()
        done = anyio.Event()
        async with anyio.create_task_group() as tg:
            tg.start_soon(self._shielded_exchange, verb, params, stop, done, outcome)
            try:
                await done.wait()
            except anyio.get_cancelled_exc_class():
                stop.set()  # the task group then waits for the exchange to wind down
                raise
        result = outcome[0] if outcome else VenomError("cancelled", "the call was abandoned")
        if isinstance(result, BaseException):
            raise result
        return result

    async def _shielded_exchange(
        self,
        verb: Mapping[str, Any],
        params: dict[str, Any],
        stop: anyio.Event,
        done: anyio.Event,
        outcome: list[dict[str, Any] | BaseException],
    ) -> None:
        # Shielded: our caller's cancellation must not tear down the connection before the
        # cancel went out. Bounded: once asked to stop, a daemon that does not answer (even
        # one stuck before hello) gets _STOP_GRACE seconds, then the exchange is abandoned.
        with anyio.CancelScope(shield=True):
            async with anyio.create_task_group() as tg:

                async def abandon_after_stop() -> None:
                    await stop.wait()
                    await anyio.sleep(_STOP_GRACE)
                    tg.cancel_scope.cancel()

                tg.start_soon(abandon_after_stop)
                try:
                    outcome.append(await self._exchange(verb, params, stop))
                except Exception as exc:  # handed to invoke, which re-raises it in the caller
                    outcome.append(exc)
                finally:
                    tg.cancel_scope.cancel()
                    done.set()

    async def _exchange(
        self, verb: Mapping[str, Any], params: dict[str, Any], stop: anyio.Event
    ) -> dict[str, Any]:
        from venom_proto.client import AsyncClient

        client = AsyncClient(
            self.socket_path,
            client_name=self.client_name,
            client_version=self.client_version,
            caps=("cancel",),
            auth=self._auth(),
        )
        streams = bool(verb.get("streams"))
        async with client:
            if streams and "cancel" not in client.hello_result.get("caps", ()):
                raise VenomError(
                    "unsupported.capability",
                    "the daemon did not agree to 'cancel', which MCP streaming needs",
                    {"capability": "cancel"},
                )
            if stop.is_set():
                raise VenomError("cancelled", "cancelled by the MCP client")
            # Every verb goes through stream() so that its request id is known for cancel.
            call = await client.stream(verb["name"], params)
            outcome: list[dict[str, Any]] = []
            failure: list[VenomError] = []  # raised after the group, not wrapped in a group
            async with anyio.create_task_group() as tg:

                async def cancel_on_stop() -> None:
                    await stop.wait()
                    await _cancel_quietly(client, call.id)
                    tg.cancel_scope.cancel()

                tg.start_soon(cancel_on_stop)
                try:
                    outcome.append(await _collect(call, StreamBuffer() if streams else None))
                except VenomError as exc:
                    failure.append(exc)
                    if exc.code == "unsupported.stream_limit":
                        await _cancel_quietly(client, call.id)
                finally:
                    tg.cancel_scope.cancel()
        if failure:
            raise failure[0]
        if not outcome:
            raise VenomError("cancelled", "cancelled by the MCP client")
        return outcome[0]


async def _collect(call: AsyncStreamCall, buffer: StreamBuffer | None) -> dict[str, Any]:
    """The success wrapper: buffered items under the §5 limits (streams) plus the final ok."""
    async with aclosing(cast(AsyncGenerator[Any, None], call.__aiter__())) as items:
        async for item in items:
            if buffer is not None:  # a non-streaming verb has no items; ignore strays
                buffer.add(item)
    if buffer is None:
        return {"result": call.result}
    return {"items": buffer.items, "result": call.result}


async def _cancel_quietly(client: AsyncClient, request_id: int | str) -> None:
    """Cancel ``request_id`` upstream and wait for the daemon's answer, so it surely went out.

    Shielded so it runs while our own task is being cancelled; bounded so a stuck daemon
    cannot hold the adapter. The client may already have sent a cancel of its own; the daemon
    then answers ours with ``not_found.request``, which is fine.
    """
    with anyio.CancelScope(shield=True), anyio.move_on_after(_CANCEL_WAIT):
        try:
            await client.cancel(request_id)
        except VenomError as exc:
            log.debug("cancel of request %s: %s", request_id, exc)
