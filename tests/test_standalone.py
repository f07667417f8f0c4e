"""`venom-gen new --standalone` makes a project that works end to end outside this repository,
from the wheels this repository builds (docs/releasing.md, "Standalone projects").

The project is generated in a temporary directory outside the checkout, and every ``console``
block of its README runs verbatim, in order, as one shell (tests/console_kit.py): install into a
fresh venv from a find-links directory of freshly built wheels (editable), regenerate with
``venom-gen generate``, ``mypy --strict``, its own tests, run the daemon and call it, build its
wheel, ``uv tool install`` it and run that. Everything is offline: the wheels are built by uv's
bundled backend, and the third-party packages come from uv's cache at the lock's versions,
which ``uv sync`` filled before any test runs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from console_kit import CommandStep, ConsoleSession, parse_console
from markdown_it import MarkdownIt

from venom_gen.testing import PrivateDirs

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


def _pins(directory: Path) -> Path:
    """The lock's third-party versions, as constraints: what an offline install may take."""
    pins = directory / "pins.txt"
    export = [_uv(), "export", "--locked", "--no-emit-workspace", "--no-hashes", "--no-header"]
    pins.write_text(_run([*export, "--no-annotate", "--quiet", "--all-packages",
                          "--all-groups"], cwd=ROOT).stdout)  # fmt: skip
    return pins


def readme_steps(readme: str) -> list[CommandStep]:
    """Every ``console`` block of a scaffolded README, in order (its other blocks are prose)."""
    steps: list[CommandStep] = []
    for token in MarkdownIt().parse(readme):
        if token.type == "fence" and token.info.split()[:1] == ["console"] and token.map:
            steps.extend(parse_console(token.content, token.map[0] + 2))
    return steps


def test_the_scaffold_readme_runs_as_written_outside_the_checkout(
    wheels: Path, venom_dirs: PrivateDirs
) -> None:
    """Install, regenerate, mypy --strict, its tests, run it, build a wheel, `uv tool install`
    it and run that: every step of the standalone README, verbatim, from a clean directory."""
    project = venom_dirs.root / "venom-foo"
    assert not project.resolve().is_relative_to(ROOT), "must be outside the checkout"
    venom_gen = Path(sys.executable).parent / "venom-gen"
    created = _run([str(venom_gen), "new", "venom-foo", "--dest", str(project), "--standalone"])
    assert "created venom-foo" in created.stderr  # the developer CLI reports on stderr
    steps = readme_steps((project / "README.md").read_text(encoding="utf-8"))
    commands = [step.command for step in steps]
    for needed in ("venom-gen generate", "mypy --strict", "python -m pytest -q"):
        assert needed in commands, needed
    assert any(c.startswith("uv tool install") for c in commands)

    uv = Path(_uv())
    # This interpreter (its base, not this venv) is the `python3` a fresh shell finds first.
    # Not UV_PYTHON: `uv pip install` would then install into it rather than the new .venv.
    bin_dir = venom_dirs.root / "python-bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(getattr(sys, "_base_executable", sys.executable))
    base = _clean_env(
        # What the README asks of the reader: uv on PATH, VENOM_WHEELS set; what this test
        # adds: offline, at the lock's versions, uv's shared cache.
        PATH=os.pathsep.join([str(bin_dir), str(uv.parent), "/usr/bin", "/bin"]),
        VENOM_WHEELS=str(wheels),
        UV_OFFLINE="1",
        UV_CONSTRAINT=str(_pins(venom_dirs.root)),
        UV_CACHE_DIR=_run([str(uv), "cache", "dir"]).stdout.strip(),
    )
    for leak in ("UV_PYTHON", "VIRTUAL_ENV", "CONDA_PREFIX"):
        base.pop(leak, None)
    env = venom_dirs.env("venom-foo", {k: v for k, v in base.items() if not k.startswith("XDG_")})
    # uv puts tools in $XDG_BIN_HOME, else beside the (here private) XDG_DATA_HOME: pin it
    # to the default a user without either has.
    env["XDG_BIN_HOME"] = str(Path(env["HOME"]) / ".local" / "bin")
    session = ConsoleSession(
        project, env, venom_dirs.runtime / "venom", doc="the scaffold's README.md", timeout=300
    )
    try:
        for step in steps:
            session.run(step)
    finally:
        session.close()
    installed = Path(env["HOME"]) / ".local" / "bin" / "venom-foo"
    assert installed.is_file(), "uv tool install put no venom-foo in ~/.local/bin"
    # The installed tool is its own, not the project's venv: it answers outside the project.
    version = _run([str(installed), "--version"], cwd=venom_dirs.root, env=env)
    assert version.stdout == "venom-foo 0.1.0\n"


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
