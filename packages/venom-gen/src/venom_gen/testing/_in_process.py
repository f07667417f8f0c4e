"""`InProcess`: a product's daemon verbs called through the registry, in this process."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import anyio

from venom_gen.daemon import App
from venom_gen.product import Product, resolve
from venom_proto import Server, VenomError, VerbHandler
from venom_proto.owner_token import OwnerToken

from ._dirs import PrivateDirs
from ._fake_call import FakeCall
from ._memory import MemoryClient

__all__ = ("InProcess",)


class InProcess:
    """The product's `App` and its registry-wrapped verbs, with no process and no socket.

    `call` and `stream` run a verb as a request would: the grant is checked (the owner's by
    default, or the public ones with ``owner=False``), params are validated with defaults
    inserted, and the result and every item are validated. `client` opens an in-memory
    connection to the whole server (`MemoryClient`). The `App` reads the process environment
    (configuration, data directories): the pytest fixture points it at private directories.
    """

    def __init__(self, product: Product | str, *, socket_path: str | None = None) -> None:
        self.product: Product = resolve(product)
        self._dirs: PrivateDirs | None = None
        if socket_path is None:
            self._dirs = PrivateDirs("vi")
            socket_path = os.path.join(self._dirs.runtime, f"{self.product.tool}.sock")
        self.app = App(self.product, socket_path)
        self.app.token = self.token = OwnerToken.create()
        self.verbs: dict[str, VerbHandler] = self.app.verbs()
        self.server: Server = self.app.server(self.verbs)

    def close(self) -> None:
        """Remove the private directory made for the socket path, if any."""
        if self._dirs is not None:
            self._dirs.remove()

    async def _invoke(
        self, verb: str, params: dict[str, Any] | None, owner: bool, max_frame: int | None
    ) -> tuple[FakeCall, Any]:
        found = self.verbs.get(verb)
        if found is None:
            raise VenomError("not_found.verb", f"no daemon verb {verb!r}", {"verb": verb})
        hello = {"auth": {"token": self.token.value}} if owner else {}
        call = FakeCall(verb, streams=found.streams, hello=hello)
        if max_frame is not None:
            call.connection.max_frame = max_frame
        value = found.handler(call, {} if params is None else params)
        if hasattr(value, "__await__"):
            value = await value
        return call, value

    async def call(
        self,
        verb: str,
        params: dict[str, Any] | None = None,
        *,
        owner: bool = True,
        max_frame: int | None = None,
    ) -> Any:
        """The checked result of ``verb``; a refusal or the handler's error raises `VenomError`.

        A streaming verb's items are dropped: use `stream` to see them.
        """
        return (await self._invoke(verb, params, owner, max_frame))[1]

    async def stream(
        self,
        verb: str,
        params: dict[str, Any] | None = None,
        *,
        owner: bool = True,
        max_frame: int | None = None,
    ) -> tuple[list[Any], Any]:
        """The checked items and result of a streaming ``verb`` that ends by itself."""
        call, value = await self._invoke(verb, params, owner, max_frame)
        return call.items, value

    def run(self, verb: str, params: dict[str, Any] | None = None, **options: Any) -> Any:
        """`call` from synchronous code, on a fresh event loop."""

        async def main() -> Any:
            return await self.call(verb, params, **options)

        return anyio.run(main, backend="asyncio")

    def client(self, *, owner: bool = True, **options: Any) -> MemoryClient:
        """A `MemoryClient` to enter (``async with``) on the running loop."""
        auth = {"token": self.token.value} if owner else None
        return MemoryClient(self.server, auth=auth, **options)

    @contextmanager
    def closing(self) -> Iterator[InProcess]:
        """``with InProcess(...).closing() as harness``: `close` at the end."""
        try:
            yield self
        finally:
            self.close()
