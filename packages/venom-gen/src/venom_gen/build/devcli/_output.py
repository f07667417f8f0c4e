"""The devcli's boundary: error reporting without tracebacks, stdout output and ``--out`` sync."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Annotated, ParamSpec

import typer

from venom_gen.build.devcli._files import Drift, find_drift, write_files
from venom_gen.build.devcli._source import DevCliError
from venom_gen.render._views import GenerationError
from venom_schema.manifest import ManifestError
from venom_schema.zon import ZonError

__all__ = (
    "CheckOpt",
    "ManifestArg",
    "OutOpt",
    "PythonOpt",
    "emit",
    "guarded",
    "say",
    "sync",
    "write_stdout",
)

P = ParamSpec("P")

ManifestArg = Annotated[
    Path | None,
    typer.Argument(
        metavar="MANIFEST", help="The verbs.zon manifest.", show_default=False, dir_okay=False
    ),
]
PythonOpt = Annotated[
    str | None,
    typer.Option(
        "--python",
        metavar="MODULE:ATTRIBUTE",
        help="A venom_schema.declare.Declaration, or a callable returning one, instead of a"
        " MANIFEST file.",
        show_default=False,
    ),
]
OutOpt = Annotated[
    Path | None,
    typer.Option(
        "--out",
        metavar="DIR",
        help="Write files into DIR instead of stdout.",
        file_okay=False,
        show_default=False,
    ),
]
CheckOpt = Annotated[
    bool,
    typer.Option("--check", help="Write nothing; exit 1 listing the files in --out that differ."),
]


def say(message: str) -> None:
    """A status or diagnostic line on stderr."""
    typer.echo(message, err=True)


def _os_message(exc: OSError) -> str:
    if exc.filename is not None and exc.strerror:
        return f"{exc.filename}: {exc.strerror}"
    return str(exc)


def guarded(func: Callable[P, None]) -> Callable[P, None]:
    """Turn every expected failure into a one-message stderr report and exit status 1 (or 2)."""

    @functools.wraps(func)
    def run(*args: P.args, **kwargs: P.kwargs) -> None:
        try:
            func(*args, **kwargs)
        except DevCliError as exc:
            say(f"venom-gen: {exc.message}")
            raise typer.Exit(exc.exit_code) from None
        except (ManifestError, ZonError) as exc:  # already `file: path: message` lines
            say(str(exc))
            raise typer.Exit(1) from None
        except GenerationError as exc:
            say(f"venom-gen: cannot generate: {exc}")
            raise typer.Exit(1) from None
        except OSError as exc:
            say(f"venom-gen: {_os_message(exc)}")
            raise typer.Exit(1) from None
        except ValueError as exc:  # e.g. canonical JSON refusing a value
            say(f"venom-gen: {exc}")
            raise typer.Exit(1) from None

    return run


def write_stdout(text: str) -> None:
    """Exact UTF-8 bytes on stdout (click.echo would strip escape sequences off a pipe)."""
    try:
        sys.stdout.flush()
        sys.stdout.buffer.write(text.encode("utf-8"))
        sys.stdout.buffer.flush()
    except BrokenPipeError:
        # The reader left (`| head`): stop quietly, and keep the interpreter's final flush from
        # reporting the same broken pipe again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise typer.Exit(1) from None


def emit(files: Mapping[str, str], *, out: Path | None, check: bool, what: str) -> None:
    """Print the one generated file, or sync ``files`` (names relative to ``out``) into ``out``."""
    if out is None:
        if check:
            raise DevCliError("--check needs --out DIR", exit_code=2)
        if len(files) != 1:
            raise DevCliError(f"{what} makes {len(files)} files: pass --out DIR", exit_code=2)
        write_stdout(next(iter(files.values())))
        return
    sync({out / name: text for name, text in files.items()}, check=check)


def sync(
    files: Mapping[Path, str],
    *,
    check: bool,
    extras: Sequence[Drift] = (),
    prune: bool = False,
    command: str = "venom-gen",
) -> None:
    """Write ``files`` (or with ``check`` compare them); ``extras`` are unexpected files;
    ``command`` is what a failed check says to run."""
    if check:
        drifts = [*find_drift(files), *extras]
        for drift in drifts:
            say(drift.render())
        if drifts:
            say(f"{len(drifts)} file(s) out of date; regenerate them with {command}")
            raise typer.Exit(1)
        say(f"{len(files)} file(s) up to date")
        return
    report = write_files(files, remove=[drift.path for drift in extras] if prune else ())
    say(report.summary())
    if not prune:
        for drift in extras:
            say(drift.render())
