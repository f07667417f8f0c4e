"""``venom-gen compat OLD NEW``: is NEW a compatible evolution of OLD (RFC-0004 §7)?

Each side is a ``verbs.zon``, model JSON (``venom-gen normalize``'s output or a model cache),
a Python declaration ``MODULE:ATTRIBUTE``, or ``-`` for standard input (ZON or JSON, told
apart by the first character). The comparison is `venom_schema.compat`'s. Exit 0 when NEW is
compatible, 1 when a change breaks a client of OLD, 2 for a usage error or an input that is
not a valid manifest (the validator's own messages).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from venom_gen.build.devcli._output import say, write_stdout
from venom_gen.build.devcli._source import DevCliError, load_python
from venom_schema.manifest import ManifestError
from venom_schema.model import Model
from venom_schema.zon import ZonError

__all__ = ("compat", "load_side")

#: Exit status when either side is unusable, as for any command-line mistake.
EXIT_USAGE = 2


def _from_bytes(data: bytes, source: str, *, json_hint: bool) -> Model:
    from venom_schema.compat import read_model

    if json_hint or data.lstrip()[:1] == b"{":
        return read_model(data, source)
    from venom_schema.manifest import validate_manifest
    from venom_schema.zon import parse_zon

    return validate_manifest(parse_zon(data, source), source=source)


def load_side(spec: str, *, stdin_used: bool = False) -> Model:
    """The validated model ``spec`` names; raises ``DevCliError`` (exit 2), ``ManifestError``
    or ``ZonError``."""
    if spec == "-":
        if stdin_used:
            raise DevCliError("only one side can be - (standard input)", exit_code=EXIT_USAGE)
        return _from_bytes(sys.stdin.buffer.read(), "<stdin>", json_hint=False)
    path = Path(spec)
    if path.is_file():
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise DevCliError(f"{spec}: {exc.strerror}", exit_code=EXIT_USAGE) from None
        return _from_bytes(data, spec, json_hint=path.suffix == ".json")
    if path.exists():
        raise DevCliError(f"{spec}: not a file", exit_code=EXIT_USAGE)
    module, sep, attribute = spec.partition(":")
    if sep and module and attribute and "/" not in module and not module.endswith(".zon"):
        try:
            return load_python(spec)
        except DevCliError as exc:
            raise DevCliError(exc.message, exit_code=EXIT_USAGE) from None
    raise DevCliError(
        f"{spec}: no such file (give a verbs.zon, a model JSON file, MODULE:ATTRIBUTE or -)",
        exit_code=EXIT_USAGE,
    )


def compat(
    old: Annotated[
        str,
        typer.Argument(
            metavar="OLD", help="The released side: FILE (.zon, .json), MODULE:ATTR or -."
        ),
    ],
    new: Annotated[
        str, typer.Argument(metavar="NEW", help="The side to check: FILE, MODULE:ATTR or -.")
    ],
    json_: Annotated[
        bool,
        typer.Option("--json", help='One object: {"compatible": bool, "changes": [...]}.'),
    ] = False,
) -> None:
    """Compare two manifests (RFC-0004 §7): exit 0 if NEW is compatible with OLD, 1 if it
    breaks OLD's clients, 2 if either is not a valid manifest."""
    from venom_schema.compat import compare

    try:
        if old == new == "-":
            raise DevCliError("only one side can be - (standard input)", exit_code=EXIT_USAGE)
        before = load_side(old)
        after = load_side(new, stdin_used=old == "-")
    except DevCliError as exc:
        say(f"venom-gen: {exc.message}")
        raise typer.Exit(EXIT_USAGE) from None
    except (ManifestError, ZonError) as exc:  # already `source: path: message` lines
        say(str(exc))
        raise typer.Exit(EXIT_USAGE) from None
    except UnicodeDecodeError as exc:
        say(f"venom-gen: not UTF-8 text: {exc}")
        raise typer.Exit(EXIT_USAGE) from None
    report = compare(before, after)
    if json_:
        text = json.dumps(report.to_json(), ensure_ascii=False, separators=(",", ":"))
        write_stdout(text + "\n")
    else:
        lines = [change.render() for change in report.changes]
        breaking = len(report.breaking)
        lines.append(
            f"venom-gen compat: {new}: "
            + (
                f"{breaking} breaking change(s) for clients of {old}"
                if breaking
                else f"compatible with {old} ({len(report.changes)} compatible change(s))"
            )
        )
        write_stdout("\n".join(lines) + "\n")
    raise typer.Exit(0 if report.compatible else 1)
