"""man(7) pages: one per command plus the tool overview (RFC-0004 §6, RFC-0002 §2, §7.2)."""

from __future__ import annotations

from venom_gen.render._escape import json_compact, roff_text
from venom_gen.render._types import (
    FieldRow,
    flatten_fields,
    render_choice,
    render_default,
    render_type,
)
from venom_gen.render._views import (
    GLOBAL_FLAGS,
    GenerationError,
    cli_spelling,
    error_exit,
    example_command,
    exit_table,
    flag_name,
    man_name,
    mcp_name,
)
from venom_gen.render.catalog import STREAM_LIMIT_SENTENCE
from venom_proto.conventions import env_var
from venom_schema.model import Descriptor, Model, Verb
from venom_schema.surfaces import shown_on, verbs_on

__all__ = ("MAN_DATE", "render_man_pages", "roff_code")

#: The .TH date. A constant (format 1's acceptance date) keeps pages a pure function of the model.
MAN_DATE = "2026-11-06"

_GLOBAL_HELP = {
    "--json": "Print JSON: the ok value, each stream item as one NDJSON line, or "
    '{"error":...} on failure.',
    "--socket": "Connect to the daemon socket at PATH instead of the default; "
    "ssh://[user@]host[:port][/path] reaches a daemon on another host through ssh.",
    "--help": "Print the generated help and exit.",
}


def roff_code(text: str) -> list[str]:
    """Literal text for no-fill blocks: ASCII minus, quotes and accents copy-paste intact."""
    out = []
    for line in text.split("\n"):
        esc = roff_text(line)
        for char, name in (
            ("-", "\\-"),
            ("'", "\\(aq"),
            ("`", "\\(ga"),
            ("^", "\\(ha"),
            ("~", "\\(ti"),
        ):
            esc = esc.replace(char, name)
        out.append(esc)
    return out


def _name(text: str) -> str:
    """A safe name (tool, command, flag): only hyphens need the minus escape."""
    return text.replace("-", "\\-")


def _head(title: str, tool: str) -> list[str]:
    return [f'.TH {_name(title.upper())} 1 {MAN_DATE} "{_name(tool)}" "User Commands"']


def _tp(tag: str, *body: str) -> list[str]:
    return [".TP", tag, *body]


def _field_lines(rows: list[FieldRow]) -> list[str]:
    lines: list[str] = []
    for row in rows:
        notes = [row.type, "required" if row.required else "optional"]
        if row.default is not None:
            notes.append("default " + row.default)
        lines += _tp(
            f"\\fB{_name(roff_text(row.path))}\\fR",
            roff_text(row.summary),
            ".br",
            roff_text("(" + "; ".join(notes) + ")"),
        )
    return lines


def _shape(section: str, desc: Descriptor) -> list[str]:
    lines = [f".SH {section}", roff_text(render_type(desc))]
    inner = desc
    while inner["kind"] == "array":
        inner = inner["items"]
    if inner["kind"] == "object" and inner["fields"]:
        lines += _field_lines(flatten_fields(inner["fields"]))
    return lines


def _options(verb: Verb) -> list[str]:
    lines = [".SH OPTIONS"]
    for field in verb["params"]:
        ftype = field["type"]
        value = "=true|false" if ftype["kind"] == "boolean" else " " + render_type(ftype)
        tag = f"\\fB{_name(flag_name(field['name']))}\\fR" + roff_text(value).replace("-", "\\-")
        notes = ["required" if field["required"] else "optional"]
        if "default" in field:
            notes.append("default " + render_default(field["default"]))
        if ftype.get("choices"):
            notes.append("one of " + ", ".join(render_choice(c) for c in ftype["choices"]))
        lines += _tp(
            tag, roff_text(field["summary"]), ".br", roff_text("(" + "; ".join(notes) + ")")
        )
        nested = ftype
        while nested["kind"] == "array":
            nested = nested["items"]
        if nested["kind"] == "object" and nested["fields"]:
            lines += _field_lines(flatten_fields(nested["fields"], field["name"] + "."))
    for flag in GLOBAL_FLAGS:
        tag = f"\\fB{_name(flag)}\\fR" + (" \\fIpath\\fR" if flag == "--socket" else "")
        if flag == "--help":
            tag = "\\fB\\-h\\fR, " + tag
        lines += _tp(tag, roff_text(_GLOBAL_HELP[flag]))
    return lines


def _errors(tool: str, verb: Verb) -> list[str]:
    lines = [
        ".SH ERRORS",
        "Standard protocol, validation, grant, transport, cancellation and internal errors",
        "apply to every command; see the exit status table in",
        ".BR " + _name(tool) + " (1).",
    ]
    for err in verb["errors"]:
        lines += _tp(
            f"\\fB{_name(err['code'])}\\fR (exit {error_exit(err['code'])})",
            roff_text(err["summary"]),
            ".br",
            roff_text("data: " + render_type(err["data"])),
        )
        inner = err["data"]
        if inner["kind"] == "object" and inner["fields"]:
            lines += _field_lines(flatten_fields(inner["fields"]))
    return lines


def _exit_status(verb: Verb) -> list[str]:
    if verb["exit"]["kind"] == "result":
        text = (
            f"On success, the value of the result field {verb['exit']['field']} (0 to 255); "
            "errors exit by class."
        )
    else:
        text = "0 on success; errors exit by class."
    return [".SH EXIT STATUS", roff_text(text)]


def _examples(tool: str, verb: Verb) -> list[str]:
    if not verb["examples"]:
        return []
    lines = [".SH EXAMPLES", ".EX"]
    for ex in verb["examples"]:
        lines += roff_code(
            "$ " + example_command(tool, verb, ex["params"], json=not verb["streams"])
        )
        if verb["streams"]:
            lines += roff_code("# final result (wire and MCP only): " + json_compact(ex["result"]))
        else:
            lines += roff_code(json_compact(ex["result"]))
    return [*lines, ".EE"]


def _verb_page(tool: str, verb: Verb) -> list[str]:
    wire: str = verb["name"]
    spelled = _name(cli_spelling(tool, wire))
    lines = [
        *_head(man_name(tool, wire), tool),
        ".SH NAME",
        f"{_name(man_name(tool, wire))} \\- " + roff_text(verb["summary"]),
        ".SH SYNOPSIS",
        f"\\fB{spelled}\\fR [\\fIoptions\\fR]",
    ]
    if "." in wire:
        lines += [".br", f"\\fB{_name(tool)} {wire}\\fR [\\fIoptions\\fR]"]
    lines += [".SH DESCRIPTION", roff_text(verb["summary"]), ".PP", f"Wire name: {wire}.", ".br"]
    if not shown_on(verb, "mcp"):
        lines.append("MCP tool: none (runs in-process, not a daemon request).")
    else:
        lines.append(f"MCP tool: {mcp_name(wire)}.")
    lines += [
        ".br",
        f"Grant: {verb['grant']}.",
        ".br",
        "Streaming: " + ("yes." if verb["streams"] else "no."),
    ]
    lines += _options(verb) + _shape("RESULT", verb["result"])
    if verb["streams"]:
        lines += _shape("ITEMS", verb["item"])
        lines += [
            ".PP",
            "With",
            "\\fB\\-\\-json\\fR",
            "the CLI prints each item as one NDJSON "
            "line and suppresses the final result, which is still validated, decides the "
            "exit status and is available on the wire and through MCP.",
            ".PP",
            roff_text(STREAM_LIMIT_SENTENCE).replace("-", "\\-"),
        ]
    lines += _errors(tool, verb) + _exit_status(verb) + _examples(tool, verb)
    lines += [".SH SEE ALSO", f".BR {_name(tool)} (1)"]
    return lines


def _overview(model: Model, verbs: list[Verb]) -> list[str]:
    tool: str = model["tool"]
    env = env_var(tool, "SOCKET")
    lines = [
        *_head(tool, tool),
        ".SH NAME",
        f"{_name(tool)} \\- " + roff_text(model["summary"]),
        ".SH SYNOPSIS",
        f"\\fB{_name(tool)}\\fR [\\fB\\-\\-json\\fR] [\\fB\\-\\-socket\\fR \\fIpath\\fR] "
        "\\fIcommand\\fR [\\fIoptions\\fR]",
        ".SH DESCRIPTION",
        roff_text(model["summary"]),
        ".PP",
        "Grouped commands are also accepted as their dotted wire name in one token.",
        "Options take a value as \\fB\\-\\-name\\fR \\fIvalue\\fR or",
        "\\fB\\-\\-name\\fR=\\fIvalue\\fR; values starting with a minus sign and booleans",
        "need the = form.",
        ".SH COMMANDS",
    ]
    for verb in verbs:
        lines += _tp(
            f"\\fB{_name(cli_spelling(tool, verb['name']))}\\fR",
            roff_text(verb["summary"]),
            ".br",
            f"Grant: {verb['grant']}. See",
            f".BR {_name(man_name(tool, verb['name']))} (1).",
        )
    lines.append(".SH OPTIONS")
    for flag in GLOBAL_FLAGS:
        tag = f"\\fB{_name(flag)}\\fR" + (" \\fIpath\\fR" if flag == "--socket" else "")
        if flag == "--help":
            tag = "\\fB\\-h\\fR, " + tag
        lines += _tp(tag, roff_text(_GLOBAL_HELP[flag]))
    lines += _tp(
        "\\fB\\-\\-version\\fR",
        "Before any command: print the tool's name and version and exit; with",
        "\\fB\\-\\-json\\fR, the object",
        roff_text('{"tool":...,"version":...,"schema":...}') + ".",
    )
    lines.append(".SH EXIT STATUS")
    for code, cls, meaning in exit_table():
        lines += _tp(f"\\fB{code}\\fR", f"{cls}: {meaning}.")
    lines += [".SH ENVIRONMENT"]
    lines += _tp(
        f"\\fB{_name(env)}\\fR", "Socket path used when \\fB\\-\\-socket\\fR is not given."
    )
    lines += _tp(
        f"\\fB{_name(env_var(tool, 'CONNECT_TIMEOUT'))}\\fR",
        "Seconds allowed to connect to the daemon and complete hello (default 10); when",
        "they pass, the command fails with unavailable.unresponsive (exit 6). A command",
        "itself may run as long as it runs.",
    )
    lines += _tp("\\fBXDG_RUNTIME_DIR\\fR", "Base of the default runtime directory.")
    lines += _tp("\\fBTMPDIR\\fR", "Used when \\fBXDG_RUNTIME_DIR\\fR is unset or empty.")
    lines += [".SH FILES"]
    lines += _tp(
        f"\\fI$XDG_RUNTIME_DIR/venom/{_name(tool)}.sock\\fR",
        "The daemon socket (mode 0600, in a 0700 directory).",
    )
    lines += _tp(
        f"\\fI$XDG_RUNTIME_DIR/venom/{_name(tool)}.lock\\fR",
        "The lock file that marks a live daemon.",
    )
    lines += _tp(
        f"\\fI${{TMPDIR:\\-/tmp}}/venom\\-<uid>/{_name(tool)}.sock\\fR",
        "The socket when \\fBXDG_RUNTIME_DIR\\fR is unset or empty.",
    )
    lines += [
        ".PP",
        "The socket is \\fB\\-\\-socket\\fR if given, else",
        f"\\fB{_name(env)}\\fR,",
        "else the default path; the lock file is the socket path with \\fI.sock\\fR",
        "replaced by \\fI.lock\\fR.",
    ]
    lines += [".SH SEE ALSO"]
    refs = [man_name(tool, v["name"]) for v in verbs]
    lines += [
        f".BR {_name(ref)} (1){',' if i < len(refs) - 1 else ''}" for i, ref in enumerate(refs)
    ]
    return lines


def render_man_pages(model: Model) -> dict[str, str]:
    """File name -> page text: ``<tool>.1`` plus ``<tool>-<command-path>.1`` per command.

    Raises ``GenerationError`` when two commands map to the same page name.
    """
    tool: str = model["tool"]
    verbs = verbs_on(model, "docs")
    pages = {f"{tool}.1": _overview(model, verbs)}
    owners: dict[str, str] = {}
    for verb in verbs:
        filename = man_name(tool, verb["name"]) + ".1"
        if filename in owners:
            raise GenerationError(
                f"man page {filename} collides: verbs {owners[filename]!r} and {verb['name']!r}"
            )
        owners[filename] = verb["name"]
        pages[filename] = _verb_page(tool, verb)
    return {name: "\n".join(lines) + "\n" for name, lines in sorted(pages.items())}
