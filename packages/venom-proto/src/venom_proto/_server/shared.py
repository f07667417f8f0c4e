"""What the connections of one running server share: its settings, registry and budgets."""

from __future__ import annotations

import asyncio
import itertools
from typing import Protocol

from venom_proto._core.errors import VenomError
from venom_proto._core.server_settings import CallBudget

from .api import ConnectionInfo
from .budget import Budgeted, MemoryBudget
from .config import ServerConfig
from .trim import Trimmer

__all__ = ("Daemon", "Served")


class Served(Budgeted, Protocol):
    """An open connection as its daemon sees it (`SocketConnection` is the one kind)."""

    closed: asyncio.Future[None]
    info: ConnectionInfo
    #: How many times input arrived: a drain tells a quiet connection by it not moving.
    reads: int

    @property
    def idle(self) -> bool:
        """No call in flight and no output waiting."""

    def close_with(self, error: VenomError) -> None:
        """Close at once with ``error`` in the connection's framing, stopping its calls."""

    def shutdown(self, reason: str) -> None:
        """Close cleanly: answer what is in flight, then close (binary: ``CLOSE`` first)."""

    def abort(self) -> None:
        """Drop at once."""


class Daemon:
    """One serving run of a `Server`: its open connections and daemon-wide budgets."""

    __slots__ = ("_ids", "calls", "config", "connections", "memory")

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        #: Calls in flight across every connection (``max_calls``).
        self.calls = CallBudget(config.max_calls)
        self.memory = MemoryBudget(config.max_input, config.max_output, Trimmer().released)
        #: Connections open or being set up: what ``max_connections`` bounds.
        self.connections: set[Served] = set()
        self._ids = itertools.count(1)

    @property
    def open_count(self) -> int:
        """Connections open or being set up."""
        return len(self.connections)

    def next_id(self) -> int:
        """A fresh connection id."""
        return next(self._ids)
