"""Help text generated from the normalized model (RFC-0004 §4 ``--help``).

Three shapes: the root (every command), a group such as ``config`` (its commands) and a verb
(its options with types, required/default/choices, grant, result, streaming behaviour, exit
policy, errors and examples). Prefix verbs show both their options and their subcommands.
"""

from __future__ import annotations

import shlex
import textwrap
from collections.abc import Iterable, Mapping
from typing import Any

from venom_proto._core._stdjson import std_dumps
from venom_proto._core.errors import CLASS_EXIT, exit_code_for

from ._tree import Command, CommandTree, cli_token, flag_for

__all__ = ("describe_type", "example_command", "render_help")

_WIDTH = 79
_METAVAR = {"string": "TEXT", "integer": "INT", "number": "NUM", "array": "JSON", "object": "JSON"}


def _json(value: Any) -> str:
    return std_dumps(value).decode("utf-8")


def _bounds(desc: Mapping[str, Any]) -> str:
    low, high = desc.get("min"), desc.get("max")
    if low is not None and high is not None:
        return f" {_json(low)}..{_json(high)}"
    if low is not None:
        return f" >= {_json(low)}"
    if high is not None:
        return f" <= {_json(high)}"
    return ""


def _member(name: str) -> str:
    """A field name, bare when a plain identifier, else JSON-quoted (``{"created at"?: ...}``):
    names outside params may hold any text, commas and colons included (RFC-0004 §2)."""
    if name.isascii() and name.isidentifier():
        return name
    return "".join(ch if ch.isprintable() else f"\\u{ord(ch):04x}" for ch in _json(name))


def describe_type(desc: Mapping[str, Any]) -> str:
    """A one-line rendering of a type descriptor: ``array of integer 0..9``, ``object {a, b?}``."""
    kind = str(desc.get("kind"))
    if kind == "string" and desc.get("choices"):
        text = "string, one of: " + ", ".join(desc["choices"])
    elif kind in ("integer", "number"):
        text = kind + _bounds(desc)
    elif kind == "array":
        text = "array of " + describe_type(desc["items"])
    elif kind == "object":
        parts = [
            f"{_member(f['name'])}{'' if f.get('required') else '?'}: {describe_type(f['type'])}"
            for f in desc.get("fields", [])
        ]
        text = "object {" + ", ".join(parts) + "}"
    else:
        text = kind
    return text + (" or null" if desc.get("nullable") else "")


def _table(rows: Iterable[tuple[str, str]]) -> list[str]:
    rows = list(rows)
    width = max((len(left) for left, _ in rows), default=0)
    return [f"  {left.ljust(width)}  {right}".rstrip() for left, right in rows]


def _spelling(command: Command) -> str:
    return " ".join(command.path)


def _global_rows(tool: str) -> list[tuple[str, str]]:
    env = tool.upper().replace("-", "_") + "_SOCKET"
    return [
        ("--json", 'print JSON: the result, or {"error":...} on failure'),
        (
            "--socket PATH",
            f"daemon socket (default: ${env}, else $XDG_RUNTIME_DIR/venom/{tool}.sock)",
        ),
        ("--help", "show this help"),
    ]


def _option_row(field: Mapping[str, Any]) -> tuple[str, str]:
    flag, desc = flag_for(str(field["name"])), field["type"]
    kind = str(desc.get("kind"))
    if kind == "boolean":
        left = f"{flag}=true|false"
    elif kind == "null":
        left = f"{flag} null"
    else:
        left = f"{flag} {_METAVAR.get(kind, 'VALUE')}"
    notes = [describe_type(desc)]
    if field.get("required"):
        notes.append("required")
    if "default" in field:
        notes.append(f"default: {_json(field['default'])}")
    return left, f"{field['summary']} ({'; '.join(notes)})"


def example_command(tool: str, verb: Mapping[str, Any], params: Mapping[str, Any]) -> str:
    """An example's params as one POSIX-shell command line in canonical spelling."""
    words = [tool, *(cli_token(s) for s in str(verb["name"]).split("."))]
    for name, value in params.items():
        flag = flag_for(name)
        text = value if isinstance(value, str) else _json(value)
        if isinstance(value, bool) or text.startswith("-"):
            words.append(shlex.quote(f"{flag}={text}"))
        else:
            words.extend((flag, shlex.quote(text)))
    return " ".join(words)


def _verb_sections(tool: str, verb: Mapping[str, Any]) -> list[str]:
    lines = [str(verb["summary"]), "", f"Wire name: {verb['name']}", f"Grant: {verb['grant']}"]
    if verb.get("dispatch") == "local":
        lines.append("Runs in-process (not sent to the daemon).")
    if verb["params"]:
        lines += ["", "Options:", *_table(_option_row(f) for f in verb["params"])]
    if verb.get("streams"):
        lines += [
            "",
            f"Streams: each item ({describe_type(verb['item'])}) is printed as one JSON line",
            f"(NDJSON). The final result ({describe_type(verb['result'])}) is validated and",
            "sets the exit status but is not printed; it is available on the wire only.",
        ]
    else:
        lines += ["", f"Result: {describe_type(verb['result'])}"]
    policy = verb.get("exit") or {}
    if policy.get("kind") == "result":
        lines.append(f"Exit status on success: the result's '{policy['field']}' field.")
    if verb.get("errors"):
        rows = [
            (e["code"], f"exit {exit_code_for(e['code'])}: {e['summary']}") for e in verb["errors"]
        ]
        lines += ["", "Errors:", *_table(rows)]
    if verb.get("examples"):
        lines += ["", "Examples:"]
        for ex in verb["examples"]:
            lines.append("  $ " + example_command(tool, verb, ex["params"]))
            if not verb.get("streams"):
                lines.append("  " + _json(ex["result"]))
    return lines


def _command_rows(command: Command, *, skip_self: bool) -> list[tuple[str, str]]:
    rows = []
    for verb in command.verbs():
        if skip_self and verb is command.verb:
            continue
        path = " ".join(cli_token(s) for s in str(verb["name"]).split("."))
        rows.append((path, str(verb["summary"])))
    return rows


def _exit_lines() -> list[str]:
    classes = ", ".join(f"{n} {c}" for c, n in CLASS_EXIT.items())
    return textwrap.wrap(f"Exit status: 0 success, {classes}.", width=_WIDTH)


def render_help(model: Mapping[str, Any], tree: CommandTree, command: Command) -> str:
    """The help text for ``command`` (the root, a group or a verb), newline-terminated."""
    tool = tree.tool
    spelled = " ".join((tool, _spelling(command))).strip()
    lines: list[str] = []
    if not command.path:
        lines += [
            f"{tool}: {model['summary']}",
            "",
            f"Usage: {tool} [--json] [--socket PATH] <command> [options]",
        ]
    elif command.verb is not None:
        sub = " [<command>]" if command.children else ""
        lines += [f"Usage: {spelled}{sub} [options]", ""]
        lines += _verb_sections(tool, command.verb)
    else:
        lines.append(f"Usage: {spelled} <command> [options]")
    rows = _command_rows(command, skip_self=True)
    if rows:
        lines += ["", "Commands:" if command.verb is None else "Subcommands:", *_table(rows)]
        lines += [
            "",
            "A command's dotted wire name (e.g. config.get) is also accepted as one word.",
            f"Run '{tool} <command> --help' for its options.",
        ]
    lines += ["", "Global options:", *_table(_global_rows(tool)), "", *_exit_lines()]
    return "\n".join(lines) + "\n"
