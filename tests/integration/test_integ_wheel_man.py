"""venom-echo's wheel ships its man pages as data: installed into a venv whose bin is on PATH,
`man venom-echo` finds them (man derives <venv>/share/man from PATH's <venv>/bin)."""

from __future__ import annotations

import filecmp
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
PRODUCTS = {
    "venom-echo": ROOT / "packages/venom-echo",
    "venom-notes": ROOT / "examples/venom-notes",
}


@pytest.mark.parametrize("tool", sorted(PRODUCTS))
def test_wheel_data_pages_are_the_generated_pages(tool: str) -> None:
    """data/share/man/man1 links each generated page, and nothing else: committed once."""
    root = PRODUCTS[tool]
    module = tool.replace("-", "_")
    generated = root / "src" / module / "generated" / "man"
    shipped = root / "data" / "share" / "man" / "man1"
    names = sorted(p.name for p in generated.glob("*.1"))
    assert sorted(p.name for p in shipped.iterdir()) == names
    assert all((shipped / name).is_symlink() for name in names), "run python -m tools.man_links"
    _, mismatch, errors = filecmp.cmpfiles(generated, shipped, names, shallow=False)
    assert (mismatch, errors) == ([], []), "run python -m tools.man_links"


def test_man_finds_the_page_of_an_installed_wheel(tmp_path: Path) -> None:
    uv = shutil.which("uv")
    if uv is None:
        pytest.skip("uv is not installed")
    if shutil.which("man") is None:
        pytest.skip("man is not installed")
    dist = tmp_path / "dist"
    subprocess.run(
        [uv, "build", "--package", "venom-echo", "--wheel", "--no-sources", "-o", str(dist)],
        cwd=ROOT, check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    (wheel,) = dist.glob("*.whl")
    venv = tmp_path / "venv"
    subprocess.run([uv, "venv", "-q", str(venv)], check=True, capture_output=True, timeout=120)
    subprocess.run(
        [uv, "pip", "install", "-q", "--no-deps", "--python", str(venv), str(wheel)],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    page = venv / "share" / "man" / "man1" / "venom-echo.1"
    assert page.is_file()
    env = {**os.environ, "MANPATH": "", "PATH": f"{venv / 'bin'}:{os.environ['PATH']}"}
    found = subprocess.run(
        ["man", "-w", "venom-echo"], env=env, capture_output=True, text=True, timeout=60,
        check=False,
    )  # fmt: skip
    assert found.returncode == 0, found.stderr
    assert Path(found.stdout.strip()).resolve() == page.resolve()
    verb_page = subprocess.run(
        ["man", "-w", "venom-echo-config-get"], env=env, capture_output=True, text=True,
        timeout=60, check=False,
    )  # fmt: skip
    assert verb_page.stdout.strip().endswith("share/man/man1/venom-echo-config-get.1")
