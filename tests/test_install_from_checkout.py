"""Install from the checkout, as docs/service.md shows: `nox -s dist` writes every wheel into one
folder, and `uv tool install --find-links DIR venom-echo` gives a working `venom-echo` on PATH,
its man pages and completions included (rfcs/0004 D-S52).

The wheels are built with the session's own command; the install is offline (third-party
packages at the lock's versions, from uv's cache) into private uv tool directories and HOME.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from venom_gen.testing import DaemonProcess

ROOT = Path(__file__).resolve().parents[1]
#: Every package of the workspace, each as one wheel.
WHEELS = ("venom_proto", "venom_schema", "venom_gen", "venom_mcp", "venom_echo", "venom_notes")
TIMEOUT = 180


def uv() -> str:
    found = os.environ.get("UV") or shutil.which("uv")
    if found is None:
        candidate = Path(sys.executable).parents[2] / ".uv" / "bin" / "uv"
        found = str(candidate) if candidate.is_file() else None
    assert found, "uv is not on PATH (nor $UV, nor the checkout's .uv/bin/uv)"
    return found


def run(cmd: list[str], **options: object) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        cmd, capture_output=True, text=True, timeout=TIMEOUT, check=False, **options
    )  # type: ignore[call-overload]
    assert done.returncode == 0, f"{' '.join(cmd)}\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
    return done  # type: ignore[no-any-return]


def dist_command() -> list[str]:
    """The `uv build` command of noxfile.py's ``dist`` session (its posargs: the folder)."""
    tree = ast.parse((ROOT / "noxfile.py").read_text(encoding="utf-8"))
    session = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "dist")
    for node in ast.walk(session):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "run"
        ):
            words = [a.value for a in node.args if isinstance(a, ast.Constant)]
            if words[:2] == ["uv", "build"]:
                return [str(w) for w in words]
    raise AssertionError("noxfile.py's dist session runs no `uv build`")


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder `nox -s dist` writes, made by the session's own command (offline)."""
    out = tmp_path_factory.mktemp("dist")
    run([uv(), *dist_command()[1:], str(out), "--offline", "--quiet"], cwd=ROOT)
    return out


@pytest.fixture
def home() -> Iterator[Path]:
    # /tmp, not pytest's tmp_path: the daemon's socket path must fit in sun_path.
    root = Path(tempfile.mkdtemp(prefix="vi", dir="/tmp"))
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_dist_writes_every_wheel_into_one_folder(dist: Path) -> None:
    names = sorted(p.name.split("-")[0] for p in dist.glob("*.whl"))
    assert names == sorted(WHEELS)
    assert dist_command()[-2:] == ["--wheel", "--out-dir"]  # posargs (or dist/) follow


def test_uv_tool_install_gives_a_working_venom_echo_on_path(dist: Path, home: Path) -> None:
    pins = home / "pins.txt"
    export = [uv(), "export", "--locked", "--no-emit-workspace", "--no-hashes", "--no-header"]
    pins.write_text(run([*export, "--no-annotate", "--quiet", "--all-packages"], cwd=ROOT).stdout)
    bin_dir = home / ".local" / "bin"
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"VIRTUAL_ENV", "PYTHONPATH", "UV_PROJECT_ENVIRONMENT"}
        and not k.startswith(("XDG_", "VENOM_"))
    }
    env.update(
        UV_CACHE_DIR=run([uv(), "cache", "dir"]).stdout.strip(),  # before HOME moves it
        HOME=str(home),
        UV_TOOL_DIR=str(home / "tools"),
        UV_TOOL_BIN_DIR=str(bin_dir),
        PATH=f"{bin_dir}:/usr/bin:/bin",
    )
    install = [uv(), "tool", "install", "--offline", "--find-links", str(dist)]
    run([*install, "--constraints", str(pins), "venom-echo"], env=env, cwd=home)
    assert shutil.which("venom-echo", path=env["PATH"]) == str(bin_dir / "venom-echo")

    version = run(["venom-echo", "--version"], env=env, cwd=home)
    assert version.stdout.startswith("venom-echo ")
    page = run(["venom-echo", "man", "--page", "venom-echo-echo"], env=env, cwd=home)
    assert page.stdout.startswith(".TH")
    bash = run(["bash", "-c", "source <(venom-echo completion bash) && complete -p venom-echo"],
               env=env, cwd=home)  # fmt: skip
    assert "venom-echo" in bash.stdout
    run(["venom-echo", "man", "install"], env=env, cwd=home)
    assert (home / ".local/share/man/man1/venom-echo-echo.1").is_file()

    # The installed binary is the product: its daemon answers its CLI.
    with DaemonProcess(tool="venom-echo", command=[str(bin_dir / "venom-echo")]) as daemon:
        called = daemon.cli("echo", "--text", "hi")
    assert (called.returncode, called.stdout) == (0, "text: hi\n"), called.stderr
