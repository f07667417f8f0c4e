"""What both clients do before and around I/O: reading their constructor's arguments
(`ClientSetup`), socket path checks and the mapping of connect errors and timeouts
(RFC-0002 2.3-2.5). Light on imports: the sync client runs it on every CLI call."""

from __future__ import annotations

import errno
import os

from ._client_core import ClientCore, hello_params
from ._core.errors import VenomError
from ._version import VERSION
from .conventions import DefaultAuth, default_auth
from .paths import check_path_length, verify_runtime_dir

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would cost the CLI ~2 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from ._client_core import Dumps, Loads
    from .ssh import SshTarget

__all__ = (
    "CONNECT_TIMEOUT",
    "DEFAULT_CLIENT_NAME",
    "DEFAULT_CLIENT_VERSION",
    "ClientSetup",
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


class ClientSetup:
    """What a client makes of its constructor's arguments, before any I/O.

    ``socket_path`` or ``tool`` name the daemon (`client_socket_path`); an ``ssh://`` URL
    gives :attr:`ssh`, the target and the remote tool. ``auth`` `DEFAULT_AUTH` is resolved as
    the CLI resolves it (`venom_proto.conventions.default_auth`: ``<TOOL>_TOKEN``, else the
    owner token beside a local socket; over ssh, the remote tool's variable, rfcs/0006 §4);
    None presents no token. ``binary`` picks the core; the binary one is imported
    only then, so the CLI's NDJSON calls never load it.
    """

    __slots__ = ("core", "hello", "socket_path", "ssh")

    def __init__(
        self,
        socket_path: str | os.PathLike[str] | None,
        *,
        tool: str | None,
        client_name: str,
        client_version: str,
        caps: Iterable[str],
        auth: dict[str, Any] | DefaultAuth | None,
        max_frame: int | None,
        binary: bool,
        loads: Loads,
        dumps: Dumps,
    ) -> None:
        self.socket_path = client_socket_path(socket_path, tool)
        #: The ssh target and the remote tool when the path is an ``ssh://`` URL, else None.
        self.ssh: tuple[SshTarget, str] | None = None
        if self.socket_path.startswith("ssh://"):
            from .ssh import parse_ssh_url, remote_tool

            target = parse_ssh_url(self.socket_path)
            self.ssh = (target, remote_tool(target, tool))
            tool = self.ssh[1]
        if isinstance(auth, DefaultAuth):
            auth = default_auth(tool, self.socket_path)
        self.hello = hello_params(
            client_name=client_name,
            client_version=client_version,
            caps=caps,
            auth=auth,
            max_frame=max_frame,
        )
        self.core: ClientCore
        if binary:
            from ._client_binary import BinaryClientCore

            self.core = BinaryClientCore(loads=loads, dumps=dumps, max_frame=max_frame)
        else:
            self.core = ClientCore(loads=loads, dumps=dumps, max_frame=max_frame)


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
