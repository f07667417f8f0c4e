"""`Server`: a tool's verbs and frame handlers served on its Unix socket (RFC-0002 2.5, 4-6)."""

from __future__ import annotations

import asyncio
import itertools
import signal
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import anyio

from venom_proto._core.ndjson import DEFAULT_MAX_FRAME

from .api import FrameHandler, Verb
from .config import CORE_CAPS, CORE_VERBS, OnCall, ServerConfig
from .connection import ServerConnection
from .paths import resolve_socket_path, validate_tool_name
from .startup import start_listening

__all__ = ("Server",)

#: How long shutdown waits for peers to take their last bytes before dropping them.
_DRAIN_SECONDS = 2.0


class Server:
    """A daemon's socket server.

    ``verbs`` maps wire names to `Verb`; ``hello``, ``cancel`` and ``ping`` are built in and
    cannot be given. The advertised capabilities are ``cancel``, ``caps``, and every capability
    named by a verb or frame handler. ``idle_timeout`` closes a connection that sends nothing;
    ``hello_timeout`` one whose binary ``HELLO`` is late (RFC-0002 3). A connection with more
    unread output than ``max_write_buffer`` (raised to two max_frame messages if smaller) is
    closed (4.3); one with ``max_inflight`` running async calls is not read from until half of
    them finish. ``backlog`` is the listen queue.
    """

    def __init__(
        self,
        tool: str,
        version: str,
        verbs: Mapping[str, Verb],
        *,
        caps: Iterable[str] = (),
        frame_handlers: Iterable[FrameHandler] = (),
        schema: str | None = None,
        max_frame: int = DEFAULT_MAX_FRAME,
        on_call: OnCall | None = None,
        idle_timeout: float = 10.0,
        hello_timeout: float = 10.0,
        max_write_buffer: int = 8 * 1024 * 1024,
        max_inflight: int = 1024,
        backlog: int = 1024,
    ) -> None:
        validate_tool_name(tool)
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
            on_call=on_call,
            idle_timeout=idle_timeout,
            hello_timeout=hello_timeout,
            max_write_buffer=max_write_buffer,
            max_inflight=max_inflight,
        )
        self.backlog = backlog
        self._connections: set[ServerConnection] = set()
        self._ids = itertools.count(1)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._stop_requested = False
        self._stopped = threading.Event()

    @property
    def connection_count(self) -> int:
        """Connections currently open."""
        return len(self._connections)

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
    ) -> None:
        """Start up (2.5 steps 1-5), serve until stopped, then shut down cleanly (steps 7-8).

        ``socket_path`` defaults to the resolved path for the tool (2.3); ``ready`` is called with
        it once the socket listens; ``on_locked`` once the lock is held, before the socket exists
        (see `start_listening`). Start-up failures raise `VenomError`. Signal handlers for
        SIGTERM and SIGINT are installed only when running in the main thread.
        """
        path = socket_path or resolve_socket_path(self.config.tool)
        listener = start_listening(path, self.backlog, on_locked)
        loop = self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        self._stopped.clear()
        if self._stop_requested:
            self._stop.set()
        signals = handle_signals and threading.current_thread() is threading.main_thread()
        try:
            server = await loop.create_unix_server(
                self._new_connection, sock=listener.sock, backlog=self.backlog
            )
            if signals:
                for sig in (signal.SIGTERM, signal.SIGINT):
                    loop.add_signal_handler(sig, self._stop.set)
            try:
                if ready is not None:
                    ready(path)
                await self._stop.wait()
            finally:
                server.close()
                with anyio.CancelScope(shield=True):
                    await self._close_connections()
        finally:
            if signals:
                for sig in (signal.SIGTERM, signal.SIGINT):
                    loop.remove_signal_handler(sig)
            listener.close()
            self._stop_requested = False
            self._stopped.set()

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

    def _new_connection(self) -> ServerConnection:
        return ServerConnection(self.config, next(self._ids), self._connections)

    async def _close_connections(self) -> None:
        conns = list(self._connections)
        for conn in conns:
            conn.shutdown("daemon shutting down")
        pending = [c.closed for c in conns if not c.closed.done()]
        if pending:
            await asyncio.wait(pending, timeout=_DRAIN_SECONDS)
        for conn in conns:
            if not conn.closed.done():
                conn.abort()
        await asyncio.sleep(0)  # let connection_lost run for aborted peers
