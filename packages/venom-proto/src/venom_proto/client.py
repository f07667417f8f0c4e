"""The async client on anyio: pipelined calls matched by id, streams, and binary frames.

One reader task feeds :class:`~venom_proto._client_core.ClientCore` (the sans-I/O bookkeeping
shared with :class:`~venom_proto.sync_client.SyncClient`, as is the reading of the
constructor's arguments, ``_client_paths.ClientSetup``) and wakes the callers whose ids got
replies, so any number of tasks may call concurrently on one connection. One writer task sends
what callers queue, so concurrent requests leave in as few writes as possible and a cancelled
caller can never cut a request in half.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from types import TracebackType
from typing import TYPE_CHECKING, Any

import anyio
from anyio.abc import ByteStream, TaskGroup, TaskStatus
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from ._client_binary import BinaryClientCore, as_binary
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
from ._core._json import dumps, loads
from ._core.errors import VenomError
from ._core.frames import Frame
from ._core.replies import Reply
from .conventions import DEFAULT_AUTH, DefaultAuth

if TYPE_CHECKING:
    from ._ssh_async import SshLink
    from .ssh import SshTarget

__all__ = ("AsyncClient", "AsyncStreamCall")

_RECV = 65536
#: Callers wait for the writer once this much is queued (backpressure from a slow daemon).
_HIGH_WATER = 1 << 20
#: How long a failed write waits for the reader to deliver the daemon's own closing error.
_READER_GRACE = 1.0


class AsyncClient:
    """One connection to a daemon, used as ``async with AsyncClient(path, ...) as client``.

    The same options and methods as :class:`~venom_proto.sync_client.SyncClient`, awaitable;
    any number of tasks may call at once. Entering connects and completes hello. Every failure
    raises :class:`VenomError`, as for the sync client: ``unavailable.unresponsive``
    (``data.socket``, ``data.timeout``) when connecting and hello together take longer than
    ``connect_timeout`` seconds (default 10; ``None``: no bound), ``timeout`` when a call
    waits longer than ``timeout`` seconds for its next reply or to queue its request, or
    `receive_frame` for a frame (``None``, the default: no bound; the request is then
    cancelled on the daemon, as for a cancelled caller).

    Give the socket path, or ``tool=`` for that tool's default socket (``<TOOL>_SOCKET``, then
    the runtime directory: `venom_proto.resolve_socket_path`); hello names the client
    ``venom-proto`` at this library's version unless ``client_name``/``client_version`` say
    otherwise. ``binary=True`` opens with the ``0xF5`` preamble and a HELLO frame; verbs then
    travel in CONTROL frames, and `open_stream`, `send_frame` and `receive_frame` carry the
    tool's own frames (RFC-0002 §5).

    ``socket_path`` may be ``ssh://[user@]host[:port][/path]`` (rfcs/0006): the client then
    runs ``ssh ... <tool> bridge`` and speaks over its pipes (``tool``: the remote tool, by
    default the path's ``<tool>.sock`` stem).

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
            loads=loads,
            dumps=dumps,
        )
        self.socket_path = setup.socket_path
        self._remote: tuple[SshTarget, str] | None = setup.ssh
        self._hello = setup.hello
        self._core = setup.core
        self._timeout = timeout
        self._connect_timeout = connect_timeout
        self._ssh: SshLink | None = None
        self._stream: ByteStream | None = None
        self._tg: TaskGroup | None = None
        self._io_scopes: list[anyio.CancelScope] = []
        self._out = bytearray()
        self._out_ready = anyio.Event()
        self._out_drained = anyio.Event()
        # Held around every write, so a shielded cancel can write past a cancelled writer task.
        self._write_lock = anyio.Lock()
        self._waiters: dict[int | str, anyio.Event] = {}
        self._hello_event = anyio.Event()
        self._failure: VenomError | None = None
        frames: tuple[MemoryObjectSendStream[Frame], MemoryObjectReceiveStream[Frame]]
        frames = anyio.create_memory_object_stream(math.inf)
        self._frames_in, self._frames_out = frames
        #: The daemon's hello result (RFC-0002 6.2), set on entering.
        self.hello_result: dict[str, Any] = {}

    async def __aenter__(self) -> AsyncClient:
        # One deadline covers connecting (or starting ssh) and hello (rfcs/0002 D-W33): a
        # daemon that accepts and never answers, or an ssh that hangs, cannot hold the caller.
        # Two scopes share it, since the task group entered between them outlives both.
        timeout = self._connect_timeout
        deadline = math.inf if timeout is None else anyio.current_time() + timeout
        with anyio.CancelScope(deadline=deadline) as connecting:
            await self._connect()
        if connecting.cancelled_caught:
            if self._stream is not None:
                with anyio.CancelScope(shield=True):
                    await self._stream.aclose()
            raise self._unresponsive()
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        try:
            if self._ssh is not None:
                self._io_scopes.append(
                    await self._tg.start(self._in_scope, self._ssh.collect_stderr)
                )
            self._io_scopes.append(await self._tg.start(self._in_scope, self._read_loop))
            self._io_scopes.append(await self._tg.start(self._in_scope, self._write_loop))
            await self._send(self._core.start(self._hello))
            with anyio.CancelScope(deadline=deadline) as greeting:
                await self._hello_event.wait()
            if greeting.cancelled_caught:
                raise self._unresponsive()
            if self._failure is not None and not self._core.hello_done:
                raise self._failure
            self.hello_result = self._core.hello()
        except BaseException:
            await self.aclose()
            raise
        return self

    def _unresponsive(self) -> VenomError:
        assert self._connect_timeout is not None  # only a deadline runs out
        return unresponsive(self.socket_path, self._connect_timeout)

    async def _connect(self) -> None:
        """Open the byte stream: a Unix socket, or an ssh child's pipes."""
        if self._remote is not None:
            from ._ssh_async import open_ssh_link

            self._ssh = await open_ssh_link(*self._remote, self._connect_timeout)
            self._stream = self._ssh
        else:
            path = prepare_socket_path(self.socket_path)
            try:
                self._stream = await anyio.connect_unix(path)
            except OSError as exc:
                raise connect_error(path, exc) from None

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connection and stop the reader; idempotent."""
        tg, self._tg = self._tg, None
        if tg is None:
            return
        self._fail(VenomError("unavailable.disconnected", "the client is closed"))
        for scope in self._io_scopes:
            scope.cancel()
        try:
            # The reader and writer are the group's only tasks; the group's own scope is never
            # cancelled, so exiting it just waits for them to finish. Closing from a cancelled
            # scope (a timeout around the client) raises here on trio once they have: the
            # socket is closed all the same.
            await tg.__aexit__(None, None, None)
        finally:
            self._frames_in.close()
            self._frames_out.close()
            if self._stream is not None:
                with anyio.CancelScope(shield=True):
                    await self._stream.aclose()

    # -- transport -------------------------------------------------------------------------

    async def _send(self, data: bytes) -> None:
        """Queue ``data`` for the writer; wait only while a large backlog drains."""
        if self._failure is not None:
            raise self._failure
        self._out += data
        self._out_ready.set()
        while len(self._out) > _HIGH_WATER:
            if not await self._within_timeout(self._out_drained):
                raise timed_out("accept the request")
            if self._failure is not None:
                raise self._failure

    async def _within_timeout(self, event: anyio.Event) -> bool:
        """Wait for ``event``; False if ``timeout`` ran out first."""
        if self._timeout is None:
            await event.wait()
            return True
        with anyio.move_on_after(self._timeout) as scope:
            await event.wait()
        return not scope.cancelled_caught

    async def _write_loop(self) -> None:
        assert self._stream is not None
        try:
            while True:
                await self._out_ready.wait()
                self._out_ready = anyio.Event()
                while self._out:
                    async with self._write_lock:
                        chunk = bytes(self._out)
                        self._out.clear()
                        if chunk:
                            await self._stream.send(chunk)
                self._out_drained.set()
                self._out_drained = anyio.Event()
        except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
            # The daemon may have closed after a final error of its own (a revoked token's
            # ``denied.auth``, rfcs/0006 §2.4): the reader, which sees the end of the stream
            # too, delivers it if it came; briefly, since the peer is gone either way.
            with anyio.move_on_after(_READER_GRACE):
                while self._failure is None:
                    await anyio.sleep(0.01)
            self._fail(await self._lost(exc))

    async def _lost(self, exc: BaseException | None = None) -> VenomError:
        """The error for a link that ended: ssh's own story when there is an ssh child."""
        if self._ssh is None:
            return disconnected(exc)
        return await self._ssh.failure(after_hello=self._core.hello_done)

    def _fail(self, error: VenomError) -> VenomError:
        """Fail the connection (the first error wins) and wake everyone waiting on it."""
        if self._failure is None:
            self._failure = error
        self._hello_event.set()
        self._out_drained.set()
        self._frames_in.close()
        for event in self._waiters.values():
            event.set()
        self._waiters.clear()
        return self._failure

    @staticmethod
    async def _in_scope(
        loop: Callable[[], Awaitable[None]], *, task_status: TaskStatus[anyio.CancelScope]
    ) -> None:
        """Run an I/O loop in a scope of its own, so closing can stop it alone."""
        with anyio.CancelScope() as scope:
            task_status.started(scope)
            await loop()

    async def _read_loop(self) -> None:
        assert self._stream is not None
        core = self._core
        try:
            while True:
                data = await self._stream.receive(_RECV)
                touched = core.receive_data(data)
                if core.hello_done:
                    self._hello_event.set()
                for id_ in touched:
                    event = self._waiters.pop(id_, None)
                    if event is not None:
                        event.set()
                if isinstance(core, BinaryClientCore):
                    await self._after_frames(core)
        except VenomError as exc:
            self._fail(exc)
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            self._fail(await self._lost())

    async def _after_frames(self, core: BinaryClientCore) -> None:
        while core.frames:
            self._frames_in.send_nowait(core.frames.popleft())
        out = core.data_to_send()
        if out:
            await self._send(out)
        if core.closed_by_server is not None:
            raise core.closed_by_server

    async def _next(self, id_: int | str) -> Reply:
        while (reply := self._core.next_reply(id_)) is None:
            if self._failure is not None:
                raise self._failure
            event = self._waiters[id_] = anyio.Event()
            if not await self._within_timeout(event):
                await self._abandon(id_)
                raise timed_out("answer")
        return reply

    async def _request(self, verb: str, params: dict[str, Any] | None) -> int:
        id_, data = self._core.request(verb, params)
        try:
            await self._send(data)
        except BaseException:
            self._core.forget(id_)
            raise
        return id_

    async def _abandon(self, id_: int | str) -> None:
        """A caller gave up on ``id_`` (cancelled): forget it and cancel it on the daemon."""
        self._core.forget(id_)
        self._waiters.pop(id_, None)
        if "cancel" in self.hello_result.get("caps", ()) and self._failure is None:
            cancel_id, data = self._core.request("cancel", {"id": id_})
            self._core.forget(cancel_id)
            # Written here, not queued: the caller's cancellation may have cancelled the writer
            # task too (it runs in the scope that entered the client), and a queued cancel
            # would then never reach the daemon.
            with (
                anyio.CancelScope(shield=True),
                anyio.move_on_after(1),
                contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError),
            ):
                await self._write_now(data)

    async def _write_now(self, data: bytes) -> None:
        """Write what is queued plus ``data`` from the calling task, in order with the writer."""
        assert self._stream is not None
        async with self._write_lock:
            chunk = bytes(self._out) + data
            self._out.clear()
            await self._stream.send(chunk)

    # -- API -------------------------------------------------------------------------------

    async def call(self, verb: str, params: dict[str, Any] | None = None) -> Any:
        """Send one request and return its ``ok`` value (items, if any, are dropped)."""
        id_ = await self._request(verb, params)
        try:
            while (reply := await self._next(id_)).kind == "item":
                pass
        except anyio.get_cancelled_exc_class():
            await self._abandon(id_)
            raise
        return raise_for(reply)

    async def stream(self, verb: str, params: dict[str, Any] | None = None) -> AsyncStreamCall:
        """Send a request to a streaming verb; ``async for`` over the result for its items."""
        return AsyncStreamCall(self, await self._request(verb, params))

    async def cancel(self, id: int | str, *, wait: float | None = None) -> None:
        """Ask the daemon to end request ``id`` (it then fails with ``cancelled``).

        ``wait``: return after at most that many seconds even if the daemon has not answered
        the ``cancel`` yet (the request is sent), as `SyncClient.cancel` does.
        """
        if wait is None:
            await self.call("cancel", {"id": id})
            return
        id_ = await self._request("cancel", {"id": id})
        reply: Reply | None = None
        # No return inside the block: with the oldest anyio we allow (4.4), the scope's exit is
        # typed so that mypy would call the code after it unreachable.
        with anyio.move_on_after(wait):
            while (reply := await self._next(id_)).kind == "item":
                pass
        if reply is not None and reply.kind != "item":
            raise_for(reply)
            return
        self._core.forget(id_)  # its late reply is dropped
        self._waiters.pop(id_, None)

    async def ping(self) -> None:
        """Liveness check."""
        await self.call("ping")

    # -- binary frames ---------------------------------------------------------------------

    def open_stream(self) -> int:
        """A fresh odd stream id for a stream this client opens (RFC-0002 5.1)."""
        return as_binary(self._core).open_stream()

    async def send_frame(self, type_: int, stream: int, payload: bytes) -> None:
        """Send one frame (binary connections only)."""
        await self._send(as_binary(self._core).frame(type_, stream, payload))

    async def receive_frame(self) -> Frame:
        """The next frame that is not a reply: tool frames, ERROR/CLOSE on a stream."""
        as_binary(self._core)
        try:
            with anyio.fail_after(self._timeout):
                return await self._frames_out.receive()
        except anyio.EndOfStream:
            raise self._failure or disconnected() from None
        except TimeoutError:
            raise timed_out("send a frame") from None


class AsyncStreamCall:
    """A streamed request in flight: ``async for item in call``; then :attr:`result`."""

    def __init__(self, client: AsyncClient, id_: int | str) -> None:
        self.client = client
        #: The request id, for :meth:`AsyncClient.cancel`.
        self.id = id_
        self._done = False
        self._result: Any = None

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._items()

    async def _items(self) -> AsyncIterator[Any]:
        client = self.client
        try:
            while not self._done:
                reply = await client._next(self.id)
                if reply.kind == "item":
                    yield reply.value
                    continue
                self._done = True
                self._result = raise_for(reply)
        except anyio.get_cancelled_exc_class():
            await client._abandon(self.id)
            raise
        finally:
            if not self._done:  # left early (break): drop later items instead of queueing them
                client._core.forget(self.id)

    @property
    def result(self) -> Any:
        """The final ``ok`` value; only after iteration ended."""
        if not self._done:
            raise RuntimeError("iterate the stream to its end before reading result")
        return self._result
