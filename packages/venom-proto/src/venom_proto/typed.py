"""The run time of generated typed clients (``venom-gen client``): what every product's client
module shares, so that the generated module holds only its own verbs.

A generated module subclasses `TypedClient` (blocking, over `SyncClient`) and
`AsyncTypedClient` (anyio, over `AsyncClient`) with one keyword-only method per daemon verb;
each method sends its arguments through `present`, so that an optional argument left at
`ABSENT` is left out of the request and the daemon applies its declared default. A streaming
verb returns a `Stream` or an `AsyncStream`, typed by its item and its result.

Standard library and venom-proto only; anyio is imported when an async client connects.
"""

from __future__ import annotations

import enum
from collections.abc import AsyncIterator, Iterator, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, ClassVar, Final, Generic, Self, TypeVar, cast

from .conventions import DEFAULT_AUTH, DefaultAuth, client_auth, resolve_socket_path
from .sync_client import StreamCall, SyncClient

if TYPE_CHECKING:
    from .client import AsyncClient, AsyncStreamCall

__all__ = (
    "ABSENT",
    "Absent",
    "AsyncStream",
    "AsyncTypedClient",
    "Stream",
    "TypedClient",
    "present",
)


class Absent(enum.Enum):
    """The type of `ABSENT`."""

    ABSENT = "ABSENT"


#: The default of every optional argument: the param is left out of the request, so the daemon
#: applies its own default. Passing ``None`` to a nullable param sends JSON null instead.
ABSENT: Final = Absent.ABSENT

ItemT = TypeVar("ItemT")
ResultT = TypeVar("ResultT")


def present(params: Mapping[str, object]) -> dict[str, Any]:
    """``params`` without the entries left at `ABSENT`: the request a typed method sends."""
    return {key: value for key, value in params.items() if value is not ABSENT}


class Stream(Generic[ItemT, ResultT]):
    """A streaming call in flight: iterate for its items, then read `result`.

    Iteration raises `VenomError` if the call fails (``cancelled`` after `cancel`). Call
    `cancel` before leaving a stream early, or the daemon keeps sending its items.
    """

    def __init__(self, call: StreamCall) -> None:
        self._call = call

    @property
    def id(self) -> int | str:
        """The request id."""
        return self._call.id

    def __iter__(self) -> Iterator[ItemT]:
        return cast("Iterator[ItemT]", iter(self._call))

    @property
    def result(self) -> ResultT:
        """The final result; reading it first drains the remaining items."""
        return cast("ResultT", self._call.result)

    def cancel(self) -> None:
        """Ask the daemon to end this call (RFC-0002 §4.4)."""
        self._call.client.cancel(self._call.id)


class AsyncStream(Generic[ItemT, ResultT]):
    """A streaming call in flight: ``async for`` over its items, then read `result`.

    Iteration raises `VenomError` if the call fails (``cancelled`` after `cancel`). Call
    `cancel` before leaving a stream early, or the daemon keeps sending its items.
    """

    def __init__(self, call: AsyncStreamCall) -> None:
        self._call = call

    @property
    def id(self) -> int | str:
        """The request id."""
        return self._call.id

    def __aiter__(self) -> AsyncIterator[ItemT]:
        return cast("AsyncIterator[ItemT]", aiter(self._call))

    @property
    def result(self) -> ResultT:
        """The final result, once iteration has ended (else `RuntimeError`)."""
        return cast("ResultT", self._call.result)

    async def cancel(self) -> None:
        """Ask the daemon to end this call (RFC-0002 §4.4)."""
        await self._call.client.cancel(self._call.id)


class _Product:
    """The class attributes a generated client sets: which daemon, and how hello names it."""

    #: The daemon's tool name.
    tool: ClassVar[str]
    #: Digest of the verb schema the subclass was generated from; the default client version.
    schema_digest: ClassVar[str]
    #: The client name sent in hello, for the daemon's logs.
    client_name: ClassVar[str]

    @classmethod
    def _hello(
        cls,
        socket: str | None,
        auth: dict[str, Any] | DefaultAuth | None,
        client_name: str | None,
        client_version: str | None,
    ) -> tuple[str, dict[str, Any]]:
        path = resolve_socket_path(cls.tool, socket)
        options = {
            "client_name": cls.client_name if client_name is None else client_name,
            "client_version": cls.schema_digest if client_version is None else client_version,
            "auth": client_auth(cls.tool, path) if isinstance(auth, DefaultAuth) else auth,
        }
        return path, options


class TypedClient(_Product):
    """The base of a generated blocking client: connection, hello and closing.

    Use a subclass as ``with VenomEchoClient.connect() as client: ...``. Every verb method
    raises `VenomError` on failure: ``unavailable.not_running`` when no daemon listens,
    ``timeout`` when the daemon does not answer in time, or the daemon's error.
    """

    def __init__(self, client: SyncClient) -> None:
        #: The venom-proto client underneath, for untyped calls.
        self.raw = client

    @classmethod
    def connect(
        cls,
        socket: str | None = None,
        *,
        auth: dict[str, Any] | DefaultAuth | None = DEFAULT_AUTH,
        timeout: float | None = None,
        client_name: str | None = None,
        client_version: str | None = None,
    ) -> Self:
        """Connect to the daemon and complete hello.

        Args:
            socket: The socket path. By default (RFC-0002 §2.3) the value of
                ``$<TOOL>_SOCKET``, else ``<tool>.sock`` in the user's runtime directory.
            auth: ``hello.auth``; by default ``$<TOOL>_TOKEN`` when set, else the owner token
                beside a local socket, when readable (rfcs/0006 §4); None presents no token.
            timeout: Seconds to wait for each read or write; by default no limit.
            client_name: The client name sent in hello; by default ``<tool>-client``.
            client_version: The client version sent in hello; by default the schema digest.
        """
        path, options = cls._hello(socket, auth, client_name, client_version)
        return cls(SyncClient(path, timeout=timeout, **options))

    @property
    def hello_result(self) -> dict[str, Any]:
        """The daemon's hello result (RFC-0002 §6.2)."""
        return self.raw.hello_result

    def close(self) -> None:
        """Close the connection; idempotent."""
        self.raw.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _call(self, verb: str, params: Mapping[str, object]) -> Any:
        return self.raw.call(verb, present(params))

    def _stream(self, verb: str, params: Mapping[str, object]) -> Stream[Any, Any]:
        return Stream(self.raw.stream(verb, present(params)))


class AsyncTypedClient(_Product):
    """The base of a generated anyio client: connection, hello and closing.

    Use a subclass as ``async with AsyncVenomEchoClient.connect() as client: ...``. Every verb
    method raises `VenomError` on failure: ``unavailable.not_running`` when no daemon listens,
    or the daemon's error. Bound waits with ``anyio.fail_after``.
    """

    def __init__(self, client: AsyncClient) -> None:
        #: The venom-proto client underneath, for untyped calls; entering this object enters it.
        self.raw = client

    @classmethod
    def connect(
        cls,
        socket: str | None = None,
        *,
        auth: dict[str, Any] | DefaultAuth | None = DEFAULT_AUTH,
        timeout: float | None = None,
        client_name: str | None = None,
        client_version: str | None = None,
    ) -> Self:
        """A client that connects and completes hello when entered with ``async with``.

        Args:
            socket: The socket path. By default (RFC-0002 §2.3) the value of
                ``$<TOOL>_SOCKET``, else ``<tool>.sock`` in the user's runtime directory.
            auth: ``hello.auth``; by default ``$<TOOL>_TOKEN`` when set, else the owner token
                beside a local socket, when readable (rfcs/0006 §4); None presents no token.
            timeout: Seconds to wait for each reply; by default no limit.
            client_name: The client name sent in hello; by default ``<tool>-client``.
            client_version: The client version sent in hello; by default the schema digest.
        """
        from .client import AsyncClient  # anyio is imported by async users only

        path, options = cls._hello(socket, auth, client_name, client_version)
        return cls(AsyncClient(path, timeout=timeout, **options))

    @property
    def hello_result(self) -> dict[str, Any]:
        """The daemon's hello result (RFC-0002 §6.2), once entered."""
        return self.raw.hello_result

    async def aclose(self) -> None:
        """Close the connection; idempotent."""
        await self.raw.aclose()

    async def __aenter__(self) -> Self:
        await self.raw.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def _call(self, verb: str, params: Mapping[str, object]) -> Any:
        return await self.raw.call(verb, present(params))

    async def _stream(self, verb: str, params: Mapping[str, object]) -> AsyncStream[Any, Any]:
        return AsyncStream(await self.raw.stream(verb, present(params)))
