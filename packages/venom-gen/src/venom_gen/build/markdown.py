"""Markdown reference documentation for a tool (RFC-0004 §6)."""

from __future__ import annotations

from collections.abc import Sequence

from venom_gen.render._escape import code_fence, json_compact, md_code, md_text
from venom_gen.render._types import flatten_fields, render_choice, render_default, render_type
from venom_gen.render._views import (
    cli_spelling,
    error_exit,
    example_command,
    exit_table,
    flag_name,
    mcp_name,
)
from venom_gen.render.catalog import STREAM_LIMIT_SENTENCE
from venom_proto.conventions import env_var
from venom_schema.model import Descriptor, Field, Model, Verb
from venom_schema.surfaces import shown_on, verbs_on

__all__ = ("render_markdown",)

_STREAM_NOTE = (
    "With `--json` the CLI prints each item as one NDJSON line and suppresses the final "
    "result; the final result is still validated, decides the exit status, and is available "
    "on the wire and through MCP (as `result` beside `items`)."
)


def _row(*cells: str) -> str:
    return "| " + " | ".join(cells) + " |"


def _table(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> list[str]:
    lines = [_row(*header), _row(*("---" for _ in header))]
    lines.extend(_row(*(cell or " " for cell in row)) for row in rows)
    return [*lines, ""]


def _params(verb: Verb) -> list[str]:
    if not verb["params"]:
        return ["No parameters.", ""]
    rows: list[tuple[str, ...]] = []
    for field in verb["params"]:
        choices = field["type"].get("choices") or []
        rows.append(
            (
                f"`{flag_name(field['name'])}`",
                md_text(render_type(field["type"])),
                "yes" if field["required"] else "no",
                md_text(render_default(field["default"])) if "default" in field else "",
                md_text(", ".join(render_choice(c) for c in choices)),
                md_text(field["summary"]),
            )
        )
        nested = flatten_fields(_nested_fields(field["type"]), field["name"] + ".")
        for sub in nested:
            rows.append(
                (
                    f"{md_code(sub.path, in_table=True)} (JSON member)",
                    md_text(sub.type),
                    "yes" if sub.required else "no",
                    md_text(sub.default or ""),
                    "",
                    md_text(sub.summary),
                )
            )
    header = ("Flag", "Type", "Required", "Default", "Choices", "Description")
    return _table(header, rows)


def _nested_fields(desc: Descriptor) -> list[Field]:
    while desc["kind"] == "array":
        desc = desc["items"]
    return list(desc["fields"]) if desc["kind"] == "object" else []


def _shape(title: str, desc: Descriptor) -> list[str]:
    lines = [f"**{title}:** {md_text(render_type(desc))}", ""]
    rows = flatten_fields(_nested_fields(desc))
    if rows:
        header = ("Field", "Type", "Required", "Default", "Description")
        lines += _table(
            header,
            [
                (
                    md_code(r.path, in_table=True),
                    md_text(r.type),
                    "yes" if r.required else "no",
                    md_text(r.default or ""),
                    md_text(r.summary),
                )
                for r in rows
            ],
        )
    return lines


def _errors(verb: Verb) -> list[str]:
    lines = [
        "Standard protocol, validation, grant, transport, cancellation and internal errors "
        "apply to every command; see *Exit codes*.",
        "",
    ]
    if not verb["errors"]:
        return lines
    rows: list[tuple[str, ...]] = []
    for err in verb["errors"]:
        data = "; ".join(
            f"{md_code(r.path)} ({md_text(r.type)}): {md_text(r.summary)}"
            for r in flatten_fields(_nested_fields(err["data"]))
        )
        if err["data"]["kind"] != "object":
            data = md_text(render_type(err["data"]))
        rows.append(
            (
                f"`{err['code']}`",
                str(error_exit(err["code"])),
                md_text(err["summary"]),
                data or "none",
            )
        )
    return lines + _table(("Code", "Exit", "Summary", "Data"), rows)


def _exit_policy(verb: Verb) -> str:
    if verb["exit"]["kind"] == "result":
        field = verb["exit"]["field"]
        return (
            f"**Exit status:** on success, the value of the result field `{field}` "
            "(0 to 255); errors exit by class."
        )
    return "**Exit status:** 0 on success; errors exit by class."


def _examples(tool: str, verb: Verb) -> list[str]:
    if not verb["examples"]:
        return []
    body: list[str] = []
    for ex in verb["examples"]:
        body.append("$ " + example_command(tool, verb, ex["params"], json=not verb["streams"]))
        if verb["streams"]:
            body.append("# final result (wire and MCP only): " + json_compact(ex["result"]))
        else:
            body.append(json_compact(ex["result"]))
    text = "\n".join(body)
    fence = code_fence(text)
    return ["#### Examples", "", fence + "console", text, fence, ""]


def _verb_section(tool: str, verb: Verb) -> list[str]:
    wire: str = verb["name"]
    lines = [f"### `{cli_spelling(tool, wire)}`", "", f"Summary: {md_text(verb['summary'])}", ""]
    facts = []
    if "." in wire:
        facts.append(f"- Dotted alias: `{tool} {wire}`")
    facts.append(f"- Wire name: `{wire}`")
    if not shown_on(verb, "mcp"):
        facts.append("- MCP tool: none (runs in-process, not a daemon request)")
    else:
        facts.append(f"- MCP tool: `{mcp_name(wire)}`")
    facts.append(f"- Grant: `{verb['grant']}`")
    facts.append("- Streaming: " + ("yes" if verb["streams"] else "no"))
    lines += [*facts, "", "#### Parameters", "", *_params(verb), "#### Result", ""]
    lines += _shape("Result", verb["result"])
    if verb["streams"]:
        lines += _shape("Item", verb["item"])
        lines += [_STREAM_NOTE, "", md_text(STREAM_LIMIT_SENTENCE), ""]
    lines += ["#### Errors", "", *_errors(verb), _exit_policy(verb), "", *_examples(tool, verb)]
    return lines


def _alias_sentence(tool: str, verbs: list[Verb]) -> str:
    dotted = [v["name"] for v in verbs if "." in v["name"]]
    if not dotted:
        return "Commands are the verbs' wire names with `_` written as `-`."
    return (
        "Grouped commands are also accepted as their dotted wire name in one token "
        f"(`{tool} {dotted[0]}` for `{cli_spelling(tool, dotted[0])}`)."
    )


def render_markdown(model: Model) -> str:
    """The complete Markdown reference: conventions, exit codes and one section per verb."""
    tool: str = model["tool"]
    verbs = verbs_on(model, "docs")
    lines = [f"# {tool}", "", f"Summary: {md_text(model['summary'])}", "", "## Usage", ""]
    lines += [
        "```console",
        f"$ {tool} [--json] [--socket PATH] COMMAND [OPTIONS]",
        "```",
        "",
        _alias_sentence(tool, verbs),
        "Options take a value as `--name value` "
        "or `--name=value`; values starting with `-` and booleans (`--flag=true`) need `=`. "
        "Arrays and objects take one JSON value.",
        "",
        'Global options on every command: `--json` prints JSON (errors as `{"error":...}`), '
        f"`--socket PATH` overrides the daemon socket (else `${env_var(tool, 'SOCKET')}`, "
        "else the default path; `ssh://[user@]host[:port][/path]` reaches a daemon on another "
        f"host, with the token in `${env_var(tool, 'TOKEN')}`), `--help` (or `-h`) prints help. "
        f"Before any command, `{tool} --version` prints the version (`--version --json`: "
        '`{"tool":...,"version":...,"schema":...}`). Connecting and the hello '
        f"exchange must finish within `${env_var(tool, 'CONNECT_TIMEOUT')}` "
        "seconds (default 10), else the command fails with `unavailable.unresponsive` (exit 6); "
        "the command itself may run as long as it runs.",
        "",
        "Streaming commands: " + _STREAM_NOTE,
        "",
        "## Exit codes",
        "",
    ]
    lines += _table(
        ("Exit", "Class", "Meaning"),
        [(str(code), f"`{cls}`" if code else cls, meaning) for code, cls, meaning in exit_table()],
    )
    lines += ["## Commands", ""]
    rows = [
        (
            f"`{cli_spelling(tool, v['name'])}`",
            f"`{v['name']}`",
            f"`{v['grant']}`",
            md_text(v["summary"]),
        )
        for v in verbs
    ]
    lines += _table(("Command", "Wire name", "Grant", "Summary"), rows)
    lines += ["## Reference", ""]
    for verb in verbs:
        lines += _verb_section(tool, verb)
    while lines and lines[-1] == "":
        lines.pop()
    return "\n".join(lines) + "\n"
