"""``venom-echo service install`` (rfcs/0001 §14): the units for the running binary,
where the user's manager reads them, verified by systemd itself and idempotent."""

from __future__ import annotations

import json
import os
import plistlib
import shutil
import subprocess
from pathlib import Path

import pytest
from integration_kit import TIMEOUT, venom_echo_command

from venom_gen.testing import PrivateDirs

ANALYZE = shutil.which("systemd-analyze")


@pytest.fixture
def home(venom_dirs: PrivateDirs) -> Path:
    """A private HOME, short enough for sun_path, whose ``run`` is the XDG_RUNTIME_DIR: the
    test kit's directories (removed afterwards), used here as one tree."""
    return venom_dirs.root


def install(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home)}
    return subprocess.run(
        [venom_echo_command(), "service", "install", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


@pytest.mark.covers("cli", "service.install")
def test_install_writes_units_for_this_binary_that_systemd_accepts(home: Path) -> None:
    done = install(home, "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    units = home / ".config" / "systemd" / "user"
    assert result["paths"] == [str(units / "venom-echo.socket"), str(units / "venom-echo.service")]
    assert result["written"] is True
    assert result["next"].endswith("systemctl --user enable --now venom-echo.socket")
    service = (units / "venom-echo.service").read_text()
    assert f"ExecStart={venom_echo_command()} serve\n" in service
    again = install(home, "--json")
    assert json.loads(again.stdout)["written"] is False  # the same content: nothing to do
    if ANALYZE is None:
        pytest.skip("systemd-analyze is not installed")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "XDG_RUNTIME_DIR": str(home / "run")}
    verified = subprocess.run(
        [ANALYZE, "verify", "--user", *result["paths"]],
        env={**env, "MANPATH": str(home / "no-man-pages")},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    # Only the man page the units name may be missing here (it is not installed in HOME).
    problems = [line for line in verified.stderr.splitlines() if "Command 'man " not in line]
    assert problems == [], verified.stderr


@pytest.mark.covers("cli", "service.install")
def test_a_changed_file_is_kept_unless_forced(home: Path) -> None:
    assert install(home).returncode == 0
    socket_unit = home / ".config" / "systemd" / "user" / "venom-echo.socket"
    socket_unit.write_text(socket_unit.read_text() + "# my edit\n")
    refused = install(home)
    assert refused.returncode == 5  # conflict.service_exists
    assert "--force" in refused.stderr
    assert socket_unit.read_text().endswith("# my edit\n")
    assert install(home, "--force=true").returncode == 0
    assert not socket_unit.read_text().endswith("# my edit\n")


@pytest.mark.covers("cli", "service.install")
def test_launchd_agent_and_a_relative_dir(home: Path) -> None:
    done = install(home, "--manager", "launchd")
    assert done.returncode == 0, done.stderr
    plist = home / "Library" / "LaunchAgents" / "venom.venom-echo.plist"
    job = plistlib.loads(plist.read_bytes())
    assert job["ProgramArguments"][2].startswith(f"exec {venom_echo_command()} serve")
    assert "launchctl bootstrap" in done.stdout
    relative = install(home, "--dir", "units")
    assert relative.returncode == 2
    assert "absolute" in relative.stderr


def _binary_under(home: Path, directory: str) -> Path:
    """venom-echo reached through a directory named ``directory`` (a link to the real one)."""
    place = home / "bins" / directory
    place.mkdir(parents=True)
    (place / "venom-echo").symlink_to(venom_echo_command())
    return place / "venom-echo"


def _install_from(home: Path, binary: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home)}
    return subprocess.run(
        [str(binary), "service", "install", "--json", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


@pytest.mark.covers("cli", "service.install")
@pytest.mark.parametrize("directory", ["o'brien", "100%h", "a b $HOME"])
def test_a_hostile_binary_path_is_written_so_systemd_runs_exactly_it(
    home: Path, directory: str
) -> None:
    """Issue 27: an apostrophe gave "Unbalanced quoting" and a unit without ExecStart, and
    ``%h`` ran another path. systemd-analyze finds the binary only at its exact path."""
    binary = _binary_under(home, directory)
    done = _install_from(home, binary)
    assert done.returncode == 0, done.stderr
    paths = json.loads(done.stdout)["paths"]
    if ANALYZE is None:
        pytest.skip("systemd-analyze is not installed")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "XDG_RUNTIME_DIR": str(home / "run")}
    verified = subprocess.run(
        [ANALYZE, "verify", "--user", *paths],
        env={**env, "MANPATH": str(home / "no-man-pages")},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    problems = [line for line in verified.stderr.splitlines() if "Command 'man " not in line]
    assert problems == [], verified.stderr


@pytest.mark.covers("cli", "service.install")
@pytest.mark.parametrize("manager", ["systemd", "launchd"])
def test_a_newline_in_the_binary_path_is_refused_and_nothing_written(
    home: Path, manager: str
) -> None:
    """Issue 27: a newline in a directory name injected ``ExecStartPre=``; now exit 2."""
    binary = _binary_under(home, "x\nExecStartPre=touch pwned\n")
    out = home / "out"
    done = _install_from(home, binary, "--manager", manager, "--dir", str(out))
    assert done.returncode == 2, done.stderr
    assert json.loads(done.stdout)["error"]["code"] == "invalid_params.command"
    assert not out.exists()
