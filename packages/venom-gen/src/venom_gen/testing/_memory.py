"""`MemoryClient`: a client and the daemon's server joined in memory, through the real protocol.

The server side is `venom_proto.Server.in_process_protocol()` (the same connection code a
socket gets: hello, ids, limits, cancellation), the client side the sans-I/O `ClientCore`.
Nothing touches the file system or the network; it runs on the running asyncio loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import orjson

from venom_proto import Server, VenomError
from venom_proto.sansio import ClientCore, Reply, hello_params

__all__ = ("MemoryClient",)


class _Transport(asyncio.Transport):
    """The server's transport: what it writes goes straight to the client core."""

    def __init__(self, client: MemoryClient) -> None:
        super().__init__()
        self._client = client
        self._closing = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not self._closing:
            self._client._received(bytes(data))

    def get_write_buffer_size(self) -> int:
        return 0

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return default

    def is_closing(self) -> bool:
        return self._closing

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def close(self) -> None:
        self.abort()

    def abort(self) -> None:
        if not self._closing:
            self._closing = True
            self._client._server_closed()


class MemoryClient:
    """``async with MemoryClient(server) as client``: `call`, `stream` and `cancel` as with
    `venom_proto.AsyncClient`, over an in-memory connection to ``server``.

    ``auth`` goes into hello (``{"token": ...}`` for the owner's grants).
    """

    def __init__(
        self,
        server: Server,
        *,
        auth: dict[str, Any] | None = None,
        caps: tuple[str, ...] = ("cancel",),
        max_frame: int | None = None,
    ) -> None:
        self._server = server
        self._hello = hello_params(
            client_name="venom-gen-testing",
            client_version="0",
            caps=caps,
            auth=auth,
            max_frame=max_frame,
        )
        self._core = ClientCore(loads=orjson.loads, dumps=orjson.dumps, max_frame=max_frame)
        self._protocol: asyncio.Protocol | None = None
        self._changed = asyncio.Event()
        self._failure: VenomError | None = None
        #: The daemon's hello result, set on entering.
        self.hello_result: dict[str, Any] = {}

    # -- the transport's side ----------------------------------------------------------------

    def _wake(self) -> None:
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    def _received(self, data: bytes) -> None:
        try:
            self._core.receive_data(data)
        except VenomError as exc:
            self._failure = exc
        self._wake()

    def _server_closed(self) -> None:
        if self._failure is None:
            self._failure = VenomError(
                "unavailable.disconnected", "the daemon closed the connection"
            )
        self._wake()
        protocol, self._protocol = self._protocol, None
        if protocol is not None:
            asyncio.get_running_loop().call_soon(protocol.connection_lost, None)

    # -- the client's side -------------------------------------------------------------------

    async def __aenter__(self) -> MemoryClient:
        protocol = self._protocol = self._server.in_process_protocol()
        protocol.connection_made(_Transport(self))
        self._send(self._core.start(self._hello))
        while not self._core.hello_done:
            await self._wait()
        self.hello_result = self._core.hello()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connection as a client that hangs up does; idempotent."""
        protocol, self._protocol = self._protocol, None
        if protocol is not None:
            protocol.connection_lost(None)
        if self._failure is None:
            self._failure = VenomError("unavailable.disconnected", "the client is closed")
        self._wake()
        await asyncio.sleep(0)  # let the server's cancelled calls unwind

    def _send(self, data: bytes) -> None:
        if self._protocol is None:
            raise self._failure or VenomError("unavailable.disconnected", "not connected")
        self._protocol.data_received(data)

    async def _wait(self) -> None:
        changed = self._changed
        if self._failure is not None:
            raise self._failure
        await changed.wait()

    async def _next(self, id_: int | str) -> Reply:
        while (reply := self._core.next_reply(id_)) is None:
            await self._wait()
        return reply

    def send(self, verb: str, params: dict[str, Any] | None = None) -> int:
        """Send one request without waiting; its id (for `reply`, `cancel`)."""
        id_, data = self._core.request(verb, params)
        self._send(data)
        return id_

    async def reply(self, id_: int | str) -> Reply:
        """The next reply (item, ok or error) to request ``id_``."""
        return await self._next(id_)

    async def call(self, verb: str, params: dict[str, Any] | None = None) -> Any:
        """One request and its ok value; the daemon's error is raised as `VenomError`."""
        reply = await self._next(self.send(verb, params))
        if reply.kind == "error":
            raise reply.value
        return reply.value

    async def stream(self, verb: str, params: dict[str, Any] | None = None) -> AsyncIterator[Any]:
        """The items of a streaming request; its ok value ends the iteration (an error is
        raised). For the final value use `reply` with `send`."""
        id_ = self.send(verb, params)
        try:
            while True:
                reply = await self._next(id_)
                if reply.kind == "item":
                    yield reply.value
                elif reply.kind == "error":
                    raise reply.value
                else:
                    return
        finally:
            self._core.forget(id_)

    def cancel(self, id_: int | str, *, wait: float | None = None) -> None:
        """Send ``cancel`` for request ``id_`` (RFC-0002 §4.5); ``wait`` is accepted for the
        CLI's client protocol: nothing is awaited here."""
        _, data = self._core.request("cancel", {"id": id_})
        self._send(data)
