"""Nothing imports another package's ``_private`` modules, anywhere in the tree.

Checked over every file git tracks: Python sources and tests, the generated modules, the
scaffold's templates (they become a product's code, so they count as belonging to no package)
and the code blocks of every Markdown page. A file under ``packages/<dist>/`` or
``examples/<dist>/`` belongs to that distribution's package and may use its own private
modules; a file anywhere else belongs to none.

What counts as importing: ``import x._y``, ``from x._y import ...``, ``from x import _y``, and
the module names a process is told to load: ``__import__``/``import_module`` arguments,
``python -m`` targets and ``"module:attribute"`` references (a `Product`'s handlers).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("venom_proto", "venom_schema", "venom_gen", "venom_mcp", "venom_echo", "venom_notes")

_NAME = r"(?:{})(?:\.\w+)*".format("|".join(PACKAGES))
#: ``import a.b, c`` / ``from a.b import c, d`` (a name list may continue in parentheses).
_IMPORT = re.compile(rf"^\s*import\s+({_NAME}(?:\s*,\s*{_NAME})*)", re.M)
_FROM = re.compile(rf"^\s*from\s+({_NAME})\s+import\s+(?:\(([^)]*)\)|([^\n(#]*))", re.M)
#: Module names handed to the import system or to ``python -m`` as strings.
_STRING = re.compile(
    rf"""(?:__import__|import_module)\(\s*["']({_NAME})["']"""
    rf"""|["']-m["']\s*,\s*["']({_NAME})["']"""
    rf"""|-m\s+({_NAME})\b"""
    rf"""|["']({_NAME}):[\w.]+["']"""
)
SELF = Path(__file__).resolve().relative_to(ROOT)
#: The conformance suite's mutants break a daemon's internals on purpose, one MUST each: they
#: must reach the private code a public API would never expose (tests/conformance/mutants).
MUTANTS = Path("tests/conformance/mutants/sitecustomize.py")
_FENCE = re.compile(r"^(`{3,}|~{3,})[^\n]*\n(.*?)^\1", re.M | re.S)


def _private(component: str) -> bool:
    """``_name`` is private; ``__main__`` and ``__init__`` are not."""
    return component.startswith("_") and not (
        component.startswith("__") and component.endswith("__")
    )


def _owner(path: Path) -> str | None:
    parts = path.parts
    if path.suffix == ".tmpl" or len(parts) < 2 or parts[0] not in ("packages", "examples"):
        return None
    return parts[1].replace("-", "_")


def _code(path: Path) -> str:
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".md":
        return "\n".join(m.group(2) for m in _FENCE.finditer(text))
    return text


def private_imports(path: Path, text: str) -> list[str]:
    """The private modules of other packages that ``text`` (the code of ``path``) imports."""
    owner = _owner(path)
    targets: list[str] = []
    for match in _IMPORT.finditer(text):
        targets += [name.strip() for name in match.group(1).split(",")]
    for match in _FROM.finditer(text):
        module = match.group(1)
        targets.append(module)
        listed = match.group(2) if match.group(2) is not None else match.group(3)
        names = [n.split()[0] for n in listed.split(",") if n.strip()]
        targets += [f"{module}.{n}" for n in names if n.startswith("_")]
    for match in _STRING.finditer(text):
        targets += [g for g in match.groups() if g]
    return sorted(
        {
            t
            for t in targets
            if t.split(".")[0] != owner and any(_private(p) for p in t.split(".")[1:])
        }
    )


def _tracked() -> list[Path]:
    out = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout
    files = [Path(p) for p in out.decode().split("\0") if p]
    return [p for p in files if p.suffix in (".py", ".tmpl", ".md") and (ROOT / p).is_file()]


def test_no_file_imports_another_packages_private_modules() -> None:
    offenders = []
    for path in _tracked():
        if path in (SELF, MUTANTS):  # its samples below, and the mutants, offend on purpose
            continue
        for target in private_imports(path, _code(ROOT / path)):
            offenders.append(f"{path}: {target}")
    assert offenders == []


def test_the_tree_walk_reaches_generated_code_templates_and_docs() -> None:
    paths = {p.as_posix() for p in _tracked()}
    assert "packages/venom-echo/src/venom_echo/client.py" in paths  # generated
    assert "packages/venom-gen/src/venom_gen/build/scaffold/templates/product.py.tmpl" in paths
    assert "docs/tutorial.md" in paths


def test_the_check_can_fail() -> None:
    """Each form is caught from outside a package, and allowed inside the owner."""
    outside = Path("tests/x.py")
    code = (
        "import venom_proto._core.errors\n"
        "from venom_schema.runtime._checks import x\n"
        "from venom_proto import _server, Server\n"
        "from venom_gen.cli import (\n    _argv,\n    main,\n)\n"
        '__import__("venom_mcp._cli")\n'
        'run(["python", "-m", "venom_gen.build._private"])\n'
        'Product(handlers="venom_echo._hidden:handlers")\n'
    )
    assert private_imports(outside, code) == [
        "venom_echo._hidden",
        "venom_gen.build._private",
        "venom_gen.cli._argv",
        "venom_mcp._cli",
        "venom_proto._core.errors",
        "venom_proto._server",
        "venom_schema.runtime._checks",
    ]
    inside = Path("packages/venom-proto/tests/x.py")
    assert private_imports(inside, "from venom_proto._core import errors\n") == []
    template = Path("packages/venom-gen/src/venom_gen/build/scaffold/templates/x.py.tmpl")
    assert private_imports(template, "from venom_gen._files import x\n") == ["venom_gen._files"]
    markdown = (
        "Prose names `venom_proto._core` freely.\n\n```python\nimport venom_gen._files\n```\n"
    )
    assert _FENCE.sub("", markdown).count("venom_proto._core") == 1
    assert private_imports(
        Path("docs/x.md"), "\n".join(m.group(2) for m in _FENCE.finditer(markdown))
    ) == ["venom_gen._files"]
