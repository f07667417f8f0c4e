"""``venom-gen new``: scaffold a product package that passes its own tests without edits.

The product gets one verb (``greet``), its handler, the one-binary ``main()``, the compiled model,
the generated docs (``generated/``) and tests that boot the daemon and call it over the socket,
the CLI and MCP, plus staleness checks of the model and of the docs.
"""

from __future__ import annotations

import keyword
import os
import tomllib
from importlib.resources import files
from pathlib import Path
from string import Template
from typing import Final

from venom_gen.build.artifacts import all_artifacts
from venom_proto.conventions import TOOL_NAME_PATTERN, is_tool_name
from venom_proto.model_cache import cache_path
from venom_schema.model_cache import compile_model

__all__ = (
    "LAYOUT",
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
    "verbs.zon.tmpl": "src/{module}/verbs.zon",
    "conftest.py.tmpl": "tests/conftest.py",
    "test_model.py.tmpl": "tests/test_{module}_model.py",
    "test_handlers.py.tmpl": "tests/test_{module}_handlers.py",
    "test_surfaces.py.tmpl": "tests/test_{module}_surfaces.py",
    "test_conformance.py.tmpl": "tests/test_{module}_conformance.py",
}

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
Install it, with its test tools, into a virtual environment. Until the venom packages are on an
index, take them from a directory of wheels built in a checkout of venom-python with
`uv build --all-packages --no-sources --wheel -o dist/` (docs/releasing.md):

    uv venv && uv pip install --find-links /path/to/venom-python/dist -e . --group dev"""
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


def _render(template: str, tool: str, *, standalone: bool) -> str:
    text = files(__name__).joinpath("templates", template).read_text(encoding="utf-8")
    return Template(text).substitute(
        tool=tool,
        module=module_name(tool),
        summary=f"The {tool} daemon",
        tail=_STANDALONE_TAIL if standalone else _WORKSPACE_TAIL,
        install=_STANDALONE_INSTALL if standalone else _WORKSPACE_INSTALL,
    )


def scaffold_product(name: str, dest: str | os.PathLike[str], *, standalone: bool) -> list[Path]:
    """Create the product ``name`` in the directory ``dest`` (created; must be empty if present).

    ``standalone=False`` makes a member of the uv workspace ``dest`` is in (its siblings as
    ``{ workspace = true }``; `ScaffoldError` outside any workspace); ``standalone=True`` a
    project of its own that installs the venom packages from an index or a wheel directory
    (``--find-links``, docs/releasing.md). Returns the
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

    for template, relative in LAYOUT.items():
        write(relative.format(module=module), _render(template, name, standalone=standalone))
    write(f"src/{module}/py.typed", "")
    package = root / "src" / module
    model = compile_model(package / "verbs.zon")
    written.append(Path(cache_path(package / "verbs.zon")))
    for relative, text in all_artifacts(model).items():
        write(f"src/{module}/generated/{relative}", text)
    return written
