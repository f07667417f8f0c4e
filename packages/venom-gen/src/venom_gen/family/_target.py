"""What a ``venom`` TARGET names, and the one connection to it (RFC-0002 §2.3, rfcs/0006 §3-§4).

A TARGET is a tool name (its socket resolved as that tool's own CLI resolves it:
``<TOOL>_SOCKET``, then the runtime directory), a socket path, or an ``ssh://`` URL. The
``hello.auth`` it presents is every client's: ``<TOOL>_TOKEN`` when set, else, for a local
socket, the owner token beside it (`venom_proto.conventions.client_auth`).

On the path of ``venom call``: no ``typing``, ``json`` or ``socket`` import.
"""

from __future__ import annotations

import os

from venom_gen._version import VERSION
from venom_gen.cli._call import connect_timeout
from venom_proto import VenomError
from venom_proto.conventions import client_auth, is_tool_name, resolve_socket_path
from venom_proto.owner_token import owner_auth

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would cost every call ~3 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from venom_proto.sync_client import SyncClient

__all__ = ("CLIENT_NAME", "Session", "Target", "resolve_target")

#: What ``venom`` says it is in hello.
CLIENT_NAME = "venom"


class Target:
    """A resolved TARGET: the socket (a path or an ``ssh://`` URL) and the tool, if known."""

    __slots__ = ("remote", "socket", "text", "tool")

    def __init__(self, text: str, socket: str, tool: str | None) -> None:
        self.text = text
        self.socket = socket
        self.tool = tool
        self.remote = socket.startswith("ssh://")


def _stem_tool(path: str) -> str | None:
    """The tool of a ``<tool>.sock`` path, else None."""
    name = os.path.basename(path)
    if name.endswith(".sock") and is_tool_name(name[: -len(".sock")]):
        return name[: -len(".sock")]
    return None


def _usage(message: str, data: dict[str, Any]) -> VenomError:
    return VenomError("invalid_params.usage", message, data)


def resolve_target(text: str, *, tool: str | None, environ: Mapping[str, str]) -> Target:
    """Resolve TARGET; ``tool`` is ``--tool``, naming the tool of a path or URL that does not.

    A bare tool name wins over a file of that name in the working directory (``./name`` is the
    file), as ``git`` and ``docker`` read a remote's or a context's name.
    """
    if tool is not None and not is_tool_name(tool):
        raise _usage(f"--tool {tool!r} is not a tool name", {"tool": tool})
    if not text:
        raise _usage("TARGET is empty: give a tool name, a socket path or an ssh:// URL", {})
    if is_tool_name(text):
        # The tool's own order: <TOOL>_SOCKET (which may itself be an ssh:// URL), then the
        # runtime directory; --tool cannot rename a tool named outright.
        return Target(text, resolve_socket_path(text, None, environ), text)
    found = tool or _stem_tool(text)
    if text.startswith("ssh://") and found is None:
        raise _usage(
            f"{text}: name the remote tool with --tool TOOL, or end the URL's path with "
            "<tool>.sock",
            {"socket": text},
        )
    return Target(text, text, found)


class Session:
    """One connection to a target's daemon, hello done, with the auth it presented."""

    __slots__ = ("auth", "client", "environ", "target", "timeout")

    def __init__(self, target: Target, environ: Mapping[str, str]) -> None:
        self.target = target
        self.environ = environ
        # <TOOL>_CONNECT_TIMEOUT as the tool's CLI reads it; VENOM_CONNECT_TIMEOUT otherwise.
        self.timeout = connect_timeout(target.tool or CLIENT_NAME, environ)
        self.auth = self._auth()
        self.client = self._connect(self.auth)

    def _auth(self) -> dict[str, Any] | None:
        target = self.target
        if target.tool is not None:
            return client_auth(target.tool, target.socket, self.environ)
        return None if target.remote else owner_auth(target.socket)

    def _connect(self, auth: dict[str, Any] | None) -> SyncClient:
        from venom_proto.sync_client import SyncClient

        return SyncClient(
            self.target.socket,
            tool=self.target.tool,
            client_name=CLIENT_NAME,
            client_version=VERSION,
            caps=("cancel",),
            auth=auth,
            connect_timeout=self.timeout,
        )

    @property
    def hello(self) -> dict[str, Any]:
        """The daemon's hello result (RFC-0002 §6.2)."""
        return self.client.hello_result

    def as_owner_if_late(self) -> None:
        """Say hello again as the owner when no owner token existed before hello but one does
        now: this connection started the daemon (socket activation), which wrote it before
        serving us (rfcs/0001 §12), as the product CLI does."""
        if self.auth is not None or self.target.remote:
            return
        late = owner_auth(self.target.socket)
        if late is None:
            return
        self.client.close()
        self.auth = late
        self.client = self._connect(late)

    def close(self) -> None:
        self.client.close()
