"""doctor's checks (RFC-0002 §2, RFC-0004 §7, rfcs/0001 §5)."""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Any

import pytest

from venom_gen._doctor_checks import (
    config_check,
    doctor_report,
    filesystem_checks,
    reachability_checks,
)
from venom_proto import VenomError

DIGEST = "sha256:" + "a" * 64


def _by_name(checks: list[dict[str, str]]) -> dict[str, dict[str, str]]:
    return {c["name"]: c for c in checks}


def test_schema_mismatch_warns_with_a_restart_hint() -> None:
    """RFC-0004 §7: the CLI compares the advertised digest with its own and reports it."""
    checks = _by_name(
        reachability_checks(
            "t", DIGEST, lambda: {"server": {"name": "t", "version": "1"}, "schema": "sha256:b"}
        )
    )
    assert checks["daemon"]["status"] == "ok"
    assert checks["schema"]["status"] == "warn"
    assert "restart" in checks["schema"]["hint"]
    assert doctor_report(list(checks.values()))["exit"] == 0  # warnings alone exit 0


def test_absent_digest_is_not_an_error() -> None:
    """RFC-0004 §7: an absent digest is not itself an error."""
    checks = _by_name(reachability_checks("t", DIGEST, lambda: {"server": {"name": "t"}}))
    assert checks["schema"]["status"] == "ok"


def test_equal_digests_are_ok() -> None:
    checks = _by_name(reachability_checks("t", DIGEST, lambda: {"schema": DIGEST}))
    assert checks["schema"]["status"] == "ok"


def test_unreachable_daemon_fails_with_serve_hint() -> None:
    def hello() -> dict[str, Any]:
        raise VenomError("unavailable.not_running", "no daemon at /x", {"socket": "/x"})

    checks = _by_name(reachability_checks("tool", DIGEST, hello))
    assert checks["daemon"]["status"] == "fail"
    assert "tool serve" in checks["daemon"]["hint"]
    assert doctor_report(list(checks.values())) == {
        "status": "fail",
        "exit": 1,
        "checks": list(checks.values()),
    }


def test_too_long_path_fails_with_a_shorter_override_hint() -> None:
    """RFC-0002 §2.3: doctor SHOULD suggest a shorter override."""
    checks = _by_name(filesystem_checks("venom-echo", "/tmp/" + "x" * 200 + ".sock"))
    assert checks["socket_path"]["status"] == "fail"
    assert "VENOM_ECHO_SOCKET" in checks["socket_path"]["hint"]
    assert "shorter" in checks["socket_path"]["hint"]


def test_open_runtime_dir_fails_with_chmod_hint(tmp_path: Path) -> None:
    """RFC-0002 §2.4: doctor checks the runtime directory's permissions."""
    d = tmp_path / "venom"
    d.mkdir(mode=0o700)
    os.chmod(d, 0o755)
    checks = _by_name(filesystem_checks("t", str(d / "t.sock")))
    assert checks["runtime_dir"]["status"] == "fail"
    assert checks["runtime_dir"]["hint"] == f"run: chmod 700 {d}"


def test_stale_socket_is_a_warning(tmp_path: Path) -> None:
    """RFC-0002 §2.5: a socket nobody holds the lock for is stale."""
    d = tmp_path / "venom"
    d.mkdir(mode=0o700)
    path = str(d / "t.sock")
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(path)
        os.chmod(path, 0o600)
    checks = _by_name(filesystem_checks("t", path))
    assert checks["socket"]["status"] == "warn"
    assert "stale" in checks["socket"]["message"]


def test_not_a_socket_fails(tmp_path: Path) -> None:
    d = tmp_path / "venom"
    d.mkdir(mode=0o700)
    (d / "t.sock").write_text("x")
    checks = _by_name(filesystem_checks("t", str(d / "t.sock")))
    assert checks["socket"]["status"] == "fail"


@pytest.mark.parametrize(
    ("problems", "status"), [([], "ok"), ([{"key": "a", "message": "bad"}], "fail")]
)
def test_config_check(problems: list[dict[str, str]], status: str) -> None:
    check = config_check(problems, "/c.toml")
    assert check["status"] == status
    assert ("hint" in check) == (status != "ok")
