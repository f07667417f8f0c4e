"""The normalized model (RFC-0004 §2, §3, §7) as types: what every generator and runtime reads.

The model is plain JSON data, with every default expanded: `venom_schema.manifest` builds it,
`venom_schema.canonical` hashes it, the cache beside a manifest stores it as JSON and the CLI
reads it back (`venom_proto.model_cache.load_model`) with no conversion at all. These
TypedDicts describe that data to the type checker and cost nothing at run time. That is why they
are TypedDicts and not dataclasses: the CLI's verb-call path loads the cached model on every
call and imports no typing machinery, so the modules on that path import this one only while
type checking, and the same dicts flow through every surface unchanged.

``Any`` remains only where the RFC allows any JSON value: defaults, example params and results.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypeAlias, TypedDict

__all__ = (
    "Descriptor",
    "Dispatch",
    "Error",
    "Example",
    "Exit",
    "Field",
    "Grant",
    "Json",
    "JsonObject",
    "Kind",
    "Model",
    "Shared",
    "Surface",
    "Verb",
)

#: Any JSON value (RFC 8259): the type of defaults, example values, params and results.
Json: TypeAlias = Any
#: A JSON object: params, and most results.
JsonObject: TypeAlias = dict[str, Any]

Kind = Literal["string", "boolean", "integer", "number", "null", "array", "object"]
Grant = Literal["none", "read", "write", "respond", "files", "spawn", "admin"]
#: Which standard bundle a verb was merged from (RFC-0004 §7).
Shared = Literal["core", "agent", "events"]
#: Where a bundle verb runs instead of the daemon: proto's transport, or in-process.
Dispatch = Literal["transport", "local"]
#: The views of the model that show verbs; `venom_schema.surfaces.verbs_on` decides which.
Surface = Literal["daemon", "cli", "mcp", "docs", "client"]


class Descriptor(TypedDict):
    """A type descriptor (RFC-0004 §3). Which members appear depends on ``kind``:
    ``choices`` (string), ``min``/``max`` (integer, number), ``items`` (array), ``fields``
    (object). ``nullable`` appears only when true, and never under params."""

    kind: Kind
    nullable: NotRequired[bool]
    choices: NotRequired[list[str]]
    min: NotRequired[int | float]
    max: NotRequired[int | float]
    items: NotRequired[Descriptor]
    fields: NotRequired[list[Field]]


class Field(TypedDict):
    """A field of params or of an object descriptor; ``default`` only when declared."""

    name: str
    summary: str
    type: Descriptor
    required: bool
    default: NotRequired[Json]


class Error(TypedDict):
    """A tool-specific error a verb may fail with; ``data`` defaults to the empty object."""

    code: str
    summary: str
    data: Descriptor


class Exit(TypedDict):
    """The CLI's exit status on success: ``standard`` (0), or a ``result`` integer ``field``."""

    kind: Literal["standard", "result"]
    field: NotRequired[str]


class Example(TypedDict):
    """Example params (after default insertion they validate) and the result they give."""

    params: JsonObject
    result: Json


class Verb(TypedDict):
    """One verb; ``item`` exactly when it streams, ``shared``/``dispatch`` only on bundle verbs."""

    name: str
    summary: str
    params: list[Field]
    result: Descriptor
    errors: list[Error]
    grant: Grant
    #: Only when the author declared it (a write-or-stronger verb): MCP's ``destructiveHint``.
    destructive: NotRequired[bool]
    streams: bool
    item: NotRequired[Descriptor]
    exit: Exit
    examples: list[Example]
    shared: NotRequired[Shared]
    dispatch: NotRequired[Dispatch]


class Model(TypedDict):
    """The whole normalized manifest, bundles merged, verbs sorted by wire name."""

    format: Literal[1]
    tool: str
    summary: str
    verbs: list[Verb]
