"""Where a model comes from: a ``verbs.zon`` file or a Python declaration (``--python``)."""

from __future__ import annotations

import importlib
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from venom_gen.render.catalog import HOST_NAME_MAX_BYTES, long_tool_names
from venom_proto.model_cache import cache_path
from venom_schema.manifest import load_manifest
from venom_schema.model import Model
from venom_schema.model_cache import compile_model

if TYPE_CHECKING:
    from venom_schema.declare import Declaration

__all__ = (
    "DevCliError",
    "Loaded",
    "load",
    "load_python",
    "model_cache_text",
    "resolve_declaration",
)


class DevCliError(Exception):
    """A user-facing failure raised by the devcli helpers: the message goes to stderr.

    ``exit_code`` is 1 for bad input and 2 for a bad command line.
    """

    def __init__(self, message: str, *, exit_code: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code


@dataclass(frozen=True, slots=True)
class Loaded:
    """A validated model and where it came from."""

    model: Model
    source: str
    manifest: Path | None  # None for a --python declaration


def load(manifest: Path | None, python: str | None) -> Loaded:
    """Validate exactly one of ``manifest`` and ``python``.

    Raises ``ManifestError`` (problems), ``ZonError`` (syntax), ``OSError`` (unreadable file)
    or ``DevCliError``.
    """
    if (manifest is None) == (python is None):
        raise DevCliError(
            "give either a MANIFEST file or --python MODULE:ATTRIBUTE (exactly one)", exit_code=2
        )
    if python is not None:
        loaded = Loaded(load_python(python), python, None)
    else:
        assert manifest is not None
        loaded = Loaded(load_manifest(manifest), os.fspath(manifest), manifest)
    warn_long_tool_names(loaded.model)
    return loaded


def warn_long_tool_names(model: Model) -> None:
    """A stderr warning per MCP tool name over 64 bytes (valid, but common hosts refuse it)."""
    for wire, name, size in long_tool_names(model):
        print(
            f"venom-gen: warning: verb {wire!r}: MCP tool name {name!r} is {size} bytes; common"
            f" MCP hosts refuse names over {HOST_NAME_MAX_BYTES} bytes (RFC-0004's limit is 128)",
            file=sys.stderr,
        )


def _resolve(spec: str) -> object:
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        raise DevCliError(f"--python {spec!r}: expected MODULE:ATTRIBUTE", exit_code=2)
    # A console script does not put the working directory on sys.path; `python -m` would.
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        target: object = importlib.import_module(module_name)
    except ImportError as exc:
        raise DevCliError(f"--python {spec}: cannot import {module_name!r}: {exc}") from None
    except Exception as exc:  # the module's own code failed: report it, no traceback
        raise DevCliError(
            f"--python {spec}: importing {module_name!r} raised {type(exc).__name__}: {exc}"
        ) from None
    for part in attribute.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise DevCliError(
                f"--python {spec}: {module_name!r} has no attribute {attribute!r}"
            ) from None
    return target


def load_python(spec: str) -> Model:
    """The normalized model of ``module:attribute``: a `venom_schema.declare.Declaration`, or
    a callable returning one."""
    from venom_schema.declare import DeclarationError

    declaration = resolve_declaration(spec)
    try:
        return declaration.model(source=spec)
    except DeclarationError as exc:
        raise DevCliError(f"--python {spec}: {exc}") from None


def resolve_declaration(spec: str) -> Declaration:
    """The `venom_schema.declare.Declaration` that ``module:attribute`` names or returns."""
    from venom_schema.declare import Declaration

    target = _resolve(spec)
    if not isinstance(target, Declaration) and callable(target):
        try:
            target = target()
        except Exception as exc:
            raise DevCliError(
                f"--python {spec}: calling it raised {type(exc).__name__}: {exc}"
            ) from None
    if not isinstance(target, Declaration):
        raise DevCliError(
            f"--python {spec}: expected a venom_schema.declare.Declaration (or a callable"
            f" returning one), got {type(target).__name__}"
        )
    return target


def model_cache_text(manifest: Path) -> str:
    """The exact text ``compile_model`` writes for ``manifest`` (compiled in a scratch dir)."""
    with tempfile.TemporaryDirectory(prefix="venom-gen-") as scratch:
        target = Path(scratch) / Path(cache_path(manifest)).name
        compile_model(manifest, target)
        return target.read_bytes().decode("utf-8")
