"""Forwarding tool calls to the daemon over one shared, pipelined RFC-0002 connection.

Design: all calls share one connection (``_link.Links``), opened on the first call, with
concurrent calls pipelined on it. Opening a connection per call cost a connect plus a hello
round trip per call, about a third of a call's latency (bench/peers, docs/peer-benchmarks.md);
a shared one pays that once. What per-call connections gave for free is kept explicitly:

- Isolation: cancelling one MCP call sends an RFC-0002 ``cancel`` for that request id only
  (``AsyncStreamCall`` does it when its iteration is cancelled); the connection and the other
  calls go on. Its I/O tasks belong to ``Links``, never to a caller's cancel scope.
- Recovery: a dead connection is retired, so the next call reconnects (re-reading the owner
  token). When the daemon went away between calls the adapter has already seen the socket
  close, the request cannot even be queued, and it is sent again once on a fresh connection:
  the call succeeds if a daemon is up again, else fails ``unavailable.not_running``. A request
  already sent when the connection dies fails ``unavailable.disconnected`` and is not resent
  (the daemon may have run it). A restarted daemon writes a new token file, which also makes
  the next call reconnect before sending anything.
- Shutdown: on stdin EOF the server cancels its handlers (each sends its ``cancel``), then the
  ``async with`` around the upstream closes the connection.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import aclosing
from types import TracebackType
from typing import TYPE_CHECKING, Any, cast

import anyio

from venom_mcp._deps import VenomError, compile_verb
from venom_mcp._limits import StreamBuffer
from venom_mcp._link import Link, Links, breaks_link
from venom_schema.model import JsonObject, Verb

if TYPE_CHECKING:
    from venom_proto.client import AsyncClient, AsyncStreamCall

__all__ = ("DaemonUpstream",)

log = logging.getLogger("venom_mcp")

#: Bound on waiting for the daemon to answer our cancel.
_CANCEL_WAIT = 2.0


class DaemonUpstream:
    """Runs verbs on the daemon at ``socket_path`` and returns RFC-0004 §5 success wrappers.

    Use as ``async with upstream:`` around all calls (``build_server`` does, in the server's
    lifespan). The adapter authenticates as the owner (rfcs/0005-local-grants.md §3):
    ``hello.auth`` holds ``token`` if given, else the token file beside the socket when it is
    readable, read again on every (re)connect. An ``ssh://`` socket (rfcs/0006) reaches the
    daemon through ``ssh ... <tool> bridge``, with ``<TOOL>_TOKEN`` when no token is given.
    """

    def __init__(
        self,
        socket_path: str,
        *,
        client_name: str,
        client_version: str,
        token: str | None = None,
        not_running_hint: str | None = None,
        tool: str | None = None,
    ) -> None:
        self.socket_path = socket_path
        #: Added to ``unavailable.not_running`` messages: the likely cause, and its fix.
        self.not_running_hint = not_running_hint
        self._links = Links(
            socket_path,
            client_name=client_name,
            client_version=client_version,
            token=token,
            tool=tool,
        )
        self._item_checks: dict[str, Callable[[Any], Any]] = {}

    def _item_check(self, verb: Verb) -> Callable[[Any], Any]:
        """The verb's item validator: a bad item ends the call at once (``internal.result``)
        instead of after the stream; for a verb that does not stream, it refuses any item."""
        name = str(verb["name"])
        check = self._item_checks.get(name)
        if check is None:
            check = self._item_checks[name] = compile_verb(verb).item
        return check

    async def __aenter__(self) -> DaemonUpstream:
        await self._links.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        return await self._links.__aexit__(exc_type, exc, tb)

    async def invoke(
        self,
        verb: Verb,
        params: JsonObject,
        *,
        on_item: Callable[[], Awaitable[None]] | None = None,
    ) -> JsonObject:
        """Run ``verb`` with validated ``params``; raises ``VenomError`` on any failure.

        ``on_item`` is awaited after each stream item is checked and buffered. Cancelling the
        calling task cancels the request on the daemon (RFC-0002 ``cancel``).
        """
        try:
            link, call = await self._send(verb, params)
        except VenomError as exc:
            if exc.code != "unavailable.not_running" or self.not_running_hint is None:
                raise
            raise VenomError(
                exc.code, f"{exc.message}: {self.not_running_hint}", exc.data
            ) from None
        try:
            client = link.client
            try:
                buffer = StreamBuffer() if verb["streams"] else None
                return await _collect(call, buffer, lambda: self._item_check(verb), on_item)
            except VenomError as exc:
                if exc.code in ("unsupported.stream_limit", "internal.result"):
                    await _cancel_quietly(client, call.id)
                elif breaks_link(exc):
                    self._links.retire(link)
                raise
        finally:
            self._links.release(link)

    async def _send(self, verb: Verb, params: JsonObject) -> tuple[Link, AsyncStreamCall]:
        """Send the request on the shared link; once more on a fresh one if it could not go."""
        for attempt in (1, 2):
            link = await self._links.acquire()
            try:
                client = link.client
                if verb["streams"] and "cancel" not in client.hello_result.get("caps", ()):
                    raise VenomError(
                        "unsupported.capability",
                        "the daemon did not agree to 'cancel', which MCP streaming needs",
                        {"capability": "cancel"},
                    )
                # Every verb goes through stream() so that its request id is known for cancel.
                return link, await client.stream(verb["name"], params)
            except VenomError as exc:
                self._links.release(link)
                if not breaks_link(exc):
                    raise
                # The request was never queued: the connection had already failed.
                self._links.retire(link)
                if attempt == 2:
                    raise
            except BaseException:
                self._links.release(link)
                raise
        raise AssertionError("unreachable")  # pragma: no cover


async def _collect(
    call: AsyncStreamCall,
    buffer: StreamBuffer | None,
    item_check: Callable[[], Callable[[Any], Any]],
    on_item: Callable[[], Awaitable[None]] | None = None,
) -> JsonObject:
    """The success wrapper: checked items, buffered under the §5 limits, plus the final ok.

    ``buffer`` is None for a verb that does not stream, whose item check refuses any item;
    ``item_check`` gives the check, compiled only when a first item arrives.
    """
    check: Callable[[Any], Any] | None = None
    async with aclosing(cast(AsyncGenerator[Any, None], call.__aiter__())) as items:
        async for item in items:
            if check is None:
                check = item_check()
            check(item)
            if buffer is not None:
                buffer.add(item)
            if on_item is not None:
                await on_item()
    if buffer is None:
        return {"result": call.result}
    return {"items": buffer.items, "result": call.result}


async def _cancel_quietly(client: AsyncClient, request_id: int | str) -> None:
    """Cancel ``request_id`` upstream and wait for the daemon's answer, so it surely went out.

    Shielded so it runs while our own task is being cancelled; bounded so a stuck daemon
    cannot hold the adapter.
    """
    with anyio.CancelScope(shield=True), anyio.move_on_after(_CANCEL_WAIT):
        try:
            await client.cancel(request_id)
        except VenomError as exc:
            log.debug("cancel of request %s: %s", request_id, exc)
