"""The local conventions every Venom process on a machine shares, in one place.

The daemon, the generated CLI, the MCP adapter, the generators and the generated typed clients
all read these rules here, never from a copy of their own:

- names: tool names (RFC-0002 §2.1), dotted wire names (§4.2), param names and error-code
  components (RFC-0004 §3, §4), and the reversible MCP tool names (RFC-0004 §5);
- the environment: ``<TOOL>_<SUFFIX>`` variables (`env_var`) and the socket path order of
  RFC-0002 §2.3 (`resolve_socket_path`);
- the files beside a socket: its lock (§2.5) and the owner token (rfcs/0005-local-grants.md §3);
- the normalized model cached as JSON beside a product's manifest (`load_model`).

Standard library only, and on the path of every CLI call: no ``typing``, ``re`` or ``json``
import (names are checked by hand, the model is read with `venom_proto.stdjson`).
"""

from __future__ import annotations

import os

from ._core.errors import VenomError
from ._core.ids import is_verb_name
from .stdjson import _load_own

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would slow every CLI call.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

__all__ = (
    "CACHE_KEY",
    "MCP_NAME_MAX_BYTES",
    "PARAM_NAME_PATTERN",
    "TOKEN_HEX_DIGITS",
    "TOOL_NAME_PATTERN",
    "WIRE_NAME_PATTERN",
    "check_tool_name",
    "client_auth",
    "default_runtime_dir",
    "env_token_auth",
    "env_var",
    "is_name_component",
    "is_tool_name",
    "is_wire_name",
    "load_cache_info",
    "load_model",
    "lock_path",
    "mcp_decode",
    "mcp_name",
    "owner_auth",
    "read_owner_token",
    "resolve_socket_path",
    "token_path",
)

TOOL_NAME_PATTERN = r"^[a-z][a-z0-9-]{0,31}$"
WIRE_NAME_PATTERN = r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$"
PARAM_NAME_PATTERN = r"^[a-z][a-z0-9_]*$"
#: RFC-0004 §5: an encoded MCP tool name longer than this fails generation.
MCP_NAME_MAX_BYTES = 128
#: rfcs/0005-local-grants.md §3: an owner token is 32 random bytes as lowercase hex.
TOKEN_HEX_DIGITS = 64
#: The member of a model cache file that holds its digest and staleness key, not the model.
CACHE_KEY = "$cache"

_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
_TOOL_CHARS = _LOWER | frozenset("0123456789-")
_COMPONENT_CHARS = _LOWER | frozenset("0123456789_")
_TOOL_MAX = 32
_HEX = "0123456789abcdef"


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


def default_runtime_dir(environ: Mapping[str, str] | None = None) -> str:
    """``$XDG_RUNTIME_DIR/venom``, or ``${TMPDIR:-/tmp}/venom-<uid>`` when it is unset or empty."""
    env = os.environ if environ is None else environ
    xdg = env.get("XDG_RUNTIME_DIR", "")
    if xdg:
        return os.path.join(xdg, "venom")
    tmp = env.get("TMPDIR", "") or "/tmp"
    return os.path.join(tmp, f"venom-{os.getuid()}")


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


def _beside(socket_path: str, suffix: str) -> str:
    stem = socket_path[: -len(".sock")] if socket_path.endswith(".sock") else socket_path
    return stem + suffix


def lock_path(socket_path: str) -> str:
    """The lock file beside a socket: ``.sock`` replaced by ``.lock``, else ``.lock`` appended."""
    return _beside(socket_path, ".lock")


def token_path(socket_path: str) -> str:
    """The owner token beside a socket: ``.sock`` replaced by ``.token``, else appended."""
    return _beside(socket_path, ".token")


def read_owner_token(socket_path: str) -> str | None:
    """The owner token the daemon at ``socket_path`` wrote, or None when there is none to read.

    A symlink is never followed, and anything but 64 lowercase hex digits counts as no token.
    """
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(token_path(socket_path), flags)
        try:
            data = os.read(fd, 256)
        finally:
            os.close(fd)
    except OSError:
        return None
    token = data.strip().decode("ascii", "replace")
    if len(token) != TOKEN_HEX_DIGITS or token.strip(_HEX):
        return None
    return token


def owner_auth(socket_path: str) -> dict[str, Any] | None:
    """``{"token": ...}`` for ``hello.auth`` when the owner token is readable, else None: the
    daemon then treats the caller as unknown, with the read-only grants (rfcs/0005 §3)."""
    token = read_owner_token(socket_path)
    return None if token is None else {"token": token}


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


def _model_error(path: str | os.PathLike[str], detail: str) -> VenomError:
    return VenomError("internal.model", f"{os.fspath(path)!r} {detail}")


def _read_cache(path: str | os.PathLike[str]) -> dict[str, Any]:
    try:
        with open(path, "rb") as f:
            # Our own build output: no nesting scan on every CLI call (see _load_own).
            document = _load_own(f.read())
    except (OSError, ValueError) as exc:
        raise _model_error(path, f"cannot be read as a model: {exc}") from None
    if (
        not isinstance(document, dict)
        or type(document.get("format")) is not int
        or document["format"] != 1
        or not isinstance(document.get("tool"), str)
        or not isinstance(document.get("verbs"), list)
    ):
        raise _model_error(path, "is not a format 1 normalized model")
    return document


def load_model(path: str | os.PathLike[str]) -> Any:
    """The normalized model in the cache file at ``path`` (``verbs.model.json``).

    The result is the JSON object that `venom_schema.model.Model` describes, without the
    cache's own member; any defect raises ``internal.model`` (exit 11).
    """
    document = _read_cache(path)
    document.pop(CACHE_KEY, None)
    return document


def load_cache_info(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The cache member of the model file at ``path``: ``{"key", "digest", "bundles"}``.

    Raises ``internal.model`` when the file is no model cache or has no such member.
    """
    info = _read_cache(path).get(CACHE_KEY)
    if not isinstance(info, dict):
        raise _model_error(path, "has no model cache information")
    return info
