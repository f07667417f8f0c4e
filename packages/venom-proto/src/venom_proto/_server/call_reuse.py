"""When the fast path may hand the next pipelined line the Call object of the previous one.

Allocating and freeing a `Call` (a GC-tracked object with six slots) was ~1.5k of the ~14k
instructions a pipelined sync request cost. The dispatcher reuses a Call only when, after its
handler returned, ``refcount(call) == ALONE``: nothing but the dispatcher's own local variable
holds it, so no handler can ever see a Call it kept change under it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from .api import Call

__all__ = ("ALONE", "refcount")


def _never(_: object) -> int:
    return -2


def _alone() -> int:
    # Measured, not assumed: the figure differs between CPython versions (3.14 borrows stack
    # references), so it is taken the same way the dispatcher takes it, from one local.
    probe = object.__new__(Call)
    return refcount(probe)


#: ``sys.getrefcount``; without it (PyPy) a stand-in that never reports `ALONE`.
refcount: Callable[[object], int] = getattr(sys, "getrefcount", _never)
#: What `refcount` says of a Call held by one local variable and nothing else.
ALONE = _alone() if refcount is not _never else -1
