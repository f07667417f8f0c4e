"""The MCP tool catalog derived from the normalized model (RFC-0004 §5)."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from venom_gen.render._views import GenerationError, cli_spelling, mcp_name
from venom_proto.conventions import mcp_name as encoded_name
from venom_schema.grants import PUBLIC_GRANTS
from venom_schema.model import Descriptor, Field, Model, Verb
from venom_schema.surfaces import verbs_on

__all__ = (
    "HOST_NAME_MAX_BYTES",
    "READ_ONLY_GRANTS",
    "STREAM_LIMIT_SENTENCE",
    "GenerationError",
    "Schema",
    "build_catalog",
    "field_schema",
    "long_tool_names",
    "object_schema",
    "server_instructions",
    "type_schema",
)

#: A JSON Schema object (MCP's inputSchema, outputSchema and their parts).
Schema = dict[str, Any]

#: Appended to every streaming tool's description (RFC-0004 §5: the limits MUST appear there).
STREAM_LIMIT_SENTENCE = (
    "Streaming verb: the MCP call buffers at most 1024 items and 1 MiB of compact JSON item "
    "bytes; crossing either limit fails the call with unsupported.stream_limit "
    "(use the CLI with --json for unbounded streams)."
)


#: Grants every local caller holds (rfcs/0005 §2): their verbs are annotated ``readOnlyHint``.
READ_ONLY_GRANTS: frozenset[str] = PUBLIC_GRANTS

#: Tool names longer than this are refused by common MCP hosts; generation warns past it.
HOST_NAME_MAX_BYTES = 64


def type_schema(desc: Descriptor) -> Schema:
    """JSON Schema for a type descriptor (§3 table); ``nullable`` becomes ``anyOf`` with null."""
    kind = desc["kind"]
    schema: Schema = {"type": kind}
    if kind == "string" and "choices" in desc:
        schema["enum"] = list(desc["choices"])
    elif kind in ("integer", "number"):
        if "min" in desc:
            schema["minimum"] = desc["min"]
        if "max" in desc:
            schema["maximum"] = desc["max"]
    elif kind == "array":
        schema["items"] = type_schema(desc["items"])
    elif kind == "object":
        schema.update(object_schema(desc["fields"]))
    if desc.get("nullable") and kind != "null":
        return {"anyOf": [schema, {"type": "null"}]}
    return schema


def field_schema(field: Field) -> Schema:
    """A property schema: the type schema, then ``description`` and ``default``.

    For a nullable field the annotations sit on the outer ``anyOf`` object, beside it, so they
    describe the property whichever branch matches.
    """
    schema = type_schema(field["type"])
    schema["description"] = field["summary"]
    if "default" in field:
        schema["default"] = field["default"]
    return schema


def object_schema(fields: list[Field]) -> Schema:
    """A closed object schema: properties in declaration order, ``required`` always present."""
    return {
        "type": "object",
        "properties": {f["name"]: field_schema(f) for f in fields},
        "required": [f["name"] for f in fields if f["required"]],
        "additionalProperties": False,
    }


def _output_schema(verb: Verb) -> Schema:
    properties: Schema = {}
    if verb["streams"]:
        properties["items"] = {"type": "array", "items": type_schema(verb["item"])}
    properties["result"] = type_schema(verb["result"])
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def _description(verb: Verb) -> str:
    summary = verb["summary"]
    if not verb["streams"]:
        return summary
    joiner = " " if summary.rstrip().endswith((".", "!", "?")) else ". "
    return summary.rstrip() + joiner + STREAM_LIMIT_SENTENCE


def _annotations(verb: Verb, title: str) -> Schema:
    # MCP 2025-06-18 ToolAnnotations. ``title`` is repeated for hosts that read only the
    # annotations (2025-03-26); destructiveHint is the author's word alone (rfcs/0004 D-S36).
    annotations: Schema = {"title": title, "readOnlyHint": verb["grant"] in READ_ONLY_GRANTS}
    if "destructive" in verb:
        annotations["destructiveHint"] = verb["destructive"]
    return annotations


def build_catalog(model: Model, *, max_grant: Collection[str] | None = None) -> list[Schema]:
    """The MCP tools for ``model`` in wire-name order (RFC-0004 §5).

    Each entry holds the RFC's members (``name``, ``description``, ``inputSchema``,
    ``outputSchema``) exactly as §5 derives them, then two additions of the 2025-06-18 tools
    model (rfcs/0004 D-S36): ``title``, the CLI spelling, and ``annotations``.
    Transport (hello, cancel) and local (serve, mcp) verbs are never tools. With ``max_grant``
    only verbs whose grant is in that collection are listed. Raises ``GenerationError`` when an
    encoded name exceeds 128 bytes.
    """
    tools: list[Schema] = []
    for verb in verbs_on(model, "mcp"):
        if max_grant is not None and verb["grant"] not in max_grant:
            continue
        title = cli_spelling(model["tool"], verb["name"])
        tools.append(
            {
                "name": mcp_name(verb["name"]),
                "description": _description(verb),
                "inputSchema": object_schema(verb["params"]),
                "outputSchema": _output_schema(verb),
                "title": title,
                "annotations": _annotations(verb, title),
            }
        )
    return tools


def long_tool_names(model: Model) -> list[tuple[str, str, int]]:
    """``(wire name, tool name, bytes)`` for each tool name over ``HOST_NAME_MAX_BYTES``.

    Such names are valid (RFC-0004's limit is 128 bytes) but common MCP hosts refuse them, so
    the generators warn about each one.
    """
    found: list[tuple[str, str, int]] = []
    for verb in verbs_on(model, "mcp"):
        name = encoded_name(verb["name"])
        size = len(name.encode("utf-8"))
        if size > HOST_NAME_MAX_BYTES:
            found.append((verb["name"], name, size))
    return found


def server_instructions(model: Model, *, max_grant: str | None = None) -> str:
    """The MCP server's ``instructions``: what the tool is, which tools change state, limits.

    ``max_grant`` is the adapter's ``--max-grant`` (``None``: every grant is offered).
    """
    tool = model["tool"]
    summary = model["summary"].rstrip()
    if not summary.endswith((".", "!", "?")):
        summary += "."
    lines = [
        f"{tool}: {summary}",
        f"Each tool is one verb of the local {tool} daemon; its title is the same command"
        f" on the CLI ({tool} --help lists them).",
        "Tools annotated readOnlyHint need only the read-only grant every local caller holds"
        " and change nothing; the others change the daemon's state and run only with the"
        " owner's token, which this server presents.",
    ]
    if max_grant is not None:
        lines.append(
            f"This server was started with --max-grant {max_grant}: tools needing a stronger"
            " grant are not listed."
        )
    if any(verb["streams"] for verb in verbs_on(model, "mcp")):
        lines.append("Streaming tools: " + STREAM_LIMIT_SENTENCE.removeprefix("Streaming verb: "))
    return "\n".join(lines)
