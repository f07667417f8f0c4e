"""`Server`: a tool's verbs and frame handlers served on its Unix socket (RFC-0002 2.5, 4-6)."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from collections.abc import Callable, Iterable, Mapping
from contextlib import nullcontext
from typing import Any

import anyio

from venom_proto._core.errors import VenomError
from venom_proto._core.ndjson import DEFAULT_MAX_FRAME
from venom_proto.conventions import check_tool_name, resolve_socket_path
from venom_proto.systemd import listen_fds, notify

from .accept import Acceptor
from .api import ConnectionInfo, FrameHandler, VerbHandler
from .config import CORE_CAPS, CORE_VERBS, ServerConfig, default_max_connections
from .connection import SocketConnection
from .log_queue import queued_logging
from .shared import Daemon
from .startup import Listener, adopt_listener, start_listening

__all__ = ("Server",)

#: How long shutdown waits for peers to take their last bytes before dropping them.
_DRAIN_SECONDS = 2.0
#: How often a drain looks at the connections; one quiet look apart closes a connection.
_QUIET_SECONDS = 0.05


def _once(report_to: Callable[[], str | None]) -> Callable[[], str]:
    """``report_to``'s answer as the text for internal errors ("" for none), computed once,
    never raising."""
    found: list[str] = []

    def report() -> str:
        if not found:
            try:
                where = report_to()
            except Exception:  # a bug report must never fail for want of its address
                where = None
            found.append(f"a bug: please report it at {where}" if where else "")
        return found[0]

    return report


class Server:
    """A daemon's socket server.

    ``verbs`` maps wire names to `VerbHandler`; ``hello``, ``cancel`` and ``ping`` are built in and
    cannot be given. The advertised capabilities are ``cancel``, ``caps``, and every capability
    named by a verb or frame handler.

    Deadlines (RFC-0002 3, rfcs/0002-wire-decisions.md D-W16): ``idle_timeout`` for the first
    byte, ``hello_timeout`` for a binary ``HELLO``, ``message_timeout`` for any message once
    begun. Per connection: ``max_frame``; ``max_write_buffer`` unsent bytes (raised to two
    max_frame messages if smaller) before a slow reader is dropped (4.3); ``max_inflight``
    calls awaiting a reply, past which new calls get ``unavailable.too_many_calls`` while
    ``ping``, ``cancel`` and replies keep flowing. Per daemon: ``max_connections`` (the next
    peer gets ``unavailable.too_many_connections``; by default the descriptor limit less 64,
    at most 4096), ``max_calls`` in flight, ``max_input``
    bytes of received input held and ``max_output`` bytes of unsent output (past either, the
    connection holding the most is dropped). ``backlog`` is the listen queue.

    ``drain`` (seconds, default 0): on a stop, after it stops accepting, the server keeps
    serving its open connections, closing each once it is quiet (no call in flight, nothing
    read or unsent over one look, 50 ms apart), for at most this long before the shutdown
    proper; a call in flight then finishes rather than ending ``cancelled``. ``serve
    --reload`` swaps daemons this way (rfcs/0002-wire-decisions.md D-W44).

    ``report_to`` says where to report a bug (RFC-0002 §7.2: an ``internal`` error's message
    SHOULD say so): called once, at the first internal error, its text is appended to the
    message of every internal error (a URL from package metadata, say: the lookup then costs
    nothing until something goes wrong); None or no answer leaves the messages as they are.
    """

    def __init__(
        self,
        tool: str,
        version: str,
        verbs: Mapping[str, VerbHandler],
        *,
        caps: Iterable[str] = (),
        frame_handlers: Iterable[FrameHandler] = (),
        schema: str | None = None,
        max_frame: int = DEFAULT_MAX_FRAME,
        idle_timeout: float = 10.0,
        hello_timeout: float = 10.0,
        message_timeout: float = 10.0,
        max_write_buffer: int = 8 * 1024 * 1024,
        max_inflight: int = 1024,
        max_connections: int | None = None,
        max_calls: int = 16384,
        max_input: int = 64 * 1024 * 1024,
        max_output: int = 128 * 1024 * 1024,
        backlog: int = 1024,
        drain: float = 0.0,
        report_to: Callable[[], str | None] | None = None,
    ) -> None:
        check_tool_name(tool)
        core = CORE_VERBS.intersection(verbs)
        if core:
            raise ValueError(f"core verbs cannot be overridden: {sorted(core)}")
        handlers = {fh.type: fh for fh in frame_handlers}
        all_caps = set(CORE_CAPS).union(caps)
        all_caps.update(v.capability for v in verbs.values() if v.capability is not None)
        all_caps.update(fh.capability for fh in handlers.values())
        self.config = ServerConfig(
            tool=tool,
            version=version,
            verbs=dict(verbs),
            caps=frozenset(all_caps),
            frame_handlers=handlers,
            schema=schema,
            max_frame=max_frame,
            idle_timeout=idle_timeout,
            hello_timeout=hello_timeout,
            message_timeout=message_timeout,
            max_write_buffer=max_write_buffer,
            max_inflight=max_inflight,
            max_connections=(
                default_max_connections() if max_connections is None else max_connections
            ),
            max_calls=max_calls,
            max_input=max_input,
            max_output=max_output,
            report=None if report_to is None else _once(report_to),
        )
        self.backlog = backlog
        self.drain = drain
        self._daemon: Daemon | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._stop_requested = False
        self._stopped = threading.Event()

    @property
    def connection_count(self) -> int:
        """Connections currently open."""
        return 0 if self._daemon is None else len(self._daemon.connections)

    def close_connections(self, which: Callable[[ConnectionInfo], VenomError | None]) -> int:
        """Close each open connection for which ``which(info)`` returns an error, with that
        error; returns how many. Call it on the server's loop.

        The error is written as a fatal one, in the connection's own framing (an NDJSON line
        with ``id: null``, a binary ``ERROR`` frame on stream 0); calls in flight, streams
        included, are stopped, and the connection closes once the bytes are out. For a policy
        that ends sessions, such as a revoked token (rfcs/0006 §2.4).
        """
        daemon = self._daemon
        if daemon is None:
            return 0
        closed = 0
        for conn in list(daemon.connections):
            error = which(conn.info)
            if error is not None:
                conn.close_with(error)
                closed += 1
        return closed

    def in_process_protocol(self) -> asyncio.Protocol:
        """The asyncio protocol of one connection whose peer is this very process.

        For transports the server does not accept itself: an in-memory pair in tests, the
        instruction-count bench. The peer's credentials are this process's, so the RFC-0002
        §2.4 check holds by construction. Each protocol gets daemon-wide budgets of its own.
        """
        daemon = Daemon(self.config)
        info = ConnectionInfo(daemon.next_id(), os.getuid(), os.getgid(), os.getpid())
        return SocketConnection(daemon, info)

    def serve_forever(self, socket_path: str | None = None) -> None:
        """Run the server in a new event loop until SIGTERM/SIGINT or `stop`."""
        anyio.run(self._run_positional, socket_path, backend="asyncio")

    async def _run_positional(self, socket_path: str | None) -> None:
        await self.run(socket_path)

    async def run(
        self,
        socket_path: str | None = None,
        *,
        ready: Callable[[str], Any] | None = None,
        on_locked: Callable[[str], Any] | None = None,
        handle_signals: bool = True,
        queue_logs: bool | None = None,
    ) -> None:
        """Start up (2.5 steps 1-5), serve until stopped, then shut down cleanly (steps 7-8).

        ``socket_path`` defaults to the resolved path for the tool (2.3); ``ready`` is called with
        it once the socket listens; ``on_locked`` once the lock is held, before the socket exists
        (see `start_listening`). Start-up failures raise `VenomError`. In the main thread (and
        unless ``handle_signals`` is false), SIGTERM and SIGINT stop the server from before the
        socket exists, and the root logger writes through a queue that never blocks the loop
        (``queue_logs`` forces that on or off).

        Under a service manager: a socket passed by socket activation (``LISTEN_FDS`` for this
        process) is served instead of binding one, once checked to be the resolved path's, and
        the ``LISTEN_*`` variables are removed so children never see them; with
        ``NOTIFY_SOCKET`` set, ``READY=1`` is sent once serving and ``STOPPING=1`` when the
        shutdown begins, each with a ``STATUS=`` line (sd_notify(3)).
        """
        path = socket_path or resolve_socket_path(self.config.tool)
        loop = self._loop = asyncio.get_running_loop()
        stop = self._stop = asyncio.Event()
        self._stopped.clear()
        if self._stop_requested:
            stop.set()
        owned = threading.current_thread() is threading.main_thread()
        signals = handle_signals and owned
        logs = queued_logging() if (owned if queue_logs is None else queue_logs) else nullcontext()
        try:
            # Handlers first: a SIGTERM arriving once clients can connect must stop us cleanly.
            if signals:
                for sig in (signal.SIGTERM, signal.SIGINT):
                    loop.add_signal_handler(sig, stop.set)
            with logs:
                passed = [fd for fd, _name in listen_fds()]
                if passed:
                    listener = adopt_listener(path, passed, on_locked)
                else:
                    listener = start_listening(path, self.backlog, on_locked)
                try:
                    await self._serve(listener, path, ready)
                finally:
                    listener.close()
        finally:
            if signals:
                for sig in (signal.SIGTERM, signal.SIGINT):
                    loop.remove_signal_handler(sig)
            self._stop_requested = False
            self._stopped.set()

    async def _serve(
        self, listener: Listener, path: str, ready: Callable[[str], Any] | None
    ) -> None:
        assert self._stop is not None
        daemon = self._daemon = Daemon(self.config)
        acceptor = Acceptor(listener.sock, daemon)
        acceptor.start()
        try:
            if not self._stop.is_set():
                if ready is not None:
                    ready(path)
                how = "socket activation" if listener.activated else "its own socket"
                notify(f"READY=1\nSTATUS=serving on {path} ({how})\nMAINPID={os.getpid()}")
            await self._stop.wait()
        finally:
            notify("STOPPING=1\nSTATUS=shutting down")
            acceptor.close(keep_opening=self.drain > 0)
            with anyio.CancelScope(shield=True):
                if self.drain > 0:
                    await self._drain(daemon, self.drain)
                await self._close_connections(daemon)

    def stop(self, timeout: float | None = 10.0) -> None:
        """Ask a running server to shut down; safe from signal handlers and any thread.

        From another thread it blocks, like ``socketserver``'s ``shutdown``, until the shutdown
        sequence has finished (or ``timeout`` passed); on the server's own loop it only asks.
        """
        self._stop_requested = True
        loop, event = self._loop, self._stop
        if loop is None or event is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            event.set()
            return
        try:
            loop.call_soon_threadsafe(event.set)
        except RuntimeError:  # the loop closed meanwhile
            return
        self._stopped.wait(timeout)

    async def _drain(self, daemon: Daemon, seconds: float) -> None:
        """Keep serving, closing each connection once it is quiet, for at most ``seconds``."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        looked: dict[object, int] = {}
        while daemon.connections and loop.time() < deadline:
            for conn in list(daemon.connections):
                reads = conn.reads if conn.idle else -1
                if reads >= 0 and looked.get(conn) == reads:
                    conn.shutdown("daemon stopping")
                looked[conn] = reads
            await asyncio.sleep(_QUIET_SECONDS)

    async def _close_connections(self, daemon: Daemon) -> None:
        conns = list(daemon.connections)
        for conn in conns:
            conn.shutdown("daemon shutting down")
        pending = [c.closed for c in conns if not c.closed.done()]
        if pending:
            await asyncio.wait(pending, timeout=_DRAIN_SECONDS)
        for conn in conns:
            if not conn.closed.done():
                conn.abort()
        await asyncio.sleep(0)  # let connection_lost run for aborted peers
