"""Socket location and runtime-directory checks (RFC-0002 2.1-2.4), shared by daemon and clients."""

from __future__ import annotations

import os
import stat
import sys

from venom_proto._core.errors import VenomError

# Named so mypy treats it as typing.TYPE_CHECKING; keeps annotation-only imports off the CLI path.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = (
    "SUN_PATH_LIMIT",
    "check_path_length",
    "default_runtime_dir",
    "ensure_runtime_dir",
    "env_var_for",
    "lock_path",
    "open_runtime_dir",
    "resolve_socket_path",
    "validate_tool_name",
    "verify_runtime_dir",
)

# Checked by hand rather than with a regex: `re` (with enum, functools...) would cost every CLI
# call a few ms, and this module is on its path.
_TOOL_START = frozenset("abcdefghijklmnopqrstuvwxyz")
_TOOL_CHARS = _TOOL_START | frozenset("0123456789-")
_TOOL_MAX = 32

#: Usable bytes of ``sockaddr_un.sun_path`` without the NUL: 108 - 1 on Linux, 104 - 1 on BSDs.
SUN_PATH_LIMIT = 107 if sys.platform.startswith("linux") else 103


def validate_tool_name(tool: str) -> str:
    """Return ``tool`` if it matches ``^[a-z][a-z0-9-]{0,31}$`` (2.1), else raise ``ValueError``."""
    if not (0 < len(tool) <= _TOOL_MAX and tool[0] in _TOOL_START and _TOOL_CHARS.issuperset(tool)):
        raise ValueError(f"invalid tool name {tool!r}: must match ^[a-z][a-z0-9-]{{0,31}}$")
    return tool


def env_var_for(tool: str) -> str:
    """The socket override variable for ``tool``: ``venom-echo`` -> ``VENOM_ECHO_SOCKET``."""
    return validate_tool_name(tool).upper().replace("-", "_") + "_SOCKET"


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
    """The socket path by the 2.3 order: ``--socket`` flag, ``<TOOL>_SOCKET``, default path.

    Empty values count as unset. The result is not length-checked; see `check_path_length`.
    """
    env = os.environ if environ is None else environ
    if flag:
        return flag
    override = env.get(env_var_for(tool), "")
    if override:
        return override
    return os.path.join(default_runtime_dir(env), f"{tool}.sock")


def lock_path(socket_path: str) -> str:
    """The lock file beside a socket: ``.sock`` replaced by ``.lock``, else ``.lock`` appended."""
    if socket_path.endswith(".sock"):
        return socket_path[: -len(".sock")] + ".lock"
    return socket_path + ".lock"


def check_path_length(path: str) -> None:
    """Raise ``unavailable.path_too_long`` if ``path`` does not fit in ``sun_path`` (2.3)."""
    if len(os.fsencode(path)) > SUN_PATH_LIMIT:
        raise VenomError(
            "unavailable.path_too_long",
            f"socket path is longer than {SUN_PATH_LIMIT} bytes; choose a shorter --socket",
            {"socket": path, "limit": SUN_PATH_LIMIT},
        )


def _insecure(path: str, problem: str, message: str) -> VenomError:
    return VenomError(
        "denied.insecure_path", f"{path}: {message}", {"path": path, "problem": problem}
    )


def _check_stat(path: str, st: os.stat_result) -> None:
    if stat.S_ISLNK(st.st_mode):
        raise _insecure(path, "symlink", "runtime directory is a symlink")
    if not stat.S_ISDIR(st.st_mode):
        raise _insecure(path, "not_a_directory", "runtime directory is not a directory")
    if st.st_uid != os.getuid():
        raise _insecure(path, "owner", f"runtime directory is owned by uid {st.st_uid}")
    if st.st_mode & 0o077:
        mode = stat.S_IMODE(st.st_mode)
        raise _insecure(path, "mode", f"runtime directory has mode {mode:04o}, expected 0700")


def verify_runtime_dir(path: str) -> None:
    """Check with ``lstat`` that ``path`` is a real directory of ours with mode ``0700`` at most.

    Raises ``denied.insecure_path`` with ``data.problem`` one of ``missing``, ``symlink``,
    ``not_a_directory``, ``owner`` or ``mode`` (RFC-0002 2.4).
    """
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        raise _insecure(path, "missing", "runtime directory does not exist") from None
    _check_stat(path, st)


def open_runtime_dir(path: str) -> int:
    """Create ``path`` with mode ``0700`` if missing, open it and verify what was opened.

    Returns a descriptor of the directory (``O_DIRECTORY | O_NOFOLLOW``, close-on-exec): the
    daemon does everything under it relative to that descriptor, so the checked directory is
    the one used even if the path is swapped afterwards. Only the last component gets
    ``0700`` (parents get default modes); an existing directory is never re-moded, so a wrong
    one is reported, not silently fixed (rfcs/0002-wire-decisions.md D-W20).
    """
    parent = os.path.dirname(path.rstrip("/"))
    if parent:
        os.makedirs(parent, exist_ok=True)
    try:
        os.mkdir(path, 0o700)
        created = True
    except FileExistsError:
        created = False
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        raise _insecure(path, "missing", "runtime directory does not exist") from None
    except OSError:  # ELOOP (a symlink) or ENOTDIR: say which, from lstat
        verify_runtime_dir(path)
        raise
    try:
        if created:
            # The umask can only narrow the mode; make it exactly 0700 (the owner must use it).
            os.fchmod(fd, 0o700)
        _check_stat(path, os.fstat(fd))
    except BaseException:
        os.close(fd)
        raise
    return fd


def ensure_runtime_dir(path: str) -> None:
    """`open_runtime_dir`, for callers that only need the directory to exist and pass 2.4."""
    os.close(open_runtime_dir(path))
