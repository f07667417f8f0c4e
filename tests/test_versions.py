"""One source for each version: pyproject.toml, copied into `_version.py` for the run time."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tools.versions import main, render, stale, version_files
from tools.workspace import Member, members

ROOT = Path(__file__).resolve().parents[1]

PRODUCTS = ("venom-echo", "venom-notes")


def _member(name: str) -> Member:
    return next(m for m in members() if m.name == name)


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def test_every_version_module_matches_its_pyproject() -> None:
    assert stale() == [], "run `python -m tools.versions`"


def test_every_product_has_a_version_module() -> None:
    """A product states its version at run time (hello, MCP), so it must take it from one."""
    with_file = {m.name for m, _ in version_files()}
    products = {
        m.name for m in members() if "PRODUCT = Product(" in _text(m.module_dir / "product.py")
    }
    assert products == set(PRODUCTS)
    assert products <= with_file


@pytest.mark.parametrize("name", PRODUCTS)
def test_the_product_advertises_its_pyproject_version(name: str) -> None:
    """What `hello.server.version` carries is exactly pyproject.toml's version."""
    member = _member(name)
    module = __import__(f"{member.module}.product", fromlist=["PRODUCT"])
    assert module.PRODUCT.version == member.version
    assert member.version == module.VERSION


@pytest.mark.parametrize("member", [m for m, _ in version_files()], ids=lambda m: m.name)
def test_no_second_version_literal(member: Member) -> None:
    """Outside `_version.py`, no module of the package spells its version out."""
    literal = re.compile(rf"""["']{re.escape(member.version)}["']""")
    offenders = [
        str(path.relative_to(ROOT))
        for path in member.module_dir.rglob("*.py")
        if path.name != "_version.py" and literal.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def _copy_workspace(tmp_path: Path, names: tuple[str, ...]) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    for member in members():
        if member.name in names:
            dest = root / member.path.relative_to(ROOT)
            shutil.copytree(
                member.path, dest, ignore=shutil.ignore_patterns("tests", "__pycache__")
            )
    return root


def test_a_bumped_pyproject_makes_the_version_module_stale(tmp_path: Path) -> None:
    """The check can fail: bump venom-echo in a copy and the copy's `_version.py` is stale."""
    root = _copy_workspace(tmp_path, ("venom-echo",))
    pyproject = root / "packages/venom-echo/pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('version = "', 'version = "9', 1))
    assert stale(root) == [root / "packages/venom-echo/src/venom_echo/_version.py"]
    (member,) = (m for m, _ in version_files(root))
    assert render(member).endswith(f'VERSION = "9{_member("venom-echo").version}"\n')


def test_check_mode_exits_1_and_names_the_file(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("tools.versions.stale", lambda root=ROOT: [ROOT / "x/_version.py"])
    assert main(["--check"]) == 1
    assert "x/_version.py: stale" in capsys.readouterr().err
