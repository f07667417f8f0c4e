"""``venom-gen new``: scaffold a product package that passes its own tests without edits.

The product gets one verb (``greet``), declared in Python on pydantic (``declaration.py``; with
``zon=True`` in a hand-written ``verbs.zon`` instead), its typed handler, the one-binary
``main()``, and every file ``venom-gen generate`` derives (the exported ``verbs.zon``, the
model cache, ``generated/``, the typed modules), with tests on the public test kit that boot
the daemon and call it over the socket, the CLI and MCP, and a freshness test.
"""

from __future__ import annotations

import dataclasses
import keyword
import os
import runpy
import tomllib
from importlib.resources import files
from pathlib import Path
from string import Template
from typing import Final

from venom_gen.build.regenerate import derived_files, load_project
from venom_gen.build.zon_export import exported_zon
from venom_proto.conventions import TOOL_NAME_PATTERN, is_tool_name

__all__ = (
    "LAYOUT",
    "PYTHON_LAYOUT",
    "ZON_LAYOUT",
    "ScaffoldError",
    "module_name",
    "scaffold_product",
    "workspace_root",
)

#: Where each template goes, relative to the project directory (``{module}`` substituted).
LAYOUT: Final[dict[str, str]] = {
    "pyproject.toml.tmpl": "pyproject.toml",
    "README.md.tmpl": "README.md",
    "__init__.py.tmpl": "src/{module}/__init__.py",
    "__main__.py.tmpl": "src/{module}/__main__.py",
    "product.py.tmpl": "src/{module}/product.py",
    "_version.py.tmpl": "src/{module}/_version.py",
    "handlers.py.tmpl": "src/{module}/handlers.py",
    "conftest.py.tmpl": "tests/conftest.py",
    "test_model.py.tmpl": "tests/test_{module}_model.py",
    "test_handlers.py.tmpl": "tests/test_{module}_handlers.py",
    "test_surfaces.py.tmpl": "tests/test_{module}_surfaces.py",
    "test_release.py.tmpl": "tests/test_{module}_release.py",
    "test_conformance.py.tmpl": "tests/test_{module}_conformance.py",
}
#: The source of the verbs, by path: a Python declaration (the default), or a ZON manifest.
PYTHON_LAYOUT: Final[dict[str, str]] = {"declaration.py.tmpl": "src/{module}/declaration.py"}
ZON_LAYOUT: Final[dict[str, str]] = {"verbs.zon.tmpl": "src/{module}/verbs.zon"}

_WORKSPACE_TAIL = """
[tool.uv.sources]
venom-proto = { workspace = true }
venom-schema = { workspace = true }
venom-gen = { workspace = true }
venom-mcp = { workspace = true }
"""
_WORKSPACE_INSTALL = """\
It is a member of your uv workspace: `uv sync --all-packages` installs it with its siblings."""
_STANDALONE_INSTALL = """\
## Install

With [uv](https://docs.astral.sh/uv/) on PATH, make a virtual environment holding the product
(editable) and the author's tools (the `dev` group), and activate it. Until the venom packages
are on a package index, they come from a directory of wheels built in a checkout of
venom-python: `.uv/bin/uv run --locked nox -s dist` writes them all to its `dist/`; point
`VENOM_WHEELS` at it (`export VENOM_WHEELS=~/venom-python/dist`). Once they are published, drop
`--find-links "$VENOM_WHEELS"`.

```console
$ uv venv -q && uv pip install -q --find-links "$VENOM_WHEELS" -e . --group dev
$ source .venv/bin/activate
```"""
_STANDALONE_TOOL = """
## Install it as a tool

Build its wheel and install it, with `uv tool`, where your shell finds it (`~/.local/bin`; the
project's environment, still active here, comes first on PATH until you `deactivate` it):

```console
$$ uv build -q --wheel -o dist
$$ uv tool install -q --find-links dist --find-links "$$VENOM_WHEELS" $tool
$$ ~/.local/bin/$tool --version
$tool 0.1.0
$$ ~/.local/bin/$tool man install
...
```

`$tool man install` copied its man pages to `~/.local/share/man/man1`, where `man $tool`
finds them; `source <($tool completion bash)` loads its completions (zsh and fish alike).
"""
_STANDALONE_TAIL = """
[tool.pytest.ini_options]
addopts = ["--import-mode=importlib"]
testpaths = ["tests"]

[tool.ruff]
line-length = 100
"""


class ScaffoldError(Exception):
    """Raised by `scaffold_product` for a bad name or a destination that is not empty."""


def module_name(tool: str) -> str:
    """The import name of ``tool``: ``venom-foo`` -> ``venom_foo``."""
    return tool.replace("-", "_")


def _check(tool: str, dest: Path) -> None:
    if not is_tool_name(tool):
        raise ScaffoldError(f"{tool!r} is not a tool name: it must match {TOOL_NAME_PATTERN}")
    module = module_name(tool)
    if not module.isidentifier() or keyword.iskeyword(module):
        raise ScaffoldError(f"{tool!r} does not give a Python module name ({module!r})")
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise ScaffoldError(f"{dest} exists and is not an empty directory")


def workspace_root(dest: str | os.PathLike[str]) -> Path | None:
    """The uv workspace ``dest`` would be a member of: the nearest directory above it whose
    ``pyproject.toml`` has a ``[tool.uv.workspace]`` table; None outside any."""
    for directory in Path(dest).resolve().parents:
        pyproject = directory / "pyproject.toml"
        try:
            data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            continue
        if isinstance(data.get("tool", {}).get("uv", {}).get("workspace"), dict):
            return directory
    return None


def _render(template: str, tool: str, *, standalone: bool, zon: bool) -> str:
    text = files(__name__).joinpath("templates", template).read_text(encoding="utf-8")
    module = module_name(tool)
    spec = f"{module}.declaration:DECLARATION"
    return Template(text).substitute(
        tool=tool,
        module=module,
        summary=f"The {tool} daemon",
        tail=_STANDALONE_TAIL if standalone else _WORKSPACE_TAIL,
        install=_STANDALONE_INSTALL if standalone else _WORKSPACE_INSTALL,
        tool_install=Template(_STANDALONE_TOOL).substitute(tool=tool) if standalone else "",
        pydantic="" if zon else '\n    "pydantic>=2.14,<3",',
        pydantic_why="" if zon else ", pydantic",
        venom_source="# a hand-written manifest" if zon else f'declaration = "{spec}"',
        declared=f"`src/{module}/{'verbs.zon' if zon else 'declaration.py'}`",
        loop_source=(
            "its source is the hand-written `verbs.zon`"
            if zon
            else "it exports `verbs.zon` from the declaration"
        ),
    )


def scaffold_product(
    name: str, dest: str | os.PathLike[str], *, standalone: bool, zon: bool = False
) -> list[Path]:
    """Create the product ``name`` in the directory ``dest`` (created; must be empty if present).

    ``standalone=False`` makes a member of the uv workspace ``dest`` is in (its siblings as
    ``{ workspace = true }``; `ScaffoldError` outside any workspace); ``standalone=True`` a
    project of its own that installs the venom packages from an index or a wheel directory
    (``--find-links``, docs/releasing.md). The verbs are declared in Python
    (``declaration.py``), or with ``zon=True`` in a hand-written ``verbs.zon``. Returns the
    files written, in order. Raises `ScaffoldError`, or ``OSError`` when ``dest`` is unwritable.
    """
    root = Path(dest)
    _check(name, root)
    if not standalone and workspace_root(root) is None:
        raise ScaffoldError(
            f"{root} is not inside a uv workspace (no pyproject.toml with [tool.uv.workspace]"
            " above it), so a workspace member's venom-* sources would not resolve; pass"
            " --standalone for a project that installs them from an index or a wheel directory"
        )
    module = module_name(name)
    written: list[Path] = []

    def write(relative: str, text: str) -> Path:
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
        return path

    layout = {**LAYOUT, **(ZON_LAYOUT if zon else PYTHON_LAYOUT)}
    for template, relative in layout.items():
        text = _render(template, name, standalone=standalone, zon=zon)
        write(relative.format(module=module), text)
    write(f"src/{module}/py.typed", "")
    project = load_project(root)
    if not zon:
        write(f"src/{module}/verbs.zon", _exported(project.manifest.with_name("declaration.py")))
    # The rest exactly as `venom-gen generate` makes it, from the verbs.zon now on disk.
    for path, text in derived_files(dataclasses.replace(project, declaration=None)).items():
        write(path.relative_to(project.root).as_posix(), text)
    return written


def _exported(declaration: Path) -> str:
    """The scaffolded declaration's export, run from its file rather than imported: a module
    of the same name may already be imported in this process (the product's own tests)."""
    from venom_schema.declare import Declaration

    found = runpy.run_path(os.fspath(declaration), run_name="__venom_scaffold__")
    target = found["DECLARATION"]
    assert isinstance(target, Declaration)
    return exported_zon(target, f"{declaration.parent.name}.declaration:DECLARATION")
