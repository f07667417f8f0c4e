"""The daemon's file I/O off the event loop: worker threads and the config file's size limit.

The files themselves are read and written by `venom_proto.files` (`read_regular`, the one
atomic writer `write_atomic`, `remove_stale`); those calls block, so the verbs run them in
`FileWorkers`, never on the event loop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import anyio
from anyio import to_thread

__all__ = ("MAX_CONFIG_BYTES", "FileWorkers")

#: The largest ``config.toml`` the daemon reads or writes (rfcs/0001 §6).
MAX_CONFIG_BYTES = 1024 * 1024

T = TypeVar("T")


class FileWorkers:
    """Worker threads for file I/O, at most four at once, so a hung file system (NFS) can hold
    only these and never the threads other handlers use."""

    def __init__(self, limit: int = 4) -> None:
        self._size = limit
        self._limiter: anyio.CapacityLimiter | None = None

    async def run(self, fn: Callable[[], T], *, abandon_on_cancel: bool = False) -> T:
        """``fn()`` in a worker thread. ``abandon_on_cancel`` for reads: a cancelled caller
        does not wait for them."""
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(self._size)
        return await to_thread.run_sync(
            fn, abandon_on_cancel=abandon_on_cancel, limiter=self._limiter
        )
