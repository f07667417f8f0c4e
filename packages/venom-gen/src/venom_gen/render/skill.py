"""SKILL.md for agents (RFC-0004 §6): front matter, conventions, grants, verbs, examples."""

from __future__ import annotations

from venom_gen.render._escape import code_fence, json_compact, md_code, md_text, yaml_double_quoted
from venom_gen.render._types import flatten_fields, render_default, render_type
from venom_gen.render._views import cli_spelling, error_exit, example_command, exit_table, flag_name
from venom_proto.conventions import env_var
from venom_schema.model import Descriptor, Model, Verb
from venom_schema.surfaces import verbs_on

__all__ = ("render_skill",)


def _conventions(tool: str, verbs: list[Verb]) -> list[str]:
    env = env_var(tool, "SOCKET")
    dotted = next((v["name"] for v in verbs if "." in v["name"]), None)
    lines = ["## Invocation", "", f"- Run `{tool} COMMAND [OPTIONS]`."]
    if dotted is not None:
        lines.append(
            f"- Grouped commands are spaced (`{cli_spelling(tool, dotted)}`) or dotted "
            f"in one token (`{tool} {dotted}`)."
        )
    lines += [
        "- Every parameter is a named option: `--name value` or `--name=value`; values starting "
        "with `-` and booleans (`--flag=true`) need `=`; arrays and objects take one JSON value.",
        "- Add `--json` for machine-readable output: the result as one JSON value, errors as "
        '`{"error":{"code","message","data"}}` on stdout. Match on `code`, never on '
        "`message`.",
        f"- `--socket PATH` (or `${env}`) selects the daemon socket. A daemon that accepts but "
        "does not answer hello within 10 s (`$"
        f"{env.removesuffix('_SOCKET')}_CONNECT_TIMEOUT`) fails with "
        "`unavailable.unresponsive`, exit 6. `ssh://[user@]host[:port][/path]` reaches a "
        f"daemon on another host, with the token in `${env.removesuffix('_SOCKET')}_TOKEN`.",
        "",
        "| Exit | Class |",
        "| --- | --- |",
        *(f"| {code} | {cls} |" for code, cls, _ in exit_table()),
        "",
        "## Permissions",
        "",
        "Callers the daemon does not know hold only the `none` and `read` grants (read-only by "
        "default). Commands needing a stronger grant fail with `denied.grant` (exit 4) unless "
        "the caller holds it.",
        "",
    ]
    return lines


def _verb_table(tool: str, verbs: list[Verb]) -> list[str]:
    lines = ["## Commands", "", "| Command | Grant | Summary |", "| --- | --- | --- |"]
    for verb in verbs:
        stream = " (streams)" if verb["streams"] else ""
        lines.append(
            f"| `{cli_spelling(tool, verb['name'])}` | `{verb['grant']}` | "
            f"{md_text(verb['summary'])}{stream} |"
        )
    return [*lines, ""]


def _shape_line(label: str, desc: Descriptor) -> str:
    inner = desc
    while inner["kind"] == "array":
        inner = inner["items"]
    text = f"- {label}: {md_text(render_type(desc))}"
    if inner["kind"] == "object" and inner["fields"]:
        members = [
            f"{md_code(r.path)} {md_text(r.type)}{'' if r.required else ' (optional)'}"
            for r in flatten_fields(inner["fields"])
        ]
        text += " with " + ", ".join(members)
    return text


def _verb_section(tool: str, verb: Verb) -> list[str]:
    lines = [
        f"### `{cli_spelling(tool, verb['name'])}`",
        "",
        f"Summary: {md_text(verb['summary'])} (grant `{verb['grant']}`)",
        "",
    ]
    for field in verb["params"]:
        notes = [md_text(render_type(field["type"]))]
        notes.append("required" if field["required"] else "optional")
        if "default" in field:
            notes.append("default " + md_text(render_default(field["default"])))
        lines.append(
            f"- `{flag_name(field['name'])}` ({', '.join(notes)}): {md_text(field['summary'])}"
        )
    lines.append(_shape_line("Result", verb["result"]))
    if verb["streams"]:
        lines.append(_shape_line("Item", verb["item"]))
        lines.append("- `--json` prints items as NDJSON; the final result is not printed.")
    for err in verb["errors"]:
        lines.append(
            f"- Error `{err['code']}` (exit {error_exit(err['code'])}): {md_text(err['summary'])}"
        )
    if verb["exit"]["kind"] == "result":
        lines.append(f"- Exit status on success: the result field `{verb['exit']['field']}`.")
    lines.append("")
    if verb["examples"]:
        body = []
        for ex in verb["examples"]:
            body.append("$ " + example_command(tool, verb, ex["params"], json=not verb["streams"]))
            prefix = "# final result: " if verb["streams"] else ""
            body.append(prefix + json_compact(ex["result"]))
        text = "\n".join(body)
        fence = code_fence(text)
        lines += [fence + "console", text, fence, ""]
    return lines


def render_skill(model: Model) -> str:
    """The complete SKILL.md text (UTF-8, trailing newline, deterministic)."""
    tool = model["tool"]
    verbs = verbs_on(model, "docs")
    lines = [
        "---",
        f"name: {tool}",
        f"description: {yaml_double_quoted(model['summary'])}",
        "---",
        "",
        f"# {tool}",
        "",
        f"Summary: {md_text(model['summary'])}",
        "",
    ]
    lines += _conventions(tool, verbs) + _verb_table(tool, verbs)
    if any(v["streams"] for v in verbs):
        lines += [
            "## Streaming",
            "",
            "Through MCP a streaming command is buffered: at most 1024 items and 1 MiB of "
            "compact JSON item bytes per call, else `unsupported.stream_limit`. For unbounded "
            f"streams run `{tool} COMMAND --json` and read NDJSON, one item per line.",
            "",
        ]
    lines += ["## Command reference", ""]
    for verb in verbs:
        lines += _verb_section(tool, verb)
    while lines[-1] == "":
        lines.pop()
    return "\n".join(lines) + "\n"
