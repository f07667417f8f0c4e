"""A blocking client for short-lived programs (the generated CLI): no event loop, no orjson.

Imports only ``_socket``, ``os``, the ``_json``-based codec and the sans-I/O core; all
protocol bookkeeping is :class:`~venom_proto._client_core.ClientCore`, shared with the async
client.
"""

from __future__ import annotations

# The C socket type, not socket.py: that module loads enum, selectors and array (~2 ms of every
# CLI call) for conveniences (makefile, with-blocks, enum constants) this client does not use.
import _socket

from ._client_core import ClientCore, hello_params, raise_for
from ._client_paths import connect_error, disconnected, prepare_socket_path
from ._core._stdjson import std_dumps, std_loads
from ._core.errors import VenomError
from ._core.replies import Reply

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would cost the CLI ~2 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from types import TracebackType
    from typing import Any

__all__ = ("StreamCall", "SyncClient")

_RECV = 65536


class SyncClient:
    """One NDJSON connection to a daemon; hello is done when the constructor returns.

    Every failure raises :class:`VenomError`: ``unavailable.not_running`` (with
    ``data.socket``) when no daemon listens, ``timeout`` when ``timeout`` seconds pass without
    the daemon answering, ``unavailable.disconnected`` when it goes away, or the daemon's error.
    """

    def __init__(
        self,
        socket_path: str,
        *,
        client_name: str,
        client_version: str,
        caps: Iterable[str] = ("cancel",),
        auth: dict[str, Any] | None = None,
        max_frame: int | None = None,
        timeout: float | None = None,
    ) -> None:
        path = prepare_socket_path(socket_path)
        self.socket_path = path
        self._core = ClientCore(loads=std_loads, dumps=std_dumps, max_frame=max_frame)
        self._sock: _socket.socket | None = None
        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        try:
            sock.settimeout(timeout)
            sock.connect(path)
        except TimeoutError:
            sock.close()
            raise VenomError(
                "timeout", f"connecting to {path} timed out", {"socket": path}
            ) from None
        except OSError as exc:
            sock.close()
            raise connect_error(path, exc) from None
        except BaseException:  # a bad timeout value, Ctrl-C: no descriptor may leak
            sock.close()
            raise
        self._sock = sock
        try:
            params = hello_params(
                client_name=client_name,
                client_version=client_version,
                caps=caps,
                auth=auth,
                max_frame=max_frame,
            )
            self._send(self._core.start(params))
            while not self._core.hello_done:
                self._receive()
            #: The daemon's hello result (RFC-0002 6.2).
            self.hello_result: dict[str, Any] = self._core.hello()
        except BaseException:
            self.close()
            raise

    # -- transport -------------------------------------------------------------------------

    def _connected(self) -> _socket.socket:
        if self._sock is None:
            raise VenomError("unavailable.disconnected", "the client is closed")
        return self._sock

    def _send(self, data: bytes) -> None:
        try:
            self._connected().sendall(data)
        except TimeoutError:
            raise VenomError("timeout", "the daemon did not accept the request in time") from None
        except OSError as exc:
            self.close()
            raise disconnected(exc) from None

    def _receive(self) -> None:
        try:
            data = self._connected().recv(_RECV)
        except TimeoutError:
            raise VenomError("timeout", "the daemon did not answer in time") from None
        except OSError as exc:
            self.close()
            raise disconnected(exc) from None
        if not data:
            self.close()
            raise disconnected()
        try:
            self._core.receive_data(data)
        except VenomError:
            self.close()
            raise

    def _next(self, id_: int | str) -> Reply:
        while (reply := self._core.next_reply(id_)) is None:
            self._receive()
        return reply

    # -- API -------------------------------------------------------------------------------

    def call(self, verb: str, params: dict[str, Any] | None = None) -> Any:
        """Send one request and return its ``ok`` value (items, if any, are dropped)."""
        id_, data = self._core.request(verb, params)
        self._send(data)
        while (reply := self._next(id_)).kind == "item":
            pass
        return raise_for(reply)

    def stream(self, verb: str, params: dict[str, Any] | None = None) -> StreamCall:
        """Send a request to a streaming verb; iterate the result for its items."""
        id_, data = self._core.request(verb, params)
        self._send(data)
        return StreamCall(self, id_)

    def cancel(self, id: int | str) -> None:
        """Ask the daemon to end request ``id`` (it then fails with ``cancelled``)."""
        self.call("cancel", {"id": id})

    def ping(self) -> None:
        """Liveness check."""
        self.call("ping")

    def close(self) -> None:
        """Close the connection; idempotent."""
        sock, self._sock = self._sock, None
        if sock is not None:
            sock.close()

    def __enter__(self) -> SyncClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class StreamCall:
    """A streamed request in flight: iterate for items; :attr:`result` holds the final ``ok``.

    Iteration raises :class:`VenomError` if the request fails (``cancelled`` after
    :meth:`SyncClient.cancel`).
    """

    def __init__(self, client: SyncClient, id_: int | str) -> None:
        self.client = client
        #: The request id, for :meth:`SyncClient.cancel`.
        self.id = id_
        self._done = False
        self._result: Any = None

    def __iter__(self) -> Iterator[Any]:
        try:
            while not self._done:
                reply = self.client._next(self.id)
                if reply.kind == "item":
                    yield reply.value
                    continue
                self._done = True
                self._result = raise_for(reply)
        finally:
            if not self._done:  # left early (break): drop later items instead of queueing them
                self.client._core.forget(self.id)

    @property
    def result(self) -> Any:
        """The final ``ok`` value; reading it first drains the remaining items."""
        if not self._done:
            for _ in self:
                pass
        return self._result
