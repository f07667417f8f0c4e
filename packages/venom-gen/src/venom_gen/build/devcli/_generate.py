"""The generator commands: generate (every derived file of a product), and its building blocks
catalog, markdown, man, completions, skill, model, client, all, export-zon, handler-types and
verb-types."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from venom_gen.build import artifacts
from venom_gen.build.devcli._files import find_extras
from venom_gen.build.devcli._output import (
    CheckOpt,
    ManifestArg,
    OutOpt,
    PythonOpt,
    emit,
    say,
    sync,
    write_stdout,
)
from venom_gen.build.devcli._source import (
    DevCliError,
    load,
    load_python,
    model_cache_text,
    resolve_declaration,
)
from venom_gen.build.zon_export import exported_zon
from venom_proto.model_cache import cache_path
from venom_schema.grants import GRANTS

__all__ = (
    "all_",
    "catalog",
    "client",
    "completions",
    "export_zon",
    "generate",
    "handler_types",
    "man",
    "markdown",
    "model",
    "skill",
    "verb_types",
)


class ShellName(StrEnum):
    """Shells with completion scripts."""

    bash = "bash"
    zsh = "zsh"
    fish = "fish"


def catalog(
    manifest: ManifestArg = None,
    python: PythonOpt = None,
    grant: Annotated[
        list[str] | None,
        typer.Option("--grant", help="List only verbs needing this grant (repeatable)."),
    ] = None,
    out: OutOpt = None,
    check: CheckOpt = False,
) -> None:
    """The MCP tool catalog as JSON (catalog.json)."""
    unknown = sorted(set(grant or ()) - set(GRANTS))
    if unknown:
        raise DevCliError(f"unknown grant {unknown[0]!r}; grants: {', '.join(GRANTS)}", exit_code=2)
    model = load(manifest, python).model
    emit(artifacts.catalog_files(model, grants=grant), out=out, check=check, what="catalog")


def markdown(
    manifest: ManifestArg = None,
    python: PythonOpt = None,
    out: OutOpt = None,
    check: CheckOpt = False,
) -> None:
    """The Markdown reference (<tool>.md)."""
    model = load(manifest, python).model
    emit(artifacts.markdown_files(model), out=out, check=check, what="markdown")


def man(
    manifest: ManifestArg = None,
    python: PythonOpt = None,
    page: Annotated[
        str | None, typer.Option("--page", metavar="NAME", help="Print only this page.")
    ] = None,
    out: OutOpt = None,
    check: CheckOpt = False,
) -> None:
    """man pages: every page into --out DIR, or one page (--page NAME) on stdout."""
    pages = artifacts.man_files(load(manifest, python).model)
    if page is not None:
        name = page if page.endswith(".1") else page + ".1"
        if name not in pages:
            raise DevCliError(f"no man page {page!r}; pages: {', '.join(sorted(pages))}")
        pages = {name: pages[name]}
    emit(pages, out=out, check=check, what="man")


def completions(
    shell: Annotated[ShellName, typer.Argument(metavar="SHELL", help="bash, zsh or fish.")],
    manifest: ManifestArg = None,
    python: PythonOpt = None,
    out: OutOpt = None,
    check: CheckOpt = False,
) -> None:
    """A shell completion script (<tool>.bash, _<tool> or <tool>.fish)."""
    model = load(manifest, python).model
    files = artifacts.completion_files(model, shell.value)
    emit(files, out=out, check=check, what="completions")


def skill(
    manifest: ManifestArg = None,
    python: PythonOpt = None,
    out: OutOpt = None,
    check: CheckOpt = False,
) -> None:
    """The agent skill (SKILL.md)."""
    model = load(manifest, python).model
    emit(artifacts.skill_files(model), out=out, check=check, what="skill")


def service(
    manifest: ManifestArg = None,
    python: PythonOpt = None,
    command: Annotated[
        str | None,
        typer.Option(
            "--command",
            metavar="PATH",
            help="The binary's absolute path (default: ~/.local/bin/<tool>).",
        ),
    ] = None,
    out: OutOpt = None,
    check: CheckOpt = False,
) -> None:
    """systemd user units (<tool>.socket, <tool>.service) and a launchd agent plist."""
    if command is not None and not command.startswith("/"):
        raise DevCliError(f"--command must be an absolute path, not {command!r}")
    model = load(manifest, python).model
    emit(artifacts.service_files(model, command), out=out, check=check, what="service")


def model(
    manifest: Annotated[
        Path, typer.Argument(metavar="MANIFEST", help="The verbs.zon manifest.", dir_okay=False)
    ],
    out: OutOpt = None,
    check: CheckOpt = False,
) -> None:
    """The verbs.model.json cache the generated CLI reads (next to MANIFEST by default)."""
    target = Path(cache_path(manifest))
    if out is not None:
        target = out / target.name
    sync({target: model_cache_text(manifest)}, check=check)


def all_(
    manifest: ManifestArg = None,
    python: PythonOpt = None,
    *,
    out: Annotated[
        Path, typer.Option("--out", metavar="DIR", help="The artifact directory.", file_okay=False)
    ],
    check: CheckOpt = False,
    prune: Annotated[
        bool,
        typer.Option(
            "--prune",
            help="Delete files in DIR's docs/, man/ and completions/ that are not generated.",
        ),
    ] = False,
) -> None:
    """Every artifact into DIR (docs/, man/, completions/, SKILL.md, catalog.json) plus the
    model cache next to MANIFEST."""
    loaded = load(manifest, python)
    files = {out / name: text for name, text in artifacts.all_artifacts(loaded.model).items()}
    extras = find_extras(out, artifacts.SUBDIRS, files)
    if loaded.manifest is not None:
        files[Path(cache_path(loaded.manifest))] = model_cache_text(loaded.manifest)
    else:
        say("venom-gen: no model cache for a --python declaration (it is keyed on verbs.zon)")
    sync(files, check=check, extras=extras, prune=prune)


#: ``--out FILE`` of the commands that write one file (a module, a manifest).
FileOutOpt = Annotated[
    Path | None,
    typer.Option(
        "--out",
        metavar="FILE",
        dir_okay=False,
        help="Write it to FILE instead of stdout.",
        show_default=False,
    ),
]


def _emit_file(text: str, out: Path | None, check: bool) -> None:
    if out is None:
        if check:
            raise DevCliError("--check needs --out FILE", exit_code=2)
        write_stdout(text)
        return
    sync({out: text}, check=check)


def client(
    manifest: ManifestArg = None,
    python: PythonOpt = None,
    out: FileOutOpt = None,
    check: CheckOpt = False,
) -> None:
    """A typed Python client module (sync and async classes) over venom-proto; its types are
    the verb-types module beside it (``venom-gen verb-types``)."""
    from venom_gen.build.client_gen import render_client

    _emit_file(render_client(load(manifest, python).model), out, check)


def export_zon(
    declaration: Annotated[
        str,
        typer.Argument(
            metavar="MODULE:ATTRIBUTE",
            help="A venom_schema.declare.Declaration (or a callable returning one).",
        ),
    ],
    out: FileOutOpt = None,
    check: CheckOpt = False,
) -> None:
    """The data-only verbs.zon of a Python declaration (validated first; reads back the same)."""
    load_python(declaration)  # refuse to write a manifest the validator would refuse
    _emit_file(exported_zon(resolve_declaration(declaration), declaration), out, check)


def handler_types(
    manifest: ManifestArg = None,
    python: PythonOpt = None,
    out: FileOutOpt = None,
    check: CheckOpt = False,
) -> None:
    """A typed-handlers module: a Protocol and bind_handlers over the verb-types module."""
    from venom_gen.build.handler_types import render_handler_types

    _emit_file(render_handler_types(load(manifest, python).model), out, check)


def verb_types(
    manifest: ManifestArg = None,
    python: PythonOpt = None,
    out: FileOutOpt = None,
    check: CheckOpt = False,
) -> None:
    """The verb-types module (``verb_types.py``) the typed client and handlers import."""
    from venom_gen.build.verb_types import render_verb_types

    _emit_file(render_verb_types(load(manifest, python).model), out, check)


def generate(
    project: Annotated[
        Path | None,
        typer.Option(
            "--project",
            metavar="DIR",
            file_okay=False,
            help="The product's directory (default: the nearest one above the working"
            " directory whose pyproject.toml has [tool.venom]).",
            show_default=False,
        ),
    ] = None,
    check: Annotated[
        bool,
        typer.Option(
            "--check", help="Write nothing; exit 1 listing every derived file that differs."
        ),
    ] = False,
) -> None:
    """Bring every derived file of a product up to date from its declaration or manifest.

    The product names them in [tool.venom] of its pyproject.toml: the exported verbs.zon, the
    model cache, docs, man pages, completions, skill, catalog, service files, the verb-types
    and typed-handlers modules and the typed client. Files in the generated directory that
    are not generated are removed (listed with --check)."""
    from venom_gen.build.artifacts import SUBDIRS
    from venom_gen.build.regenerate import (
        ProjectError,
        derived_files,
        find_project,
        load_project,
    )

    try:
        product = load_project(project if project is not None else find_project())
        files = derived_files(product)
    except ProjectError as exc:
        raise DevCliError(str(exc)) from None
    extras = find_extras(product.generated, SUBDIRS, files)
    sync(files, check=check, extras=extras, prune=True, command="venom-gen generate")
