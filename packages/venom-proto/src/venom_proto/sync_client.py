"""A blocking client for short-lived programs (the generated CLI): no event loop, no orjson.

Imports only ``_socket``, ``os``, the ``_json``-based codec and the sans-I/O core; all
protocol bookkeeping is :class:`~venom_proto._client_core.ClientCore`, shared with the async
client, and so is the reading of the constructor's arguments (``_client_paths.ClientSetup``).
"""

from __future__ import annotations

# The C socket type, not socket.py: that module loads enum, selectors and array (~2 ms of every
# CLI call) for conveniences (makefile, with-blocks, enum constants) this client does not use.
import _socket
from time import monotonic, sleep

from ._client_core import raise_for
from ._client_paths import (
    CONNECT_TIMEOUT,
    DEFAULT_CLIENT_NAME,
    DEFAULT_CLIENT_VERSION,
    ClientSetup,
    connect_error,
    disconnected,
    prepare_socket_path,
    timed_out,
    unresponsive,
)
from ._core.errors import VenomError
from ._core.replies import Reply
from .conventions import DEFAULT_AUTH, DefaultAuth
from .stdjson import std_dumps, std_loads

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would cost the CLI ~2 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import os
    from collections.abc import Iterable, Iterator
    from types import TracebackType
    from typing import Any

    from ._client_binary import BinaryClientCore
    from ._core.frames import Frame
    from .ssh import SshChild

__all__ = ("CONNECT_TIMEOUT", "StreamCall", "SyncClient")

_RECV = 65536
#: First and longest pause between connect attempts while the daemon's listen backlog is full.
_RETRY_FIRST, _RETRY_MAX = 0.001, 0.05


class SyncClient:
    """One connection to a daemon; hello is done when the constructor returns.

    The same options and methods as :class:`~venom_proto.client.AsyncClient`, blocking.
    Every failure raises :class:`VenomError`: ``unavailable.not_running`` (with
    ``data.socket``) when no daemon listens, ``unavailable.unresponsive`` (``data.socket``,
    ``data.timeout``) when connecting and hello together take longer than ``connect_timeout``
    seconds (``None``: no bound), ``timeout`` when one read or write waits longer than
    ``timeout`` seconds (``None``, the default: a verb may run as long as it runs),
    ``unavailable.disconnected`` when the daemon goes away, or the daemon's error.

    Give the socket path, or ``tool=`` for that tool's default socket, as for
    :class:`~venom_proto.client.AsyncClient`; the client name and version default to
    ``venom-proto`` and this library's version. ``binary=True`` opens with the ``0xF5``
    preamble and a HELLO frame; verbs then travel in CONTROL frames, and `open_stream`,
    `send_frame` and `receive_frame` carry the tool's own frames (RFC-0002 §5).

    ``socket_path`` may be an ``ssh://[user@]host[:port][/path]`` URL (rfcs/0006): the client
    then runs ``ssh ... <tool> bridge`` and speaks over its pipes; ``tool`` names the remote
    tool (default: the path's ``<tool>.sock`` stem), and ssh failing is ``unavailable.ssh``
    with ssh's stderr in ``data.stderr``.

    ``auth`` is ``hello.auth``. By default (`~venom_proto.conventions.DEFAULT_AUTH`) the client
    presents what the generated CLI presents: ``$<TOOL>_TOKEN`` when ``tool`` is known and the
    variable is set, else the owner token beside a local socket, so the owner's calls hold
    every grant (rfcs/0005 §3); ``auth=None`` presents no token (the read-only peer default),
    and a dict is sent as given.
    """

    def __init__(
        self,
        socket_path: str | os.PathLike[str] | None = None,
        *,
        tool: str | None = None,
        client_name: str = DEFAULT_CLIENT_NAME,
        client_version: str = DEFAULT_CLIENT_VERSION,
        caps: Iterable[str] = ("cancel",),
        auth: dict[str, Any] | DefaultAuth | None = DEFAULT_AUTH,
        max_frame: int | None = None,
        binary: bool = False,
        timeout: float | None = None,
        connect_timeout: float | None = CONNECT_TIMEOUT,
    ) -> None:
        setup = ClientSetup(
            socket_path,
            tool=tool,
            client_name=client_name,
            client_version=client_version,
            caps=caps,
            auth=auth,
            max_frame=max_frame,
            binary=binary,
            loads=std_loads,
            dumps=std_dumps,
        )
        self._core = setup.core
        self._binary = binary
        self._sock: _socket.socket | None = None
        self._ssh: SshChild | None = None
        # Set when a binary daemon closed the connection (CLOSE or ERROR on stream 0).
        self._closed_by: VenomError | None = None
        self._timeout = timeout
        self._connect_timeout = connect_timeout
        # Until hello completes: when connect_timeout runs out (None: never).
        self._deadline = None if connect_timeout is None else monotonic() + connect_timeout
        if setup.ssh is not None:
            from .ssh import SshChild

            self.socket_path = setup.socket_path
            self._ssh = SshChild(*setup.ssh, connect_timeout=connect_timeout)
            self._sock = sock = self._ssh.sock
        else:
            path = prepare_socket_path(setup.socket_path)
            self.socket_path = path
            sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
            try:
                self._connect(sock, path)
            except TimeoutError:
                sock.close()
                raise self._timed_out("connecting to " + path) from None
            except OSError as exc:
                sock.close()
                raise connect_error(path, exc) from None
            except BaseException:  # a bad timeout, Ctrl-C, unresponsive: no descriptor leaks
                sock.close()
                raise
            self._sock = sock
        try:
            self._arm(sock)
            self._send(self._core.start(setup.hello))
            while not self._core.hello_done:
                self._arm(sock)
                self._receive()
            #: The daemon's hello result (RFC-0002 6.2).
            self.hello_result: dict[str, Any] = self._core.hello()
            self._deadline = None
            sock.settimeout(timeout)
        except BaseException:
            self.close()
            raise

    # -- connect and hello deadline ---------------------------------------------------------

    def _lost(self, exc: BaseException | None = None) -> VenomError:
        """The error for a link that ended: ssh's own story when there is an ssh child."""
        ssh = self._ssh
        error = disconnected(exc) if ssh is None else ssh.failure(after_hello=self._core.hello_done)
        self.close()
        return error

    def _connect(self, sock: _socket.socket, path: str) -> None:
        """``connect``, waiting (within the deadline) while the listen backlog is full."""
        pause = _RETRY_FIRST
        while True:
            self._arm(sock)
            try:
                sock.connect(path)
                return
            except BlockingIOError:
                # With a timeout set the socket is non-blocking, and a Unix socket whose
                # backlog is full refuses with EAGAIN at once instead of waiting: wait here.
                if self._deadline is None:
                    raise
                sleep(min(pause, max(0.0, self._deadline - monotonic())))
                pause = min(pause * 2, _RETRY_MAX)

    def _arm(self, sock: _socket.socket) -> None:
        """Bound the next socket operation by the connect deadline and ``timeout``."""
        if self._deadline is None:
            sock.settimeout(self._timeout)
            return
        left = self._deadline - monotonic()
        if left <= 0:
            raise self._unresponsive()
        sock.settimeout(left if self._timeout is None else min(left, self._timeout))

    def _unresponsive(self) -> VenomError:
        assert self._connect_timeout is not None  # only a deadline runs out
        return unresponsive(self.socket_path, self._connect_timeout)

    def _timed_out(self, what: str) -> VenomError:
        """The error for a socket timeout: the connect deadline's, or ``timeout``'s."""
        if self._deadline is not None and monotonic() >= self._deadline - 0.001:
            return self._unresponsive()
        return VenomError("timeout", f"{what} timed out", {"socket": self.socket_path})

    # -- transport -------------------------------------------------------------------------

    def _connected(self) -> _socket.socket:
        if self._sock is None:
            raise self._closed_by or VenomError("unavailable.disconnected", "the client is closed")
        return self._sock

    def _send(self, data: bytes) -> None:
        try:
            self._connected().sendall(data)
        except TimeoutError:
            if self._deadline is not None:
                raise self._timed_out("sending hello") from None
            raise timed_out("accept the request") from None
        except OSError as exc:
            self._raise_closing_error()
            raise self._lost(exc) from None

    def _raise_closing_error(self) -> None:
        """After a failed send: the daemon may have closed the connection with a final error
        of its own (a revoked token's ``denied.auth``, rfcs/0006 §2.4) that is already in the
        receive buffer; raise that rather than a bare "connection lost"."""
        sock = self._sock
        if sock is None:
            return
        try:
            sock.settimeout(0)
            while data := sock.recv(_RECV):
                self._core.receive_data(data)
        except VenomError:
            self.close()
            raise
        except OSError:
            return  # nothing (more) buffered, or the socket is gone: the link is lost

    def _receive(self) -> None:
        try:
            data = self._connected().recv(_RECV)
        except TimeoutError:
            if self._deadline is not None:
                raise self._timed_out("waiting for hello") from None
            raise timed_out("answer") from None
        except OSError as exc:
            raise self._lost(exc) from None
        if not data:
            raise self._lost()
        try:
            self._core.receive_data(data)
        except VenomError:
            self.close()
            raise
        if self._binary:
            self._after_frames()

    def _binary_core(self) -> BinaryClientCore:
        # Imported here: the CLI's NDJSON calls never load the binary core.
        from ._client_binary import as_binary

        return as_binary(self._core)

    def _after_frames(self) -> None:
        """Answer the daemon's PINGs; a CLOSE or ERROR on stream 0 ends the connection."""
        core = self._binary_core()
        out = core.data_to_send()
        if out:
            self._send(out)
        if core.closed_by_server is not None:
            # Replies that came before it stay readable; every later wait raises it.
            self._closed_by = core.closed_by_server
            self.close()

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

    def cancel(self, id: int | str, *, wait: float | None = None) -> None:
        """Ask the daemon to end request ``id`` (it then fails with ``cancelled``).

        ``wait``: return after at most that many seconds even if the daemon has not answered
        the ``cancel`` yet (the request is sent; closing the connection ends the call in any
        case, RFC-0002 §4.4), instead of waiting as long as it takes.
        """
        if wait is None:
            self.call("cancel", {"id": id})
            return
        id_, data = self._core.request("cancel", {"id": id})
        self._send(data)
        deadline = monotonic() + wait
        sock = self._connected()
        try:
            while (reply := self._core.next_reply(id_)) is None:
                left = deadline - monotonic()
                if left <= 0:
                    self._core.forget(id_)  # its late reply is dropped
                    return
                sock.settimeout(left)
                try:
                    self._receive()
                except VenomError as exc:
                    if exc.code == "timeout":  # no answer within ``wait``
                        self._core.forget(id_)
                        return
                    raise
        finally:
            if self._sock is not None:
                self._sock.settimeout(self._timeout)
        raise_for(reply)

    def ping(self) -> None:
        """Liveness check."""
        self.call("ping")

    # -- binary frames ---------------------------------------------------------------------

    def open_stream(self) -> int:
        """A fresh odd stream id for a stream this client opens (RFC-0002 5.1)."""
        return self._binary_core().open_stream()

    def send_frame(self, type_: int, stream: int, payload: bytes) -> None:
        """Send one frame (binary connections only)."""
        self._send(self._binary_core().frame(type_, stream, payload))

    def receive_frame(self) -> Frame:
        """The next frame that is not a reply: tool frames, ERROR/CLOSE on a stream."""
        core = self._binary_core()
        while (frame := core.next_frame()) is None:
            self._receive()
        return frame

    def close(self) -> None:
        """Close the connection; idempotent."""
        sock, self._sock = self._sock, None
        if sock is not None:
            sock.close()
        ssh, self._ssh = self._ssh, None
        if ssh is not None:
            ssh.close()

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
