"""The release gate on a throwaway copy of venom-echo (docs/releasing.md, "The manifest gate"):
a deliberate breaking change to its verbs.zon fails the product's own gate test and
``nox -s release-check``'s manifest step, until the version says so."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from tools.release_check import Checker, Report
from tools.workspace import ROOT, members

ECHO = ROOT / "packages" / "venom-echo"


def _copy(tmp_path: Path) -> Path:
    copy = tmp_path / "venom-echo"
    shutil.copytree(ECHO / "src", copy / "src", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ECHO / "release", copy / "release")
    (copy / "tests").mkdir()
    shutil.copy(ECHO / "tests" / "test_echo_release.py", copy / "tests")
    return copy


def _gate(copy: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=copy,
        env={**os.environ, "PYTHONPATH": str(copy / "src")},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _set_version(copy: Path, version: str) -> None:
    path = copy / "src" / "venom_echo" / "_version.py"
    text = path.read_text(encoding="utf-8")
    old = text.split('VERSION = "', 1)[1].split('"', 1)[0]
    path.write_text(text.replace(f'VERSION = "{old}"', f'VERSION = "{version}"'), "utf-8")


def test_the_copy_passes_as_it_is(tmp_path: Path) -> None:
    run = _gate(_copy(tmp_path))
    assert run.returncode == 0, run.stdout[-2000:]
    assert "2 passed" in run.stdout


def test_a_deliberate_break_fails_until_the_version_says_so(tmp_path: Path) -> None:
    copy = _copy(tmp_path)
    manifest = copy / "src" / "venom_echo" / "verbs.zon"
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text.replace(".grant = .read", ".grant = .admin", 1), encoding="utf-8")
    failed = _gate(copy)
    assert failed.returncode == 1
    assert "grant read became the stronger admin" in failed.stdout
    assert "release it as 0.3.0 or later" in failed.stdout
    _set_version(copy, "0.2.1")  # a patch bump does not say "breaking"
    assert _gate(copy).returncode == 1
    _set_version(copy, "0.3.0")
    passed = _gate(copy)
    assert passed.returncode == 0, passed.stdout[-2000:]


def test_release_check_runs_the_gate_as_a_step(tmp_path: Path) -> None:
    """`nox -s release-check`'s manifest step, with this environment as the installed one."""
    echo = next(m for m in members() if m.name == "venom-echo")
    copy = _copy(tmp_path)
    checker = Checker(tmp_path / "scratch", members(), [])
    venv = Path(sys.executable).parent.parent
    report = Report(replace(echo, path=copy))
    checker.manifest_gate(report.member, venv, report)
    assert report.steps == [("manifest", True, "no breaking change since 0.2.0")]
    manifest = copy / "src" / "venom_echo" / "verbs.zon"
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text.replace(".grant = .read", ".grant = .admin", 1), encoding="utf-8")
    checker.manifest_gate(report.member, venv, report)
    assert report.steps[-1][:2] == ("manifest", False)
    assert not report.ok
