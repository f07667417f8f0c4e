"""`finish`: run a coroutine to its end even when the call that started it is cancelled.

A write that has started (a file renamed into place, a transaction committed) must be followed
by what goes with it (the configuration applied, the event published), whether or not its
client is still waiting. The server cancels a call with ``Task.cancel()``, which anyio's
shielded cancel scopes do not stop, so the work runs in a task of its own behind
``asyncio.shield``: the cancelled caller gets ``cancelled``, and the work goes on.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any, TypeVar

from venom_proto import VenomError

__all__ = ("finish",)

T = TypeVar("T")
log = logging.getLogger("venom_gen.daemon")
#: Strong references: the event loop keeps only weak ones to tasks.
_RUNNING: set[asyncio.Task[Any]] = set()


async def finish(work: Coroutine[Any, Any, T]) -> T:
    """Await ``work``; if the caller is cancelled meanwhile, ``work`` still runs to its end."""
    task = asyncio.ensure_future(work)
    _RUNNING.add(task)
    task.add_done_callback(_RUNNING.discard)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        task.add_done_callback(_report_orphan)
        raise


def _report_orphan(task: asyncio.Task[Any]) -> None:
    """Log how work ended that nobody waits for any more."""
    if task.cancelled():
        return
    exc = task.exception()
    if isinstance(exc, VenomError):
        log.warning("work of a cancelled call failed: %s (%s)", exc.message, exc.code)
    elif exc is not None:
        log.error("work of a cancelled call raised", exc_info=exc)
