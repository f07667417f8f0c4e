"""Socket path resolution, lock path, path length and runtime-directory checks (RFC-0002 2)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from venom_proto import VenomError
from venom_proto.conventions import check_tool_name, env_var, resolve_socket_path
from venom_proto.daemon_lock import lock_path
from venom_proto.paths import (
    SUN_PATH_LIMIT,
    check_path_length,
    default_runtime_dir,
    ensure_runtime_dir,
    verify_runtime_dir,
)


@pytest.mark.parametrize("name", ["venomx", "venom", "venom-mem", "venom-echo", "a", "a" * 32])
def test_valid_tool_names(name: str) -> None:
    """RFC-0002 §2.1: tool names match ^[a-z][a-z0-9-]{0,31}$."""
    assert check_tool_name(name) == name


@pytest.mark.parametrize("name", ["", "Venom", "1venom", "-x", "venom_echo", "a" * 33, "ven om"])
def test_invalid_tool_names(name: str) -> None:
    """RFC-0002 §2.1: anything else is refused."""
    with pytest.raises(ValueError, match="invalid tool name"):
        check_tool_name(name)


def test_env_var_names() -> None:
    """RFC-0002 §2.3: <TOOL>_SOCKET, upper-cased with - replaced by _."""
    assert env_var("venomx", "SOCKET") == "VENOMX_SOCKET"
    assert env_var("venom-mem", "SOCKET") == "VENOM_MEM_SOCKET"
    assert env_var("venom-echo", "SOCKET") == "VENOM_ECHO_SOCKET"


def test_resolution_order() -> None:
    """RFC-0002 §2.3: flag, then environment variable, then the default path."""
    env = {"XDG_RUNTIME_DIR": "/run/user/7", "VENOM_ECHO_SOCKET": "/e/env.sock"}
    assert resolve_socket_path("venom-echo", "/f/flag.sock", env) == "/f/flag.sock"
    assert resolve_socket_path("venom-echo", None, env) == "/e/env.sock"
    del env["VENOM_ECHO_SOCKET"]
    assert resolve_socket_path("venom-echo", None, env) == "/run/user/7/venom/venom-echo.sock"


def test_empty_override_counts_as_unset() -> None:
    """RFC-0002 §2.3: an empty variable does not win over the default."""
    env = {"XDG_RUNTIME_DIR": "/run/user/7", "VENOMX_SOCKET": ""}
    assert resolve_socket_path("venomx", "", env) == "/run/user/7/venom/venomx.sock"


@pytest.mark.parametrize("xdg", [None, ""])
def test_fallback_without_xdg_runtime_dir(xdg: str | None) -> None:
    """RFC-0002 §2.2: unset or empty XDG_RUNTIME_DIR -> ${TMPDIR:-/tmp}/venom-<uid>/."""
    env = {} if xdg is None else {"XDG_RUNTIME_DIR": xdg}
    uid = os.getuid()
    assert resolve_socket_path("venomx", None, env) == f"/tmp/venom-{uid}/venomx.sock"
    env["TMPDIR"] = "/var/tmp/x"
    assert resolve_socket_path("venomx", None, env) == f"/var/tmp/x/venom-{uid}/venomx.sock"
    assert default_runtime_dir({"TMPDIR": ""}) == f"/tmp/venom-{uid}"


def test_resolve_rejects_bad_tool_name() -> None:
    """RFC-0002 §2.1: the tool name is validated before it is used in a path."""
    with pytest.raises(ValueError, match="invalid tool name"):
        resolve_socket_path("Bad_Tool", None, {})


@pytest.mark.parametrize(
    ("sock", "lock"),
    [
        ("/r/venom/venomx.sock", "/r/venom/venomx.lock"),
        ("/tmp/custom", "/tmp/custom.lock"),
        ("/tmp/x.socket", "/tmp/x.socket.lock"),
        ("/tmp/.sock", "/tmp/.lock"),
    ],
)
def test_lock_path(sock: str, lock: str) -> None:
    """RFC-0002 §2.3: .sock replaced by .lock, otherwise .lock appended."""
    assert lock_path(sock) == lock


def test_path_length_limit() -> None:
    """RFC-0002 §2.3: a path that does not fit sun_path fails with unavailable.path_too_long."""
    fits = "/" + "a" * (SUN_PATH_LIMIT - 1)
    check_path_length(fits)
    with pytest.raises(VenomError) as info:
        check_path_length(fits + "b")
    err = info.value
    assert err.code == "unavailable.path_too_long"
    assert err.exit_code == 6
    assert err.data == {"socket": fits + "b", "limit": SUN_PATH_LIMIT}


def test_path_length_counts_bytes_not_characters() -> None:
    """RFC-0002 §2.3: the limit is in bytes of the encoded path."""
    path = "/" + "é" * (SUN_PATH_LIMIT // 2 + 1)  # fewer characters than the limit, more bytes
    assert len(path) <= SUN_PATH_LIMIT
    with pytest.raises(VenomError, match="path_too_long"):
        check_path_length(path)


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_ensure_creates_0700_even_with_open_umask(short_dir: Path) -> None:
    """RFC-0002 §2.4: the runtime directory is created with mode 0700; parents normally."""
    target = short_dir / "parent" / "venom"
    old = os.umask(0o022)
    try:
        ensure_runtime_dir(str(target))
    finally:
        os.umask(old)
    assert _mode(target) == 0o700
    assert _mode(target.parent) == 0o755
    ensure_runtime_dir(str(target))  # idempotent


def test_ensure_refuses_existing_wide_directory(short_dir: Path) -> None:
    """RFC-0002 §2.4: an existing directory is checked, not silently re-moded."""
    target = short_dir / "venom"
    target.mkdir(mode=0o755)
    os.chmod(target, 0o755)
    with pytest.raises(VenomError) as info:
        ensure_runtime_dir(str(target))
    assert info.value.code == "denied.insecure_path"
    assert _mode(target) == 0o755


def _insecure(path: Path) -> VenomError:
    with pytest.raises(VenomError) as info:
        verify_runtime_dir(str(path))
    assert info.value.code == "denied.insecure_path"
    assert info.value.exit_code == 4
    assert info.value.data is not None
    assert info.value.data["path"] == str(path)
    return info.value


def test_verify_accepts_private_directory(short_dir: Path) -> None:
    """RFC-0002 §2.4: a 0700 directory owned by us passes."""
    verify_runtime_dir(str(short_dir))


def test_verify_rejects_symlink(short_dir: Path) -> None:
    """RFC-0002 §2.4: a symlink to a good directory still fails (lstat, not stat)."""
    real = short_dir / "real"
    real.mkdir(mode=0o700)
    link = short_dir / "link"
    link.symlink_to(real)
    assert _insecure(link).data == {"path": str(link), "problem": "symlink"}


@pytest.mark.parametrize("mode", [0o750, 0o705, 0o710, 0o701, 0o777])
def test_verify_rejects_group_or_other_bits(short_dir: Path, mode: int) -> None:
    """RFC-0002 §2.4: no group or other permission bits."""
    target = short_dir / "d"
    target.mkdir()
    os.chmod(target, mode)
    assert _insecure(target).data == {"path": str(target), "problem": "mode"}


def test_verify_rejects_non_directory(short_dir: Path) -> None:
    """RFC-0002 §2.4: the runtime path must be a directory."""
    target = short_dir / "f"
    target.write_text("")
    assert _insecure(target).data == {"path": str(target), "problem": "not_a_directory"}


def test_verify_rejects_missing(short_dir: Path) -> None:
    """RFC-0002 §2.4: a missing directory is refused rather than assumed."""
    assert _insecure(short_dir / "nope").data == {
        "path": str(short_dir / "nope"),
        "problem": "missing",
    }


@pytest.mark.skipif(os.getuid() != 0, reason="needs root to chown to another user")
def test_verify_rejects_foreign_owner(short_dir: Path) -> None:
    """RFC-0002 §2.4: the directory must be owned by the current UID."""
    target = short_dir / "d"
    target.mkdir(mode=0o700)
    os.chown(target, 65534, 65534)
    assert _insecure(target).data == {"path": str(target), "problem": "owner"}
