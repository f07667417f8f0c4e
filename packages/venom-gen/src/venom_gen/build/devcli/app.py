"""The ``venom-gen`` typer application: validation commands here, generators in ``_generate``.

Every command reads a ``verbs.zon`` MANIFEST or a ``--python MODULE:ATTRIBUTE`` declaration.
Failures print a message on stderr (never a traceback) and exit 1; command-line mistakes exit 2.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from venom_gen.build.artifacts import normalized_json
from venom_gen.build.devcli import _compat, _generate
from venom_gen.build.devcli._output import ManifestArg, PythonOpt, guarded, say, write_stdout
from venom_gen.build.devcli._source import DevCliError, load
from venom_schema.canonical import digest as schema_digest
from venom_schema.manifest import ManifestError
from venom_schema.zon import parse_zon, zon_to_json

__all__ = (
    "app",
    "check",
    "digest",
    "main",
    "new",
    "normalize",
    "root",
    "zon",
)

app = typer.Typer(
    name="venom-gen",
    help="Validate a Venom verb manifest and generate its artifacts.",
    add_completion=False,
    no_args_is_help=True,
    invoke_without_command=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("venom-gen")
    except PackageNotFoundError:  # run from a source tree that is not installed
        return "0.0.0"


@app.callback()
def root(
    ctx: typer.Context,
    version: Annotated[
        bool, typer.Option("--version", help="Print venom-gen's version and exit.")
    ] = False,
    json_: Annotated[
        bool, typer.Option("--json", help='With --version: {"tool":...,"version":...}.')
    ] = False,
) -> None:
    """Validate a Venom verb manifest and generate its artifacts."""
    if version:
        if ctx.invoked_subcommand is not None:
            got = ctx.invoked_subcommand
            say(f"venom-gen: --version goes alone, before any command (got {got!r})")
            raise typer.Exit(2)
        if json_:
            typer.echo(
                json.dumps({"tool": "venom-gen", "version": _version()}, separators=(",", ":"))
            )
        else:
            typer.echo(f"venom-gen {_version()}")
        raise typer.Exit(0)
    if ctx.invoked_subcommand is None:
        say(ctx.get_help())
        raise typer.Exit(2)


@app.command()
@guarded
def check(manifest: ManifestArg = None, python: PythonOpt = None) -> None:
    """Validate; print every problem as `path: message` (exit 1) or one OK line."""
    try:
        loaded = load(manifest, python)
    except ManifestError as exc:
        for problem in exc.problems:
            say(problem)
        say(f"{exc.source}: {len(exc.problems)} problem(s)")
        raise typer.Exit(1) from None
    verbs = len(loaded.model["verbs"])
    typer.echo(f"{loaded.source}: OK ({loaded.model['tool']}, {verbs} verbs)")


@app.command()
@guarded
def normalize(
    manifest: ManifestArg = None,
    python: PythonOpt = None,
    pretty: Annotated[bool, typer.Option("--pretty", help="Indent (keys still sorted).")] = False,
) -> None:
    """The normalized model as canonical JSON: the digested bytes, no final newline."""
    write_stdout(normalized_json(load(manifest, python).model, pretty=pretty))


@app.command()
@guarded
def digest(manifest: ManifestArg = None, python: PythonOpt = None) -> None:
    """The schema digest, sha256:<hex> (RFC-0004 §7)."""
    write_stdout(schema_digest(load(manifest, python).model) + "\n")


@app.command()
@guarded
def zon(
    file: Annotated[
        Path, typer.Argument(metavar="FILE", help="A ZON file, or - for stdin.", dir_okay=False)
    ],
    compact: Annotated[bool, typer.Option("--compact", help="One line, no indentation.")] = False,
) -> None:
    """Print any ZON value as tagged JSON, or its error as `file:line:col: message`."""
    name = os.fspath(file)
    data = sys.stdin.buffer.read() if name == "-" else file.read_bytes()
    value = zon_to_json(parse_zon(data, "<stdin>" if name == "-" else name))
    indent = None if compact else 2
    write_stdout(json.dumps(value, ensure_ascii=False, indent=indent) + "\n")


@app.command()
@guarded
def new(
    name: Annotated[str, typer.Argument(help="The tool name, e.g. venom-foo.")],
    dest: Annotated[
        Path | None,
        typer.Option(
            "--dest",
            metavar="DIR",
            file_okay=False,
            help="The project directory (default: ./NAME).",
        ),
    ] = None,
    standalone: Annotated[
        bool, typer.Option("--standalone", help="A project outside the uv workspace.")
    ] = False,
    zon: Annotated[
        bool,
        typer.Option("--zon", help="Declare the verbs in a verbs.zon manifest, not in Python."),
    ] = False,
) -> None:
    """Scaffold a product package that passes its own tests (verbs declared in Python)."""
    from venom_gen.build.scaffold import ScaffoldError, scaffold_product

    target = dest if dest is not None else Path(name)
    try:
        paths = scaffold_product(name, target, standalone=standalone, zon=zon)
    except ScaffoldError as exc:
        raise DevCliError(str(exc)) from None
    say(f"created {name} in {target}: {len(paths)} files")


app.command()(guarded(_generate.generate))
app.command()(guarded(_generate.catalog))
app.command()(guarded(_generate.markdown))
app.command()(guarded(_generate.man))
app.command()(guarded(_generate.completions))
app.command()(guarded(_generate.skill))
app.command()(guarded(_generate.service))
app.command()(guarded(_generate.model))
app.command()(guarded(_generate.client))
app.command("all")(guarded(_generate.all_))
app.command("export-zon")(guarded(_generate.export_zon))
app.command("handler-types")(guarded(_generate.handler_types))
app.command("verb-types")(guarded(_generate.verb_types))
app.command()(_compat.compat)


def main() -> None:
    """Run the CLI on ``sys.argv``."""
    app(prog_name="venom-gen")
