"""Help text generated from the normalized model (RFC-0004 §4 ``--help``).

Three shapes: the root (every command), a group such as ``config`` (its commands) and a verb
(its options with types, required/default/choices, grant, result, streaming behaviour, exit
policy, errors and examples). Prefix verbs show both their options and their subcommands.
Types and example command lines are rendered exactly as the docs render them. Imported only
for ``--help``, never on the path of a verb call.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable
from typing import TYPE_CHECKING

from venom_gen.render._escape import json_compact
from venom_gen.render._types import render_type
from venom_gen.render._views import example_command
from venom_proto import CLASS_EXIT, exit_code_for
from venom_proto.conventions import env_var
from venom_schema.names import cli_command, flag_name
from venom_schema.surfaces import shown_on

from ._tree import Command, CommandTree

if TYPE_CHECKING:  # --help imports this module: keep its start-up small
    from venom_schema.model import Descriptor, Field, Model, Verb

__all__ = ("render_help",)

_WIDTH = 79
_METAVAR = {"string": "TEXT", "integer": "INT", "number": "NUM", "array": "JSON", "object": "JSON"}


def _table(rows: Iterable[tuple[str, str]]) -> list[str]:
    rows = list(rows)
    width = max((len(left) for left, _ in rows), default=0)
    return [f"  {left.ljust(width)}  {right}".rstrip() for left, right in rows]


def _spelling(command: Command) -> str:
    return " ".join(command.path)


def _global_rows(tool: str, *, root: bool) -> list[tuple[str, str]]:
    env = env_var(tool, "SOCKET")
    rows = [
        ("--json", 'print JSON: the result, or {"error":...} on failure'),
        (
            "--socket PATH",
            f"daemon socket (default: ${env}, else $XDG_RUNTIME_DIR/venom/{tool}.sock); "
            "ssh://[user@]host[:port][/path] reaches one on another host",
        ),
        ("-h, --help", "show this help"),
    ]
    if root:
        rows.append(("--version", "print the version (with --json: tool, version, schema)"))
    return rows


def _option_row(field: Field) -> tuple[str, str]:
    flag, desc = flag_name(field["name"]), field["type"]
    kind = desc["kind"]
    if kind == "boolean":
        left = f"{flag}=true|false"
    elif kind == "null":
        left = f"{flag} null"
    else:
        left = f"{flag} {_METAVAR.get(kind, 'VALUE')}"
    notes = [render_type(desc, inline=True)]
    if field["required"]:
        notes.append("required")
    if "default" in field:
        notes.append(f"default: {json_compact(field['default'])}")
    return left, f"{field['summary']} ({'; '.join(notes)})"


def _local_notes(tool: str, name: str) -> list[str]:
    """What a standard local command does, in prose: it has no wire name, grant or result."""
    socket = (
        f"--socket PATH, else ${env_var(tool, 'SOCKET')}, else $XDG_RUNTIME_DIR/venom/{tool}.sock"
    )
    notes = {
        "serve": (
            f"Starts the {tool} daemon in the foreground on its socket ({socket}) and runs"
            " until SIGINT or SIGTERM, removing the socket on the way out. It refuses to start"
            " while another daemon holds the socket's lock. Logs go to stderr; with --json"
            ' a start-up failure is printed as the {"error":...} wrapper on stdout.'
            " --reload=true is for development only: it watches the product's package"
            " (.py, .zon, .json, .toml files) and, on each change that loads and matches its"
            " handlers, replaces the daemon, keeping the socket open; it needs the watchfiles"
            " package (venom-gen[reload])."
        ),
        "mcp": (
            f"Serves the daemon's verbs as MCP tools on stdin and stdout, for an MCP host to"
            f" start (Claude Desktop, Claude Code, Cursor, VS Code). Calls go to the running"
            f" daemon ({socket}; start it with '{tool} serve'). --max-grant G lists only the"
            " tools needing at most grant G. Diagnostics go to stderr."
        ),
        "man": (
            f"Prints one of {tool}'s man pages as roff (--page NAME, default {tool}); on a"
            f" terminal it shows the page with man instead. '{tool} man install' copies every"
            " page where man finds it."
        ),
        "man.install": (
            f"Copies {tool}'s man pages into --dir DIR (default $XDG_DATA_HOME/man/man1, else"
            " ~/.local/share/man/man1, which man searches when ~/.local/bin is on PATH); pages"
            " that already have this content are left alone."
        ),
    }.get(name)
    if notes is None and name.startswith("completion."):
        shell = name.partition(".")[2]
        setup = {
            "bash": f"source <({tool} completion bash)   # e.g. in ~/.bashrc",
            "zsh": f"source <({tool} completion zsh)    # in ~/.zshrc, after compinit",
            "fish": f"{tool} completion fish | source   # e.g. in ~/.config/fish/config.fish",
        }[shell]
        return [
            f"Prints the {shell} completion script generated from {tool}'s verbs; it",
            "completes commands, options and enum values and never runs the tool.",
            "",
            f"  {setup}",
        ]
    if notes is None:
        return ["A local command: it runs in this process, not in the daemon."]
    return textwrap.wrap(notes, width=_WIDTH)


def _verb_sections(tool: str, verb: Verb) -> list[str]:
    if verb.get("dispatch") == "local":
        lines = [verb["summary"], "", *_local_notes(tool, verb["name"])]
        if verb["params"]:
            lines += ["", "Options:", *_table(_option_row(f) for f in verb["params"])]
        return lines + _error_lines(verb)
    lines = [verb["summary"], "", f"Wire name: {verb['name']}", f"Grant: {verb['grant']}"]
    if not shown_on(verb, "client"):
        lines.append("Runs in-process (not sent to the daemon).")
    if verb["params"]:
        lines += ["", "Options:", *_table(_option_row(f) for f in verb["params"])]
    if verb["streams"]:
        lines += [
            "",
            f"Streams: each item ({_type(verb['item'])}) is printed as it arrives: a",
            "table row, or one JSON line (NDJSON) with --json. The final result",
            f"({_type(verb['result'])}) is validated and sets the exit status",
            "but is not printed; it is available on the wire only.",
        ]
    else:
        lines += ["", f"Result: {_type(verb['result'])}"]
    policy = verb["exit"]
    if policy["kind"] == "result":
        lines.append(f"Exit status on success: the result's '{policy.get('field')}' field.")
    lines += _error_lines(verb)
    if verb["examples"]:
        lines += ["", "Examples:"]
        for ex in verb["examples"]:
            # The JSON result is what --json prints (human text is derived from it).
            shown = not verb["streams"]
            lines.append("  $ " + example_command(tool, verb, ex["params"], json=shown))
            if not verb["streams"]:
                lines.append("  " + json_compact(ex["result"]))
    return lines


def _error_lines(verb: Verb) -> list[str]:
    if not verb["errors"]:
        return []
    rows = [(e["code"], f"exit {exit_code_for(e['code'])}: {e['summary']}") for e in verb["errors"]]
    return ["", "Errors:", *_table(rows)]


def _command_rows(command: Command, *, skip_self: bool) -> list[tuple[str, str]]:
    rows = []
    for verb in command.verbs():
        if skip_self and verb is command.verb:
            continue
        rows.append((cli_command(verb["name"]), verb["summary"]))
    return rows


def _exit_lines() -> list[str]:
    classes = ", ".join(f"{n} {c}" for c, n in CLASS_EXIT.items())
    return textwrap.wrap(f"Exit status: 0 success, {classes}.", width=_WIDTH)


def _type(desc: Descriptor) -> str:
    return render_type(desc, inline=True)


def render_help(model: Model, tree: CommandTree, command: Command) -> str:
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
    globals_ = _global_rows(tool, root=not command.path)
    lines += ["", "Global options:", *_table(globals_), "", *_exit_lines()]
    return "\n".join(lines) + "\n"
