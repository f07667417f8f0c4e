"""The ``XDG_RUNTIME_DIR`` start-up warning only when it is the likely cause (rfcs/0001 §13,
rfcs/0004-schema-decisions.md D-S58): the variable unset, nothing pinning the socket, a login
runtime directory on the machine and no daemon where the adapter looks. A call that finds no
daemon still says why in its error (tests/integration/test_integ_mcp_hosts.py)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from mcp_testkit import MODEL_PATH, TESTS, WAIT

from venom_mcp._cli import no_daemon_hint, xdg_is_the_likely_cause

TOOL = "venom-echo"


def test_the_hint_names_the_fix_when_the_socket_is_not_settled() -> None:
    hint = no_daemon_hint(TOOL, pinned=False, environ={})
    assert hint is not None
    assert "XDG_RUNTIME_DIR is not set" in hint
    assert "VENOM_ECHO_SOCKET" in hint


@pytest.mark.parametrize(
    ("environ", "pinned"),
    [
        ({"XDG_RUNTIME_DIR": "/run/user/1"}, False),  # the host passed it
        ({"VENOM_ECHO_SOCKET": "/x.sock"}, False),  # the socket is pinned by the variable
        ({}, True),  # ... or by --socket
    ],
)
def test_no_hint_when_the_socket_is_settled(environ: dict[str, str], pinned: bool) -> None:
    assert no_daemon_hint(TOOL, pinned=pinned, environ=environ) is None


def test_likely_cause_a_login_runtime_dir_and_no_daemon_where_it_looks(tmp_path: Path) -> None:
    login = tmp_path / "run-user"
    login.mkdir()
    assert xdg_is_the_likely_cause(str(tmp_path / "absent.sock"), str(login))


def test_not_the_likely_cause_when_a_daemon_is_where_it_looks(tmp_path: Path) -> None:
    login = tmp_path / "run-user"
    login.mkdir()
    present = tmp_path / "present.sock"
    present.touch()
    assert not xdg_is_the_likely_cause(str(present), str(login))


def test_not_the_likely_cause_on_a_machine_without_login_runtime_dirs(tmp_path: Path) -> None:
    """A container or macOS: every process of the user agrees on the fallback directory."""
    missing = str(tmp_path / "no-such-dir")
    assert not xdg_is_the_likely_cause(str(tmp_path / "absent.sock"), missing)


def _adapter_stderr(env: dict[str, str]) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "venom_mcp", str(MODEL_PATH)],
        cwd=str(TESTS),
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=WAIT * 3,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stderr


def test_the_adapter_does_not_warn_when_a_daemon_is_where_it_looks(tmp_path: Path) -> None:
    """The real adapter, started as a host starts it (no XDG_RUNTIME_DIR), a daemon's socket
    at the fallback path: no warning, whatever the machine's login directories."""
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_RUNTIME_DIR", "VENOM_ECHO_SOCKET")}
    env["TMPDIR"] = str(tmp_path)
    fallback = tmp_path / f"venom-{os.getuid()}"
    fallback.mkdir(mode=0o700)
    with socket.socket(socket.AF_UNIX) as listening:
        listening.bind(str(fallback / f"{TOOL}.sock"))
        assert "XDG_RUNTIME_DIR" not in _adapter_stderr(env)


@pytest.mark.skipif(
    not os.path.isdir(f"/run/user/{os.getuid()}"), reason="this machine has no login runtime dir"
)
def test_the_adapter_warns_when_no_daemon_is_where_it_looks(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_RUNTIME_DIR", "VENOM_ECHO_SOCKET")}
    env["TMPDIR"] = str(tmp_path)
    assert "XDG_RUNTIME_DIR is not set" in _adapter_stderr(env)
