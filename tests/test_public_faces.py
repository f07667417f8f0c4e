"""Every public module of every package has an honest public face (anyio's test_all_attributes).

A module is public when no component of its dotted name starts with ``_``. Its ``__all__`` is a
tuple of unique names, each of which the module really has (lazy PEP 562 exports included); and,
the other way, every public name the module itself defines (``def``, ``class`` or assignment at
the top level, as its source says) is in ``__all__``. Names a module merely imports are not its
own, unless it lists them (a re-export).
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path
from types import ModuleType

import pytest

from tools.workspace import members

ROOT = Path(__file__).resolve().parents[1]

#: Entry points run as scripts, with nothing to export.
SCRIPTS = ("__main__",)


def _public_modules() -> list[str]:
    names: list[str] = []
    for member in members():
        package = importlib.import_module(member.module)
        names.append(member.module)
        for info in pkgutil.walk_packages(package.__path__, member.module + "."):
            parts = info.name.split(".")
            if any(p.startswith("_") for p in parts) or parts[-1] in SCRIPTS:
                continue
            names.append(info.name)
    return sorted(names)


PUBLIC = _public_modules()


#: Calls whose result is a module's plumbing, not its API: type variables and its logger.
PLUMBING = ("TypeVar", "getLogger")


def _is_plumbing(value: ast.expr) -> bool:
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return called in PLUMBING


def _defined_here(module: ModuleType) -> set[str]:
    """Public names bound at the top level of ``module``'s source, except by imports."""
    source = Path(module.__file__ or "").read_text(encoding="utf-8")
    names: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign) and not _is_plumbing(node.value):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {n for n in names if not n.startswith("_") and n != "TYPE_CHECKING"}


def test_the_walk_finds_every_package() -> None:
    tops = {name.split(".")[0] for name in PUBLIC}
    assert tops == {m.module for m in members()}
    assert "venom_proto.sansio" in PUBLIC
    assert "venom_proto.conventions" in PUBLIC
    assert not [n for n in PUBLIC if "._" in n]


@pytest.mark.parametrize("name", PUBLIC)
def test_all_is_an_honest_tuple(name: str) -> None:
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    assert isinstance(exported, tuple), f"{name}.__all__ is not a tuple"
    assert len(set(exported)) == len(exported), f"{name}.__all__ repeats a name"
    missing = [attr for attr in exported if not hasattr(module, attr)]
    assert missing == [], f"{name}.__all__ names what it does not have"


@pytest.mark.parametrize("name", PUBLIC)
def test_every_public_name_a_module_defines_is_exported(name: str) -> None:
    module = importlib.import_module(name)
    unlisted = sorted(_defined_here(module) - set(module.__all__))
    assert unlisted == [], f"{name} defines public names it does not export: {unlisted}"


def test_the_check_can_fail(tmp_path: Path) -> None:
    """A module defining a public name it leaves out of ``__all__`` is caught."""
    path = tmp_path / "sloppy.py"
    path.write_text('__all__ = ("a",)\n\ndef a() -> None: ...\n\nB = 1\n', encoding="utf-8")
    module = ModuleType("sloppy")
    module.__file__ = str(path)
    assert _defined_here(module) - {"a"} == {"B"}
