"""The fixed part of a generated client: constants, the ``ABSENT`` sentinel, the ``Stream``
wrappers and the connection members of both client classes.

The generated module depends on venom-proto only: socket resolution (RFC-0002 §2.3) and the
owner token read (rfcs/0005 §3) are venom-proto's local conventions (`CONVENTIONS_IMPORT`).
"""

from __future__ import annotations

from venom_gen.build.client_gen._text import LINE_LIMIT

__all__ = (
    "ASYNC_CLASS_HEAD",
    "CONVENTIONS_IMPORT",
    "RUNTIME",
    "SYNC_CLASS_HEAD",
    "typing_import",
)

#: The local conventions a generated client runs on, all public in venom-proto.
CONVENTIONS_IMPORT = "from venom_proto.conventions import client_auth, resolve_socket_path"

_ALWAYS_TYPING = (
    "TYPE_CHECKING",
    "Any",
    "Final",
    "Generic",
    "Self",
    "TypedDict",
    "TypeVar",
    "cast",
)


def _isort_key(name: str) -> tuple[int, str]:
    # ruff's isort order within one import: CONSTANTS, then Classes, then functions.
    group = 0 if name.isupper() else 1 if name[:1].isupper() else 2
    return group, name.lower()


def typing_import(extra: set[str]) -> list[str]:
    """The ``from typing import ...`` statement, exploded the way ruff formats a long one."""
    names = sorted({*_ALWAYS_TYPING, *extra}, key=_isort_key)
    line = f"from typing import {', '.join(names)}"
    if len(line) <= LINE_LIMIT:
        return [line]
    return ["from typing import (", *(f"    {name}," for name in names), ")"]


RUNTIME = '''
#: The daemon this module talks to.
TOOL: Final = __TOOL__
#: Digest of the verb schema this module was generated from; ``hello_result["schema"]`` is the
#: daemon's.
SCHEMA_DIGEST: Final = __DIGEST__
#: The client name sent in hello, for the daemon's logs.
CLIENT_NAME: Final = __CLIENT_NAME__


class Absent(enum.Enum):
    """The type of `ABSENT`."""

    ABSENT = "ABSENT"


#: The default of every optional argument: the param is left out of the request, so the daemon
#: applies its own default. Passing ``None`` to a nullable param sends JSON null instead.
ABSENT: Final = Absent.ABSENT

ItemT = TypeVar("ItemT")
ResultT = TypeVar("ResultT")


def _present(params: dict[str, object]) -> dict[str, Any]:
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
'''

_CONNECT_DOC = """
        Args:
            socket: The socket path. By default (RFC-0002 §2.3) the value of
                ``$__ENV__``, else
                ``__TOOL_NAME__.sock`` in the user's runtime directory.
            auth: ``hello.auth``; by default ``$__TOKEN_ENV__`` when set, else the owner token
                beside a local socket, when readable (rfcs/0006 §4).
            client_name: The client name sent in hello.
            client_version: The client version sent in hello."""

SYNC_CLASS_HEAD = '''
class __CLASS__:
    """A blocking client for __TOOL_NAME__.

    Use it as ``with __CLASS__.connect() as client: ...``.
    Every method raises `VenomError` on failure: ``unavailable.not_running`` when no daemon
    listens, ``timeout`` when the daemon does not answer in time, or the daemon's error.
    """

    def __init__(self, client: SyncClient) -> None:
        #: The venom-proto client underneath, for untyped calls.
        self.raw = client

    @classmethod
    def connect(
        cls,
        socket: str | None = None,
        *,
        auth: dict[str, Any] | None = None,
        timeout: float | None = None,
        client_name: str = CLIENT_NAME,
        client_version: str = SCHEMA_DIGEST,
    ) -> Self:
        """Connect to the daemon and complete hello.
__CONNECT_DOC__
            timeout: Seconds to wait for each read or write; by default no limit.
        """
        path = resolve_socket_path(TOOL, socket)
        client = SyncClient(
            path,
            client_name=client_name,
            client_version=client_version,
            auth=client_auth(TOOL, path) if auth is None else auth,
            timeout=timeout,
        )
        return cls(client)

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
'''

ASYNC_CLASS_HEAD = '''
class __CLASS__:
    """An anyio client for __TOOL_NAME__.

    Use it as ``async with __CLASS__.connect() as client: ...``.
    Every method raises `VenomError` on failure: ``unavailable.not_running`` when no daemon
    listens, or the daemon's error. Bound waits with ``anyio.fail_after``.
    """

    def __init__(self, client: AsyncClient) -> None:
        #: The venom-proto client underneath, for untyped calls; entering this object enters it.
        self.raw = client

    @classmethod
    def connect(
        cls,
        socket: str | None = None,
        *,
        auth: dict[str, Any] | None = None,
        client_name: str = CLIENT_NAME,
        client_version: str = SCHEMA_DIGEST,
    ) -> Self:
        """A client that connects and completes hello when entered with ``async with``.
__CONNECT_DOC__
        """
        from venom_proto.client import AsyncClient  # anyio is imported by async users only

        path = resolve_socket_path(TOOL, socket)
        client = AsyncClient(
            path,
            client_name=client_name,
            client_version=client_version,
            auth=client_auth(TOOL, path) if auth is None else auth,
        )
        return cls(client)

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
'''.replace("__CONNECT_DOC__", _CONNECT_DOC)

SYNC_CLASS_HEAD = SYNC_CLASS_HEAD.replace("__CONNECT_DOC__", _CONNECT_DOC)
