"""The serve start-up and clean shutdown sequence of RFC-0002 2.5: lock, stale socket, bind."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import socket
import stat
from collections.abc import Callable

from venom_proto._core.errors import VenomError

from .paths import check_path_length, ensure_runtime_dir, lock_path

__all__ = ("Listener", "acquire_lock", "bind_listener", "remove_stale_socket", "start_listening")


def acquire_lock(path: str) -> int:
    """Open and ``flock`` the lock file (step 2); a live daemon gives ``conflict.already_running``.

    Returns the open descriptor, which holds the lock until it is closed (or the process dies).
    """
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        raise VenomError(
            "failed.lock", f"cannot open lock file {path}: {exc.strerror}", {"lock": path}
        ) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        os.close(fd)
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            raise VenomError(
                "conflict.already_running", "another daemon holds the lock", {"lock": path}
            ) from None
        raise VenomError(
            "failed.lock", f"cannot lock {path}: {exc.strerror}", {"lock": path}
        ) from None
    return fd


def remove_stale_socket(path: str) -> None:
    """With the lock held (step 3): unlink a leftover socket; refuse anything that is not one."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(st.st_mode):
        raise VenomError(
            "conflict.not_a_socket",
            f"{path} exists and is not a socket; not touching it",
            {"socket": path},
        )
    # The lock is ours, so no daemon is listening here: the socket is stale.
    os.unlink(path)


def bind_listener(path: str, backlog: int = 1024) -> socket.socket:
    """Bind and listen on ``path`` with mode ``0600`` and no wider window (step 4)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        # umask is process-wide; 0177 makes bind create the inode as 0600 from the start.
        old_umask = os.umask(0o177)
        try:
            sock.bind(path)
        finally:
            os.umask(old_umask)
        os.chmod(path, 0o600)
        sock.listen(backlog)
        sock.setblocking(False)
    except OSError as exc:
        sock.close()
        raise VenomError(
            "failed.bind", f"cannot listen on {path}: {exc.strerror}", {"socket": path}
        ) from None
    return sock


class Listener:
    """A listening socket plus the lock that makes it ours; `close` is shutdown step 8."""

    __slots__ = ("_lock_fd", "lock_path", "path", "sock")

    def __init__(self, path: str, sock: socket.socket, lock_fd: int, lock_file: str) -> None:
        self.path = path
        self.sock = sock
        self.lock_path = lock_file
        self._lock_fd = lock_fd

    def close(self) -> None:
        """Unlink the socket, then close the lock file (releasing the ``flock``). Idempotent."""
        if self._lock_fd < 0:
            return
        self.sock.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        os.close(self._lock_fd)
        self._lock_fd = -1


def _write_pid(fd: int) -> None:
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)


def start_listening(
    path: str, backlog: int = 1024, on_locked: Callable[[str], object] | None = None
) -> Listener:
    """Run steps 1-5 of 2.5 for the socket ``path`` and return the live `Listener`.

    ``on_locked(path)`` runs once this process holds the lock and before the socket exists, so
    whatever it writes beside the socket (an owner token) is there before any client connects;
    a daemon that loses the race never calls it.

    Raises `VenomError`: ``unavailable.path_too_long``, ``denied.insecure_path``,
    ``conflict.already_running``, ``conflict.not_a_socket``, ``failed.lock``, ``failed.bind``,
    or ``failed.startup`` for any other system error (data names the socket).
    """
    try:
        return _start(path, backlog, on_locked)
    except OSError as exc:
        raise VenomError(
            "failed.startup", f"cannot start on {path}: {exc.strerror or exc}", {"socket": path}
        ) from None


def _start(path: str, backlog: int, on_locked: Callable[[str], object] | None) -> Listener:
    check_path_length(path)
    ensure_runtime_dir(os.path.dirname(os.path.abspath(path)))
    lock_file = lock_path(path)
    fd = acquire_lock(lock_file)
    try:
        remove_stale_socket(path)
        if on_locked is not None:
            on_locked(path)
        sock = bind_listener(path, backlog)
    except BaseException:
        os.close(fd)
        raise
    listener = Listener(path, sock, fd, lock_file)
    try:
        _write_pid(fd)
    except OSError:
        listener.close()
        raise
    return listener
