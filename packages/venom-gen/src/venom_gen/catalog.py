"""The MCP tool catalog derived from the normalized model (RFC-0004 §5)."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from venom_gen._model import GenerationError, mcp_name
from venom_schema.model import Descriptor, Field, Model, Verb
from venom_schema.surfaces import verbs_on

__all__ = (
    "STREAM_LIMIT_SENTENCE",
    "GenerationError",
    "Schema",
    "build_catalog",
    "field_schema",
    "object_schema",
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


def build_catalog(model: Model, *, max_grant: Collection[str] | None = None) -> list[Schema]:
    """The MCP tools for ``model`` in wire-name order (RFC-0004 §5).

    Transport (hello, cancel) and local (serve, mcp) verbs are never tools. With ``max_grant``
    only verbs whose grant is in that collection are listed. Raises ``GenerationError`` when an
    encoded name exceeds 128 bytes.
    """
    tools: list[Schema] = []
    for verb in verbs_on(model, "mcp"):
        if max_grant is not None and verb["grant"] not in max_grant:
            continue
        tools.append(
            {
                "name": mcp_name(verb["name"]),
                "description": _description(verb),
                "inputSchema": object_schema(verb["params"]),
                "outputSchema": _output_schema(verb),
            }
        )
    return tools
