"""Client-side socket path checks and connect-error mapping (RFC-0002 2.3-2.5), shared by both
clients. Light on imports: the sync client runs it on every CLI call."""

from __future__ import annotations

import errno
import os

from ._core.errors import VenomError
from ._version import VERSION
from .paths import check_path_length, verify_runtime_dir

__all__ = (
    "CONNECT_TIMEOUT",
    "DEFAULT_CLIENT_NAME",
    "DEFAULT_CLIENT_VERSION",
    "client_socket_path",
    "connect_error",
    "disconnected",
    "not_running",
    "prepare_socket_path",
    "timed_out",
    "unresponsive",
)

#: Default bound, in seconds, on connecting and completing hello (rfcs/0002-wire-decisions.md
#: D-W33), for both clients: RFC-0002 §3's bound on a server waiting for hello, seen from the
#: client.
CONNECT_TIMEOUT = 10.0

#: What a client says it is in hello when its program names nothing better: this library.
DEFAULT_CLIENT_NAME = "venom-proto"
DEFAULT_CLIENT_VERSION = VERSION


def client_socket_path(socket_path: str | os.PathLike[str] | None, tool: str | None) -> str:
    """Where a client connects: ``socket_path`` if given, else ``tool``'s default socket.

    The default is `venom_proto.conventions.resolve_socket_path`'s (``<TOOL>_SOCKET``, then
    the runtime directory), the same place the tool's CLI and daemon use. ``TypeError`` when
    neither is given.
    """
    if socket_path is not None:
        return os.fspath(socket_path)
    if tool is None:
        raise TypeError("a client needs a socket path or a tool name (tool=...)")
    from .conventions import resolve_socket_path  # only a client named by its tool needs it

    return resolve_socket_path(tool)


def prepare_socket_path(path: str) -> str:
    """Check ``path`` before connecting; return it as ``str``.

    The length must fit ``sun_path`` (``unavailable.path_too_long``). The directory the socket
    lives in, the default runtime directory or an overridden one alike, must pass the 2.4
    checks (``denied.insecure_path``), as the daemon's does: both sides MUST check it. A
    missing one just means no daemon ever ran there, which ``connect`` reports as
    ``unavailable.not_running``.
    """
    path = os.fspath(path)
    check_path_length(path)
    parent = os.path.dirname(os.path.abspath(path))
    if os.path.lexists(parent):
        verify_runtime_dir(parent)
    return path


def not_running(path: str) -> VenomError:
    """``unavailable.not_running`` for ``path`` (exit 6)."""
    return VenomError("unavailable.not_running", f"no daemon at {path}", {"socket": path})


def unresponsive(socket: str, timeout: float) -> VenomError:
    """``unavailable.unresponsive`` (exit 6): connect plus hello took over ``timeout`` s."""
    return VenomError(
        "unavailable.unresponsive",
        f"the daemon at {socket} did not complete hello within {timeout:g} s",
        {"socket": socket, "timeout": timeout},
    )


def timed_out(what: str) -> VenomError:
    """``timeout`` (exit 7): one wait of a call ran past the client's ``timeout``."""
    return VenomError("timeout", f"the daemon did not {what} in time")


def connect_error(path: str, exc: OSError) -> VenomError:
    """Map a failed ``connect``: ENOENT and ECONNREFUSED mean no daemon is running."""
    if exc.errno in (errno.ENOENT, errno.ECONNREFUSED):
        return not_running(path)
    if exc.errno in (errno.EACCES, errno.EPERM):
        return VenomError("denied", f"cannot connect to {path}: {exc.strerror}", {"socket": path})
    code = errno.errorcode.get(exc.errno or 0, "unknown")
    return VenomError(
        "unavailable",
        f"cannot connect to {path}: {exc.strerror or exc}",
        {"socket": path, "errno": code},
    )


def disconnected(exc: BaseException | None = None) -> VenomError:
    """``unavailable.disconnected``: the daemon went away mid-conversation."""
    detail = f": {exc}" if exc is not None else ""
    return VenomError("unavailable.disconnected", f"connection to the daemon lost{detail}")
