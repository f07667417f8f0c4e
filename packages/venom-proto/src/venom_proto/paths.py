"""Where a Venom process keeps its files: the XDG directories, once, and the runtime directory.

Every package resolves its directories here and nowhere else: the runtime directory of
RFC-0002 §2.3 (`default_runtime_dir`, under `xdg_runtime_dir`), the XDG base directories
(`config_home`, `data_home`, `state_home`, `cache_home`: the variable when it holds an
absolute path, as the XDG spec says, else the default under ``$HOME``) and the files beside a
socket (`beside_socket`). Where the socket itself is (the §2.3 order) is a local convention:
`venom_proto.conventions`.

The daemon creates its runtime directory with `open_runtime_dir`; clients and ``doctor`` check
one with `verify_runtime_dir` and a path with `check_path_length` (RFC-0002 2.3-2.4). On the
path of every CLI call: ``os``, ``stat`` and ``sys`` only.
"""

from __future__ import annotations

import os
import stat
import sys

from venom_proto._core.errors import VenomError

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would slow every CLI call.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = (
    "SUN_PATH_LIMIT",
    "beside_socket",
    "cache_home",
    "check_path_length",
    "config_home",
    "data_home",
    "default_runtime_dir",
    "ensure_runtime_dir",
    "open_runtime_dir",
    "state_home",
    "verify_runtime_dir",
    "xdg_runtime_dir",
)

#: Usable bytes of ``sockaddr_un.sun_path`` without the NUL: 108 - 1 on Linux, 104 - 1 on BSDs.
SUN_PATH_LIMIT = 107 if sys.platform.startswith("linux") else 103


def xdg_runtime_dir(environ: Mapping[str, str] | None = None) -> str | None:
    """``$XDG_RUNTIME_DIR``, or None when it is unset or empty."""
    env = os.environ if environ is None else environ
    return env.get("XDG_RUNTIME_DIR") or None


def default_runtime_dir(environ: Mapping[str, str] | None = None) -> str:
    """``$XDG_RUNTIME_DIR/venom``, or ``${TMPDIR:-/tmp}/venom-<uid>`` when it is unset or empty."""
    env = os.environ if environ is None else environ
    xdg = xdg_runtime_dir(env)
    if xdg is not None:
        return os.path.join(xdg, "venom")
    tmp = env.get("TMPDIR", "") or "/tmp"
    return os.path.join(tmp, f"venom-{os.getuid()}")


def _xdg_home(variable: str, default: str, environ: Mapping[str, str] | None) -> str:
    env = os.environ if environ is None else environ
    value = env.get(variable, "")
    if os.path.isabs(value):
        return value
    # Unset, empty or relative: the XDG spec's default, under $HOME.
    home = env.get("HOME") or os.path.expanduser("~")
    return os.path.join(home, default)


def config_home(environ: Mapping[str, str] | None = None) -> str:
    """``$XDG_CONFIG_HOME``, else ``$HOME/.config``."""
    return _xdg_home("XDG_CONFIG_HOME", ".config", environ)


def data_home(environ: Mapping[str, str] | None = None) -> str:
    """``$XDG_DATA_HOME``, else ``$HOME/.local/share``."""
    return _xdg_home("XDG_DATA_HOME", os.path.join(".local", "share"), environ)


def state_home(environ: Mapping[str, str] | None = None) -> str:
    """``$XDG_STATE_HOME``, else ``$HOME/.local/state``."""
    return _xdg_home("XDG_STATE_HOME", os.path.join(".local", "state"), environ)


def cache_home(environ: Mapping[str, str] | None = None) -> str:
    """``$XDG_CACHE_HOME``, else ``$HOME/.cache``."""
    return _xdg_home("XDG_CACHE_HOME", ".cache", environ)


def beside_socket(socket_path: str, suffix: str) -> str:
    """A file beside a socket: its ``.sock`` replaced by ``suffix``, else ``suffix`` appended
    (the lock file's ``.lock``, the owner token's ``.token``)."""
    stem = socket_path[: -len(".sock")] if socket_path.endswith(".sock") else socket_path
    return stem + suffix


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
