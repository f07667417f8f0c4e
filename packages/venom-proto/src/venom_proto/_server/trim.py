"""Giving memory back to the system once large buffers are released (glibc ``malloc_trim``).

A peer that held a megabyte of partial input leaves that much heap behind when it goes: glibc
keeps freed memory in the middle of its heap for reuse, so the daemon's RSS would stay at its
high-water mark after every flood. `Trimmer` asks glibc to return free pages, at most once a
second and only after a mebibyte or more was released; elsewhere it does nothing.
"""

from __future__ import annotations

import asyncio
import ctypes
import sys
from collections.abc import Callable

__all__ = ("Trimmer",)

#: Released bytes that make a trim worth its cost (a trim walks the whole heap).
TRIM_AFTER = 1024 * 1024
_INTERVAL = 1.0


def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)  # the C library this process already uses
    except OSError:
        return None
    trim = getattr(libc, "malloc_trim", None)  # glibc only
    if trim is None:
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    fn: Callable[[int], int] = trim
    return fn


class Trimmer:
    """Coalesces "this much was released" into an occasional ``malloc_trim(0)``."""

    __slots__ = ("_loop", "_released", "_scheduled", "_trim")

    def __init__(self) -> None:
        self._trim = _malloc_trim()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._released = 0
        self._scheduled = False

    def released(self, amount: int) -> None:
        """``amount`` bytes of buffers were just given up."""
        if self._trim is None:
            return
        self._released += amount
        if self._released >= TRIM_AFTER and not self._scheduled:
            self._scheduled = True
            loop = self._loop or asyncio.get_running_loop()
            self._loop = loop
            loop.call_later(_INTERVAL, self._run)

    def _run(self) -> None:
        self._scheduled = False
        self._released = 0
        if self._trim is not None:
            self._trim(0)
