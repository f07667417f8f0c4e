"""The release gate on a throwaway copy of venom-echo (docs/releasing.md, "The manifest gate"):
a deliberate breaking change to its verbs.zon fails the product's own gate test, which
``nox -s release-check`` runs, until the version says so."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tools.workspace import ROOT

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
