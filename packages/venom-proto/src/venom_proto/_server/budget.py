"""Daemon-wide memory budgets: received bytes held and unsent bytes, across all connections.

Each connection reports what it holds after every read and every write. When a total passes
its budget, the counts are refreshed from the connections themselves (a reported figure only
goes stale upwards, as peers read), and while the total is still over, the connection holding
the most is dropped: for input with a ``unavailable.overloaded`` error, for output without one
(it is not reading). The one holding the most is the one a flood comes from; the others keep
being served (rfcs/0002-wire-decisions.md D-W27).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Literal, Protocol

__all__ = ("Budgeted", "MemoryBudget")

log = logging.getLogger("venom_proto.server")


class Budgeted(Protocol):
    """A connection as the budget sees it."""

    def held_input(self) -> int:
        """Received bytes it holds now."""

    def unsent_output(self) -> int:
        """Bytes it has not written yet."""

    def evict(self, resource: Literal["input", "output"], limit: int) -> None:
        """Drop the connection: the daemon's budget for ``resource`` is spent."""


class _Ledger:
    __slots__ = ("held", "limit", "released", "resource", "total")

    def __init__(
        self, resource: Literal["input", "output"], limit: int, released: Callable[[int], None]
    ) -> None:
        self.resource: Literal["input", "output"] = resource
        self.limit = limit
        self.total = 0
        self.held: dict[Budgeted, int] = {}
        self.released = released

    def report(self, conn: Budgeted, amount: int) -> bool:
        """Record ``amount`` for ``conn``; True when the total is now over the limit."""
        held = self.held
        old = held.get(conn, 0)
        if amount == old:
            return False
        self.total += amount - old
        if amount:
            held[conn] = amount
        else:
            del held[conn]
        if amount < old:
            self.released(old - amount)
        return self.total > self.limit

    def forget(self, conn: Budgeted) -> None:
        amount = self.held.pop(conn, 0)
        self.total -= amount
        if amount:
            self.released(amount)


class MemoryBudget:
    """The input and output budgets of one daemon."""

    __slots__ = ("_input", "_output")

    def __init__(
        self, max_input: int, max_output: int, released: Callable[[int], None] = lambda n: None
    ) -> None:
        """``released(n)`` hears of every ``n`` bytes given up (to trim the heap)."""
        self._input = _Ledger("input", max_input, released)
        self._output = _Ledger("output", max_output, released)

    @property
    def input_total(self) -> int:
        """Received bytes held across the daemon, as last reported."""
        return self._input.total

    @property
    def output_total(self) -> int:
        """Unsent bytes across the daemon, as last reported."""
        return self._output.total

    def input(self, conn: Budgeted, held: int) -> None:
        """``conn`` now holds ``held`` received bytes."""
        if self._input.report(conn, held):
            self._enforce(self._input)

    def output(self, conn: Budgeted, unsent: int) -> None:
        """``conn`` now has ``unsent`` bytes not yet written."""
        if self._output.report(conn, unsent):
            self._enforce(self._output)

    def forget(self, conn: Budgeted) -> None:
        """``conn`` is gone."""
        self._input.forget(conn)
        self._output.forget(conn)

    def _enforce(self, ledger: _Ledger) -> None:
        measure = "held_input" if ledger.resource == "input" else "unsent_output"
        for conn in list(ledger.held):
            ledger.report(conn, getattr(conn, measure)())
        while ledger.total > ledger.limit and ledger.held:
            victim = max(ledger.held, key=ledger.held.__getitem__)
            log.warning(
                "daemon %s budget (%d bytes) spent: dropping the connection holding %d",
                ledger.resource,
                ledger.limit,
                ledger.held[victim],
            )
            ledger.forget(victim)
            victim.evict(ledger.resource, ledger.limit)
