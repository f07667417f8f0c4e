"""The service manager's side of a daemon, on the standard library: socket activation
(``LISTEN_FDS``), readiness notification (``NOTIFY_SOCKET``) and journal log lines
(``JOURNAL_STREAM``), as systemd documents them in sd_listen_fds(3), sd_notify(3) and
sd-daemon(3), and the manager's own half of activation for a supervisor of our own
(`activation_socket`: ``serve --reload``). rfcs/0002-wire-decisions.md D-W40..D-W44 record the
choices.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
from collections.abc import Callable, Mapping, MutableMapping

from venom_proto._core.errors import VenomError

__all__ = (
    "LISTEN_FDS_START",
    "JournalFormatter",
    "activation_socket",
    "journal_stream_matches",
    "listen_fds",
    "notify",
)

#: The first descriptor a service manager passes (SD_LISTEN_FDS_START).
LISTEN_FDS_START = 3
_LISTEN_VARS = ("LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES")
#: At most this many passed descriptors are considered (a bound on a hostile environment).
_MAX_FDS = 64


def _activation_error(message: str) -> VenomError:
    return VenomError("failed.activation", message, {"variable": "LISTEN_FDS"})


def listen_fds(
    environ: MutableMapping[str, str] | None = None, *, unset: bool = True
) -> list[tuple[int, str]]:
    """The descriptors passed to this process by socket activation, with their names.

    Empty when ``LISTEN_PID`` is absent or names another process (the variables were meant for
    a parent and leaked: sd_listen_fds(3)). Each descriptor is made close-on-exec, and with
    ``unset`` the ``LISTEN_*`` variables are removed from ``environ`` (default ``os.environ``)
    so children never see them. Names come from ``LISTEN_FDNAMES`` (``unknown`` when absent).
    Raises ``failed.activation`` when the variables are malformed.
    """
    env: MutableMapping[str, str] = os.environ if environ is None else environ
    pid, count, names = (env.get(name) for name in _LISTEN_VARS)
    if unset:
        for name in _LISTEN_VARS:
            env.pop(name, None)
    if pid is None or count is None:
        return []
    if not pid.isdigit() or not count.isdigit():
        raise _activation_error(f"LISTEN_PID={pid!r} LISTEN_FDS={count!r} are not numbers")
    if int(pid) != os.getpid():
        return []
    n = int(count)
    if n > _MAX_FDS:
        raise _activation_error(f"LISTEN_FDS={n} passes more than {_MAX_FDS} descriptors")
    labels = names.split(":") if names else ["unknown"] * n
    if len(labels) != n:
        raise _activation_error(f"LISTEN_FDNAMES names {len(labels)} descriptors, not {n}")
    fds = list(range(LISTEN_FDS_START, LISTEN_FDS_START + n))
    for fd in fds:
        try:
            os.set_inheritable(fd, False)
        except OSError:
            raise _activation_error(f"descriptor {fd} of LISTEN_FDS={n} is not open") from None
    return list(zip(fds, labels, strict=True))


def activation_socket(
    path: str, backlog: int = 1024, on_locked: Callable[[str], object] | None = None
) -> socket.socket:
    """The service manager's half of socket activation: bind the daemon socket ``path`` as
    ``serve`` would, for passing to daemons as ``LISTEN_FDS`` (the descriptor is not inheritable:
    the caller places it at `LISTEN_FDS_START` in each child).

    RFC-0002 §2.5 steps 1-5 run as for a daemon's own socket: the runtime directory checked,
    the lock taken, a stale socket removed, ``on_locked(path)`` called (an owner token written
    before the socket exists), the socket bound with mode ``0600`` and listening. The lock is
    then released, for the daemon the socket is passed to takes it (an activated daemon locks
    as any other). The caller owns the path from then on, as a ``.socket`` unit does: it
    unlinks it when it stops. Raises `VenomError` as ``serve``'s start-up does
    (``conflict.already_running`` while a daemon holds the lock).
    """
    from venom_proto._server.startup import start_listening

    listener = start_listening(os.path.abspath(path), backlog, on_locked)
    sock = listener.sock.dup()
    listener.activated = True  # keep the path: the returned socket listens on it
    listener.close()
    sock.setblocking(True)
    return sock


def _notify_address(value: str) -> str | bytes | None:
    if value.startswith("@"):
        return b"\0" + value[1:].encode()  # a Linux abstract-namespace address
    if value.startswith("/"):
        return value
    return None  # vsock: and other families are not ours to speak


def notify(message: str, environ: Mapping[str, str] | None = None) -> bool:
    """Send ``message`` (``READY=1``, ``STOPPING=1``, ``STATUS=...``, newline-separated) to
    ``$NOTIFY_SOCKET``, as sd_notify(3). False, and nothing sent, when the variable is unset,
    names an address family other than a Unix path or ``@abstract`` name, or the send fails:
    a daemon never stops serving because its manager did not listen.
    """
    env = os.environ if environ is None else environ
    address = _notify_address(env.get("NOTIFY_SOCKET", ""))
    if address is None:
        return False
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.settimeout(1.0)
            sock.sendto(message.encode(), address)
    except OSError:
        return False
    return True


def journal_stream_matches(environ: Mapping[str, str] | None = None, fd: int = 2) -> bool:
    """Whether ``fd`` (stderr) is the journal stream ``$JOURNAL_STREAM`` (``dev:inode``) names.

    A child that redirected stderr keeps the variable but not the stream; only a match means
    the journal reads these lines (systemd.exec(5)).
    """
    env = os.environ if environ is None else environ
    device, sep, inode = env.get("JOURNAL_STREAM", "").partition(":")
    if not sep or not device.isdigit() or not inode.isdigit():
        return False
    with contextlib.suppress(OSError):
        st = os.fstat(fd)
        return (st.st_dev, st.st_ino) == (int(device), int(inode))
    return False


#: syslog priorities (sd-daemon(3)'s SD_ERR ... SD_DEBUG) of the logging levels.
_PRIORITIES = ((logging.CRITICAL, 2), (logging.ERROR, 3), (logging.WARNING, 4), (logging.INFO, 6))


class JournalFormatter(logging.Formatter):
    """``<N>name: message`` lines: the journal reads the priority and adds its own timestamp.

    Each line of a multi-line message (a traceback) carries the prefix, so none is logged at
    the default priority.
    """

    def __init__(self, fmt: str = "%(name)s: %(message)s") -> None:
        super().__init__(fmt)

    def format(self, record: logging.LogRecord) -> str:
        priority = next((p for level, p in _PRIORITIES if record.levelno >= level), 7)
        prefix = f"<{priority}>"
        return "\n".join(prefix + line for line in super().format(record).split("\n"))
