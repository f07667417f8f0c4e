"""Every derived file of a product, from the one source its ``pyproject.toml`` names.

A product says once where its verbs are declared, in ``[tool.venom]`` of its ``pyproject.toml``
(paths relative to that file)::

    [tool.venom]
    declaration = "venom_foo.declaration:DECLARATION"   # optional: a Python declaration
    manifest = "src/venom_foo/verbs.zon"                # its export, or the hand-written source
    # generated = "src/venom_foo/generated"             # the defaults, beside the manifest
    # verb-types = "src/venom_foo/verb_types.py"        # (false: not generated)
    # handler-types = "src/venom_foo/handler_types.py"
    # client = "src/venom_foo/client.py"                # only when named

From it come the exported ``verbs.zon`` (with a ``declaration``), the model cache beside the
manifest, the artifacts of `venom_gen.build.artifacts` (docs, man pages, completions, skill,
catalog, service files) under ``generated``, the verb-types and typed-handlers modules and,
when named, the typed client. ``venom-gen generate`` writes them (``--check`` compares);
`stale_files` is the same comparison for a product's own freshness test.
"""

from __future__ import annotations

import os
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from venom_gen.build.artifacts import SUBDIRS, all_artifacts
from venom_gen.build.devcli._files import Drift, find_drift, find_extras
from venom_gen.build.devcli._source import (
    DevCliError,
    load_python,
    resolve_declaration,
    warn_long_tool_names,
)
from venom_gen.build.zon_export import exported_zon
from venom_proto.model_cache import cache_path
from venom_schema.model import Model
from venom_schema.model_cache import compile_model

__all__ = (
    "KEYS",
    "ProjectError",
    "VenomProject",
    "derived_files",
    "find_project",
    "load_project",
    "stale_files",
)

#: The keys ``[tool.venom]`` may hold; any other is refused (a typo would silently do nothing).
KEYS: Final = ("declaration", "manifest", "generated", "verb-types", "handler-types", "client")


class ProjectError(Exception):
    """No product here, or its ``[tool.venom]`` table is wrong: the message says which."""


@dataclass(frozen=True, slots=True)
class VenomProject:
    """A product's sources and derived files, as absolute paths."""

    root: Path
    manifest: Path
    declaration: str | None
    generated: Path
    verb_types: Path | None
    handler_types: Path | None
    client: Path | None


def find_project(start: str | os.PathLike[str] = ".") -> Path:
    """The nearest directory at or above ``start`` whose ``pyproject.toml`` has ``[tool.venom]``."""
    here = Path(start).resolve()
    for directory in (here, *here.parents):
        pyproject = directory / "pyproject.toml"
        tool = _read(pyproject).get("tool") if pyproject.is_file() else None
        if isinstance(tool, dict) and "venom" in tool:
            return directory
    raise ProjectError(
        f"no pyproject.toml with a [tool.venom] table at or above {here}: name the product's"
        ' declaration there (declaration = "pkg.declaration:DECLARATION" and manifest ='
        ' "src/pkg/verbs.zon", or manifest alone), or pass --project DIR'
    )


def _read(pyproject: Path) -> dict[str, object]:
    try:
        return tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ProjectError(f"{pyproject}: {exc}") from None


def _path(table: dict[str, object], key: str, root: Path, default: Path | None) -> Path | None:
    value = table.get(key, default if default is None else os.fspath(default))
    if value is False or value is None:
        return None
    if not isinstance(value, str) or not value:
        raise ProjectError(f"[tool.venom] {key}: expected a path relative to pyproject.toml")
    return root / value


def load_project(root: str | os.PathLike[str]) -> VenomProject:
    """Read ``[tool.venom]`` of ``root/pyproject.toml``; raises `ProjectError`."""
    base = Path(root).resolve()
    pyproject = base / "pyproject.toml"
    if not pyproject.is_file():
        raise ProjectError(f"{base}: no pyproject.toml")
    tool = _read(pyproject).get("tool", {})
    table = tool.get("venom") if isinstance(tool, dict) else None
    if not isinstance(table, dict):
        raise ProjectError(f"{pyproject}: no [tool.venom] table")
    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        raise ProjectError(f"{pyproject}: [tool.venom] has no key {unknown[0]!r}; keys: {KEYS}")
    declaration = table.get("declaration")
    if declaration is not None and (not isinstance(declaration, str) or ":" not in declaration):
        raise ProjectError(f"{pyproject}: [tool.venom] declaration: expected 'module:attribute'")
    manifest = _path(table, "manifest", base, None)
    if manifest is None:
        raise ProjectError(f'{pyproject}: [tool.venom] needs manifest = "path/to/verbs.zon"')
    beside = manifest.parent
    generated = _path(table, "generated", base, beside / "generated")
    assert generated is not None  # a default is given
    return VenomProject(
        root=base,
        manifest=manifest,
        declaration=declaration,
        generated=generated,
        verb_types=_path(table, "verb-types", base, beside / "verb_types.py"),
        handler_types=_path(table, "handler-types", base, beside / "handler_types.py"),
        client=_path(table, "client", base, None),
    )


def _importable(project: VenomProject) -> None:
    """Put the product's ``src`` first on ``sys.path``: its declaration is the checkout's."""
    src = os.fspath(project.root / "src")
    if os.path.isdir(src) and src not in sys.path:
        sys.path.insert(0, src)


def _compiled(project: VenomProject, zon: str | None) -> tuple[Model, str]:
    """The model and the exact model-cache text of the manifest (``zon`` when exported)."""
    with tempfile.TemporaryDirectory(prefix="venom-gen-") as scratch:
        source = project.manifest
        if zon is not None:  # compile what the file will hold, not what it holds
            source = Path(scratch) / project.manifest.name
            source.write_text(zon, encoding="utf-8")
        target = Path(scratch) / Path(cache_path(project.manifest)).name
        model = compile_model(source, target)
        return model, target.read_bytes().decode("utf-8")


def derived_files(project: VenomProject) -> dict[Path, str]:
    """Every file the product derives from its declaration or manifest, and its exact text.

    Raises `ProjectError` for a declaration that cannot be imported or lowered, what loading
    a manifest raises (`venom_schema.manifest.ManifestError`, ``ZonError``, ``OSError``) and
    ``GenerationError`` for a model a generator cannot render.
    """
    files: dict[Path, str] = {}
    zon: str | None = None
    if project.declaration is not None:
        _importable(project)
        spec = project.declaration
        try:
            load_python(spec)  # validated first, with the declaration's own errors
            zon = exported_zon(resolve_declaration(spec), spec)
        except DevCliError as exc:
            message = exc.message.removeprefix(f"--python {spec}: ")
            raise ProjectError(f"[tool.venom] declaration {spec}: {message}") from None
        files[project.manifest] = zon
    model, cache = _compiled(project, zon)
    warn_long_tool_names(model)
    files[Path(cache_path(project.manifest))] = cache
    for name, text in all_artifacts(model).items():
        files[project.generated / name] = text
    if project.verb_types is not None:
        from venom_gen.build.verb_types import render_verb_types

        files[project.verb_types] = render_verb_types(model)
    if project.handler_types is not None:
        from venom_gen.build.handler_types import render_handler_types

        files[project.handler_types] = render_handler_types(model)
    if project.client is not None:
        from venom_gen.build.client_gen import render_client

        files[project.client] = render_client(model)
    return files


def _extras(project: VenomProject, files: dict[Path, str]) -> list[Drift]:
    """Files in the generated directory's own subdirectories that are not generated."""
    return find_extras(project.generated, SUBDIRS, files)


def stale_files(project: VenomProject) -> list[str]:
    """What ``venom-gen generate --check`` reports: one entry per missing, stale or extra file,
    each ``kind: path`` and a short diff; empty when every derived file is up to date."""
    files = derived_files(project)
    return [drift.render() for drift in (*find_drift(files), *_extras(project, files))]
