"""The lock file beside a daemon's socket (RFC-0002 §2.5): its one owner.

``serve`` takes an exclusive ``flock`` on ``<socket stem>.lock`` before anything else and
writes its PID into it (`acquire_lock`, `write_pid`); the lock lasts as long as the process.
Whoever wants to know whether a daemon owns a socket asks the lock, never the socket
(`lock_holder`: ``doctor``'s stale-socket check).
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat

from ._core.errors import VenomError
from .paths import beside_socket

__all__ = ("acquire_lock", "lock_holder", "lock_path", "write_pid")


def lock_path(socket_path: str) -> str:
    """The lock file beside a socket: ``.sock`` replaced by ``.lock``, else ``.lock`` appended."""
    return beside_socket(socket_path, ".lock")


def acquire_lock(name: str, dir_fd: int, shown: str) -> int:
    """Open and ``flock`` the lock file ``name`` in ``dir_fd`` (step 2; never via a symlink).

    A live daemon gives ``conflict.already_running``. Returns the open descriptor, which holds
    the lock until it is closed (or the process dies). ``shown`` is the path for messages.
    """
    flags = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW
    try:
        fd = os.open(name, flags, 0o600, dir_fd=dir_fd)
    except OSError as exc:
        raise VenomError(
            "failed.lock", f"cannot open lock file {shown}: {exc.strerror}", {"lock": shown}
        ) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise VenomError("failed.lock", f"{shown} is not a regular file", {"lock": shown})
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        os.close(fd)
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            raise VenomError(
                "conflict.already_running", "another daemon holds the lock", {"lock": shown}
            ) from None
        raise VenomError(
            "failed.lock", f"cannot lock {shown}: {exc.strerror}", {"lock": shown}
        ) from None
    except BaseException:
        os.close(fd)
        raise
    return fd


def write_pid(fd: int) -> None:
    """Record this process's PID in the lock file open at ``fd`` (which it holds)."""
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)


def lock_holder(socket_path: str) -> str | None:
    """The PID written in the lock file beside ``socket_path`` if a live daemon holds it, else
    None (``""`` when the holder wrote none yet)."""
    try:
        fd = os.open(lock_path(socket_path), os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                return os.read(fd, 32).decode("ascii", "replace").strip()
            return None
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None  # we could take the lock, so nobody holds it
    finally:
        os.close(fd)
