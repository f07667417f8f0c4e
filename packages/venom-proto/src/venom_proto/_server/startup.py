"""The serve start-up and clean shutdown sequence of RFC-0002 2.5: lock, stale socket, bind.

The runtime directory is opened once and checked through its descriptor; the lock file, the
stale-socket check, the unlink and the chmod happen relative to it and none of them follows a
symlink. ``bind`` alone takes the path (the kernel records the name it is given, and tools show
it), and the socket it made is then checked, through the descriptor, to be the one in the
checked directory (rfcs/0002-wire-decisions.md D-W30).
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import stat
from collections.abc import Callable

from venom_proto._core.errors import VenomError
from venom_proto.daemon_lock import acquire_lock, lock_path, write_pid
from venom_proto.paths import check_path_length, open_runtime_dir

__all__ = (
    "Listener",
    "adopt_listener",
    "bind_listener",
    "check_passed_socket",
    "remove_stale_socket",
    "start_listening",
)


def remove_stale_socket(name: str, dir_fd: int, shown: str) -> None:
    """With the lock held (step 3): unlink a leftover socket; refuse anything that is not one."""
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(st.st_mode):
        raise VenomError(
            "conflict.not_a_socket",
            f"{shown} exists and is not a socket; not touching it",
            {"socket": shown},
        )
    # The lock is ours, so no daemon is listening here: the socket is stale.
    os.unlink(name, dir_fd=dir_fd)


def bind_listener(name: str, dir_fd: int, shown: str, backlog: int = 1024) -> socket.socket:
    """Bind and listen on ``name`` in ``dir_fd`` with mode ``0600`` and no wider window (step 4)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        # umask is process-wide; 0177 makes bind create the inode as 0600 from the start.
        old_umask = os.umask(0o177)
        try:
            # By path: the kernel keeps the name given, and `ss -x` or /proc/net/unix show it.
            sock.bind(shown)
        finally:
            os.umask(old_umask)
        _same_file(name, dir_fd, shown)
        try:
            # fchmodat(AT_SYMLINK_NOFOLLOW): refuses (ValueError) rather than follow a symlink.
            os.chmod(name, 0o600, dir_fd=dir_fd, follow_symlinks=False)
        except (NotImplementedError, ValueError):
            st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            if not stat.S_ISSOCK(st.st_mode) or stat.S_IMODE(st.st_mode) != 0o600:
                raise OSError(errno.EPERM, "the socket was replaced while binding") from None
        sock.listen(backlog)
        sock.setblocking(False)
    except OSError as exc:
        sock.close()
        raise VenomError(
            "failed.bind", f"cannot listen on {shown}: {exc.strerror}", {"socket": shown}
        ) from None
    return sock


def _same_file(name: str, dir_fd: int, shown: str) -> None:
    """The socket just bound at ``shown`` must be ``name`` in the checked directory."""
    here = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    there = os.stat(shown, follow_symlinks=False)
    if not stat.S_ISSOCK(here.st_mode) or (here.st_dev, here.st_ino) != (
        there.st_dev,
        there.st_ino,
    ):
        raise OSError(errno.EPERM, "the runtime directory was replaced while binding")


class Listener:
    """A listening socket plus the lock that makes it ours; `close` is shutdown step 8."""

    __slots__ = ("_dir_fd", "_lock_fd", "_name", "activated", "lock_path", "path", "sock")

    def __init__(
        self,
        path: str,
        sock: socket.socket,
        dir_fd: int,
        lock_fd: int,
        lock_file: str,
        *,
        activated: bool = False,
    ) -> None:
        self.path = path
        self.sock = sock
        self.lock_path = lock_file
        #: The socket came from the service manager, which keeps listening on it after us.
        self.activated = activated
        self._name = os.path.basename(path)
        self._dir_fd = dir_fd
        self._lock_fd = lock_fd

    def close(self) -> None:
        """Unlink the socket, then close the lock file (releasing the ``flock``). Idempotent.

        An activated socket is closed but not unlinked: the service manager still listens on
        it and starts the next daemon when a client connects.
        """
        if self._lock_fd < 0:
            return
        self.sock.close()
        if not self.activated:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self._name, dir_fd=self._dir_fd)
        os.close(self._lock_fd)
        os.close(self._dir_fd)
        self._lock_fd = self._dir_fd = -1


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
    dir_fd = open_runtime_dir(os.path.dirname(os.path.abspath(path)))
    try:
        lock_file = lock_path(path)
        lock_fd = acquire_lock(os.path.basename(lock_file), dir_fd, lock_file)
    except BaseException:
        os.close(dir_fd)
        raise
    name = os.path.basename(path)
    try:
        remove_stale_socket(name, dir_fd, path)
        if on_locked is not None:
            on_locked(path)
        sock = bind_listener(name, dir_fd, path, backlog)
    except BaseException:
        os.close(lock_fd)
        os.close(dir_fd)
        raise
    listener = Listener(path, sock, dir_fd, lock_fd, lock_file)
    try:
        write_pid(lock_fd)
    except OSError:
        listener.close()
        raise
    return listener


def _refuse_passed(path: str, message: str) -> VenomError:
    return VenomError("failed.activation", f"{path}: {message}", {"socket": path})


def _passed_at(fd: int, path: str) -> socket.socket | None:
    """The passed descriptor ``fd`` as a socket, if it is a Unix socket bound at ``path``."""
    try:
        sock = socket.socket(fileno=fd)
    except OSError:
        return None  # not a socket at all
    if sock.family != socket.AF_UNIX or sock.getsockname() != path:
        sock.detach()
        return None
    return sock


def check_passed_socket(sock: socket.socket, name: str, dir_fd: int, shown: str) -> None:
    """RFC-0002 2.4 for a socket the service manager bound: a listening Unix stream socket,
    and ``name`` in the checked runtime directory a socket of ours with mode ``0600``."""
    if sock.type != socket.SOCK_STREAM or not sock.getsockopt(
        socket.SOL_SOCKET, socket.SO_ACCEPTCONN
    ):
        raise _refuse_passed(shown, "the passed socket is not a listening stream socket")
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        raise _refuse_passed(shown, "the passed socket's path no longer exists") from None
    problem = (
        "not_a_socket"
        if not stat.S_ISSOCK(st.st_mode)
        else "owner"
        if st.st_uid != os.getuid()
        else "mode"
        if stat.S_IMODE(st.st_mode) != 0o600
        else None
    )
    if problem is not None:
        raise VenomError(
            "denied.insecure_path",
            f"{shown}: the passed socket has mode {stat.S_IMODE(st.st_mode):04o} and uid"
            f" {st.st_uid}; expected a socket with mode 0600 owned by uid {os.getuid()}"
            " (SocketMode=0600 in the .socket unit)",
            {"path": shown, "problem": problem},
        )


def adopt_listener(
    path: str, fds: list[int], on_locked: Callable[[str], object] | None = None
) -> Listener:
    """Steps 1, 2 and 5 of 2.5 for a socket passed by socket activation (sd_listen_fds(3)).

    The passed socket must be bound at ``path`` (the resolved one) and pass the checks of
    `check_passed_socket`; the lock is taken as for a socket of our own, and the stale-socket
    step does not apply (the manager owns the path). Raises as `start_listening`, and
    ``failed.activation`` when no passed socket is a Unix socket bound at ``path``.
    """
    try:
        return _adopt(os.path.abspath(path), fds, on_locked)
    except OSError as exc:
        raise VenomError(
            "failed.startup", f"cannot start on {path}: {exc.strerror or exc}", {"socket": path}
        ) from None


def _adopt(path: str, fds: list[int], on_locked: Callable[[str], object] | None) -> Listener:
    check_path_length(path)
    found = [sock for sock in (_passed_at(fd, path) for fd in fds) if sock is not None]
    if not found:
        raise _refuse_passed(
            path,
            f"none of the {len(fds)} passed descriptors is a Unix socket bound here"
            " (the .socket unit's ListenStream= must be the path serve resolves)",
        )
    sock = found[0]
    try:
        dir_fd = open_runtime_dir(os.path.dirname(path))
        try:
            check_passed_socket(sock, os.path.basename(path), dir_fd, path)
            lock_file = lock_path(path)
            lock_fd = acquire_lock(os.path.basename(lock_file), dir_fd, lock_file)
        except BaseException:
            os.close(dir_fd)
            raise
        try:
            if on_locked is not None:
                on_locked(path)
            write_pid(lock_fd)
        except BaseException:
            os.close(lock_fd)
            os.close(dir_fd)
            raise
    except BaseException:
        sock.detach()  # the manager's descriptor: left open as it was passed
        raise
    sock.setblocking(False)
    return Listener(path, sock, dir_fd, lock_fd, lock_file, activated=True)
