"""`venom-gen new --standalone` makes a project that installs and passes its tests outside this
repository, from the wheels this repository builds (docs/releasing.md, "Standalone projects").

The project is generated in a temporary directory outside the checkout, installed into a fresh
venv from a find-links directory of freshly built wheels (editable, as its README says), and
its own tests run with that venv's interpreter. Everything is offline: the wheels are built by
uv's bundled backend, and the third-party packages come from uv's cache at the lock's versions,
which ``uv sync`` filled before any test runs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIBRARIES = ("venom-proto", "venom-schema", "venom-gen", "venom-mcp")
TIMEOUT = 120


def _uv() -> str:
    found = os.environ.get("UV") or shutil.which("uv")
    assert found, "uv is not on PATH"
    return found


def _run(
    cmd: list[str], timeout: float = TIMEOUT, **options: object
) -> subprocess.CompletedProcess[str]:
    run = subprocess.run(
        cmd, capture_output=True, text=True, timeout=timeout, check=False, **options
    )  # type: ignore[call-overload]
    assert run.returncode == 0, f"{' '.join(cmd)}\n{run.stdout[-3000:]}{run.stderr[-3000:]}"
    return run  # type: ignore[no-any-return]


def _clean_env(**extra: str) -> dict[str, str]:
    drop = {"VIRTUAL_ENV", "PYTHONPATH", "PYTEST_ADDOPTS", "UV_PROJECT_ENVIRONMENT"}
    return {**{k: v for k, v in os.environ.items() if k not in drop}, **extra}


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The four library packages' wheels, built as a release would build them."""
    dist = tmp_path_factory.mktemp("dist")
    for package in LIBRARIES:
        _run([_uv(), "build", "--offline", "--quiet", "--package", package, "--no-sources",
              "--wheel", "-o", str(dist)], cwd=ROOT)  # fmt: skip
    return dist


@pytest.mark.timeout(1800)  # its tests run the whole conformance suite against its daemon
def test_a_standalone_project_installs_from_wheels_and_passes_its_tests(
    wheels: Path, tmp_path: Path
) -> None:
    assert not tmp_path.resolve().is_relative_to(ROOT), "must be outside the checkout"
    project = tmp_path / "venom-foo"
    venom_gen = Path(sys.executable).parent / "venom-gen"
    created = _run([str(venom_gen), "new", "venom-foo", "--dest", str(project), "--standalone"])
    assert "created venom-foo" in created.stderr  # the developer CLI reports on stderr

    pins = tmp_path / "pins.txt"
    export = [_uv(), "export", "--locked", "--no-emit-workspace", "--no-hashes", "--no-header"]
    pins.write_text(_run([*export, "--no-annotate", "--quiet", "--all-packages",
                          "--all-groups"], cwd=ROOT).stdout)  # fmt: skip
    venv = tmp_path / "venv"
    _run([_uv(), "venv", "--quiet", "--python", sys.executable, str(venv)], env=_clean_env())
    install = [_uv(), "pip", "install", "--offline", "--python", str(venv / "bin" / "python")]
    install += ["--find-links", str(wheels), "--constraints", str(pins)]
    # No --refresh-package (uv refuses it offline): each run's wheels are at a new path, so
    # the cache never serves an older build under the same name and version.
    _run([*install, "-e", ".", "--group", "dev"], cwd=project, env=_clean_env())

    python = str(venv / "bin" / "python")
    where = _run([python, "-c", "import venom_gen, venom_mcp; print(venom_gen.__file__)"],
                 cwd=tmp_path, env=_clean_env())  # fmt: skip
    assert Path(where.stdout.strip()).resolve().is_relative_to(venv.resolve())
    assert (venv / "bin" / "venom-conformance").is_file()  # the suite's one documented command

    env = _clean_env(PATH=f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}")
    # Its tests include the conformance suite, run from the installed venom-mcp (no checkout).
    tests = _run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=project, env=env,
                 timeout=1800)  # fmt: skip
    assert "15 passed" in tests.stdout, tests.stdout[-2000:]


def test_new_without_standalone_outside_a_workspace_says_so(tmp_path: Path) -> None:
    venom_gen = Path(sys.executable).parent / "venom-gen"
    run = subprocess.run(
        [str(venom_gen), "new", "venom-foo", "--dest", str(tmp_path / "p")],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert run.returncode != 0
    assert "not inside a uv workspace" in run.stderr
    assert "--standalone" in run.stderr
    assert "Traceback" not in run.stderr
    assert not (tmp_path / "p").exists()
