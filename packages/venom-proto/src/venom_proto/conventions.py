"""The local conventions every Venom process on a machine shares, in one place.

The daemon, the generated CLI, the MCP adapter, the generators and the generated typed clients
all read these rules here, never from a copy of their own:

- names: tool names (RFC-0002 §2.1), dotted wire names (§4.2), param names and error-code
  components (RFC-0004 §3, §4), and the reversible MCP tool names (RFC-0004 §5);
- the environment: ``<TOOL>_<SUFFIX>`` variables (`env_var`) and the socket path order of
  RFC-0002 §2.3 (`resolve_socket_path`);
- the ``hello.auth`` a client presents (`client_auth`: rfcs/0006 §4), which is also what
  ``SyncClient``, ``AsyncClient`` and the typed clients present by default (`DEFAULT_AUTH`,
  `default_auth`).

Each file has its own owner module, which both writes and reads it: the lock beside a socket
(`venom_proto.daemon_lock`), the owner token (`venom_proto.owner_token`), the model cache
beside a manifest (`venom_proto.model_cache`); the directories they live in are resolved by
`venom_proto.paths`.

Standard library only, and on the path of every CLI call: no ``typing``, ``re`` or ``json``
import (names are checked by hand).
"""

from __future__ import annotations

import os

from ._core.errors import is_verb_name
from .owner_token import owner_auth
from .paths import default_runtime_dir

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would slow every CLI call.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

__all__ = (
    "DEFAULT_AUTH",
    "MCP_NAME_MAX_BYTES",
    "PARAM_NAME_PATTERN",
    "TOOL_NAME_PATTERN",
    "WIRE_NAME_PATTERN",
    "DefaultAuth",
    "check_tool_name",
    "client_auth",
    "default_auth",
    "env_token_auth",
    "env_var",
    "is_name_component",
    "is_tool_name",
    "is_wire_name",
    "mcp_decode",
    "mcp_name",
    "resolve_socket_path",
)

TOOL_NAME_PATTERN = r"^[a-z][a-z0-9-]{0,31}$"
WIRE_NAME_PATTERN = r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$"
PARAM_NAME_PATTERN = r"^[a-z][a-z0-9_]*$"
#: RFC-0004 §5: an encoded MCP tool name longer than this fails generation.
MCP_NAME_MAX_BYTES = 128

_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
_TOOL_CHARS = _LOWER | frozenset("0123456789-")
_COMPONENT_CHARS = _LOWER | frozenset("0123456789_")
_TOOL_MAX = 32


def is_tool_name(name: str) -> bool:
    """True for an RFC-0002 §2.1 tool name such as ``venom-echo``."""
    return 0 < len(name) <= _TOOL_MAX and name[0] in _LOWER and _TOOL_CHARS.issuperset(name)


def check_tool_name(tool: str) -> str:
    """Return ``tool`` if it is a tool name (`is_tool_name`), else raise ``ValueError``."""
    if not is_tool_name(tool):
        raise ValueError(f"invalid tool name {tool!r}: must match {TOOL_NAME_PATTERN}")
    return tool


def is_wire_name(name: str) -> bool:
    """True for an RFC-0002 §4.2 verb name such as ``pane.set_title``."""
    return is_verb_name(name)


def is_name_component(name: str) -> bool:
    """True for a param name (RFC-0004 §4) or one component of an error code (§3)."""
    return name[:1] in _LOWER and _COMPONENT_CHARS.issuperset(name)


def env_var(tool: str, suffix: str) -> str:
    """The variable ``<TOOL>_<SUFFIX>``: ``env_var("venom-echo", "SOCKET")`` is
    ``VENOM_ECHO_SOCKET`` (RFC-0002 §2.3: upper case, ``-`` as ``_``)."""
    return check_tool_name(tool).upper().replace("-", "_") + "_" + suffix


def resolve_socket_path(
    tool: str, flag: str | None = None, environ: Mapping[str, str] | None = None
) -> str:
    """The socket path by the RFC-0002 §2.3 order: the ``--socket`` flag, ``<TOOL>_SOCKET``,
    then ``<runtime dir>/<tool>.sock``. Empty values count as unset; ``ValueError`` for a
    ``tool`` that is not a tool name. The length is checked when connecting or binding."""
    if flag:
        return flag
    env = os.environ if environ is None else environ
    override = env.get(env_var(tool, "SOCKET"), "")
    if override:
        return override
    return os.path.join(default_runtime_dir(env), f"{tool}.sock")


def env_token_auth(tool: str, environ: Mapping[str, str] | None = None) -> dict[str, Any] | None:
    """``{"token": $<TOOL>_TOKEN}`` for ``hello.auth`` when the variable is set (rfcs/0006 §4)."""
    env = os.environ if environ is None else environ
    token = env.get(env_var(tool, "TOKEN"), "").strip()
    return {"token": token} if token else None


def client_auth(
    tool: str, socket_path: str, environ: Mapping[str, str] | None = None
) -> dict[str, Any] | None:
    """``hello.auth`` for a client of ``tool``: ``<TOOL>_TOKEN`` when set, else, for a local
    socket, the owner token beside it (rfcs/0005 §3); a remote daemon's token file is not ours
    to read (rfcs/0006 §4), so an ``ssh://`` socket without the variable gets None."""
    auth = env_token_auth(tool, environ)
    if auth is not None or socket_path.startswith("ssh://"):
        return auth
    return owner_auth(socket_path)


class DefaultAuth:
    """The type of `DEFAULT_AUTH`, the clients' default ``auth``: present what `default_auth`
    resolves, as the generated CLI does."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "DEFAULT_AUTH"


#: A client's ``auth`` default: ``$<TOOL>_TOKEN`` when set, else the owner token beside a local
#: socket (`default_auth`). ``auth=None`` presents no token; a dict is ``hello.auth`` as given.
DEFAULT_AUTH = DefaultAuth()


def default_auth(
    tool: str | None, socket_path: str, environ: Mapping[str, str] | None = None
) -> dict[str, Any] | None:
    """What a client presents when given no ``auth``: `client_auth` of ``tool``, or, for a
    client named by its socket path alone, the owner token beside a local socket
    (rfcs/0002-wire-decisions.md D-W45)."""
    if tool is not None:
        return client_auth(tool, socket_path, environ)
    return None if socket_path.startswith("ssh://") else owner_auth(socket_path)


def mcp_name(wire: str) -> str:
    """The reversible MCP tool name: each ``_`` becomes ``__``, each ``.`` ``_d`` (RFC-0004 §5).

    The 128-byte limit (`MCP_NAME_MAX_BYTES`) is for the manifest validator to enforce.
    """
    return wire.replace("_", "__").replace(".", "_d")


def mcp_decode(name: str) -> str:
    """Invert `mcp_name`; ``ValueError`` for a name no wire name encodes to."""
    out: list[str] = []
    i = 0
    while i < len(name):
        char = name[i]
        if char != "_":
            out.append(char)
            i += 1
            continue
        escape = name[i + 1 : i + 2]
        if escape == "_":
            out.append("_")
        elif escape == "d":
            out.append(".")
        else:
            raise ValueError(f"not an encoded MCP tool name: {name!r}")
        i += 2
    wire = "".join(out)
    if not is_wire_name(wire):
        raise ValueError(f"not an encoded MCP tool name: {name!r}")
    return wire
