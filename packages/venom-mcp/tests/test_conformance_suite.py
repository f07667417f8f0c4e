"""The shipped conformance suite itself (venom_mcp.conformance): its command and the rule that a
check whose precondition fails never passes."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from venom_mcp.conformance import CHECKS, PLUGIN, main
from venom_mcp.conformance._kit import FOREIGN_UID, foreign_runner


def test_the_command_names_a_missing_program_without_a_traceback() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "venom_mcp.conformance", "--cli", "no-such-venom-tool-xyz"],
        capture_output=True, text=True, timeout=60, check=False, cwd="/",
    )  # fmt: skip
    assert run.returncode == 4  # pytest's usage error
    assert "no-such-venom-tool-xyz" in run.stderr
    assert "not on PATH" in run.stderr
    assert "Traceback" not in run.stderr + run.stdout


def test_the_face_names_the_plugin_and_the_checks() -> None:
    assert PLUGIN == "venom_mcp.conformance.plugin"
    assert CHECKS == "venom_mcp.conformance._checks"
    assert callable(main)


def test_a_foreign_peer_that_cannot_run_is_no_runner(tmp_path: Path) -> None:
    """RFC-0002 §2.4: the foreign-uid check needs a program that uid can run; an interpreter
    it cannot execute gives no runner (the check is then not applicable), never a pass."""
    blocked = tmp_path / "python3"
    blocked.write_text("#!/bin/sh\nexit 0\n")
    blocked.chmod(stat.S_IRWXU)  # the owner's alone: uid 65534 cannot execute it
    assert foreign_runner(FOREIGN_UID, [str(blocked)]) is None
    assert foreign_runner(FOREIGN_UID, [str(tmp_path / "missing")]) is None


@pytest.mark.skipif(os.getuid() != 0, reason="runs a program as another uid: needs root")
def test_a_runner_is_proven_by_running_as_that_uid() -> None:
    """RFC-0002 §2.4: a runner is returned only once it has run as the foreign uid."""
    runner = foreign_runner(FOREIGN_UID)
    if runner is None:
        pytest.skip("no interpreter uid 65534 may execute here")
    out = subprocess.run(
        [*runner, "-c", "import os;print(os.getuid())"],
        capture_output=True, text=True, timeout=60, check=True, cwd="/",
    )  # fmt: skip
    assert out.stdout.strip() == str(FOREIGN_UID)
