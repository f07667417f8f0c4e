"""A typed Python declaration API that yields the same raw structure as a ZON manifest.

RFC-0004 §2 lets a compiled declaration construct the model if it passes the same validator;
``to_raw()`` produces ZON-shaped values (enum literals as ``ZonEnum``); the whole
`Manifest` (in ``_manifest``) runs them through ``validate_manifest``::

    Manifest(tool="venom-echo", summary="...", verbs=[
        Verb(name="echo", summary="...", grant="read",
             params=[Field("text", "Text to return", String(), required=True)],
             result=Object([Field("text", "Returned text", String(), required=True)]))])

Optional members are emitted only when set, so the raw value mirrors a hand-written manifest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeAlias

from venom_schema.zon._values import ZonEnum, ZonValue

__all__ = (
    "MISSING",
    "Array",
    "Boolean",
    "Error",
    "Example",
    "ExitResult",
    "Field",
    "Integer",
    "Null",
    "Number",
    "Object",
    "String",
    "TypeDesc",
    "Verb",
    "to_raw_value",
)


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


#: Marks an absent ``Field.default`` (``None`` is the JSON null default).
MISSING: Final = _Missing()


def _desc(kind: str, nullable: bool, **members: ZonValue | None) -> dict[str, ZonValue]:
    raw: dict[str, ZonValue] = {"kind": ZonEnum(kind)}
    raw.update({name: value for name, value in members.items() if value is not None})
    if nullable:
        raw["nullable"] = True
    return raw


@dataclass(frozen=True, slots=True)
class String:
    """``.kind = .string`` with optional ``choices``."""

    choices: Sequence[str] | None = None
    nullable: bool = False

    def to_raw(self) -> dict[str, ZonValue]:
        choices = None if self.choices is None else list[ZonValue](self.choices)
        return _desc("string", self.nullable, choices=choices)


@dataclass(frozen=True, slots=True)
class Boolean:
    """``.kind = .boolean``."""

    nullable: bool = False

    def to_raw(self) -> dict[str, ZonValue]:
        return _desc("boolean", self.nullable)


@dataclass(frozen=True, slots=True)
class Integer:
    """``.kind = .integer`` with optional inclusive bounds."""

    min: int | None = None
    max: int | None = None
    nullable: bool = False

    def to_raw(self) -> dict[str, ZonValue]:
        return _desc("integer", self.nullable, min=self.min, max=self.max)


@dataclass(frozen=True, slots=True)
class Number:
    """``.kind = .number`` with optional finite inclusive bounds."""

    min: int | float | None = None
    max: int | float | None = None
    nullable: bool = False

    def to_raw(self) -> dict[str, ZonValue]:
        return _desc("number", self.nullable, min=self.min, max=self.max)


@dataclass(frozen=True, slots=True)
class Null:
    """``.kind = .null``."""

    nullable: bool = False

    def to_raw(self) -> dict[str, ZonValue]:
        return _desc("null", self.nullable)


@dataclass(frozen=True, slots=True)
class Array:
    """``.kind = .array`` of ``items``."""

    items: TypeDesc
    nullable: bool = False

    def to_raw(self) -> dict[str, ZonValue]:
        return _desc("array", self.nullable, items=self.items.to_raw())


@dataclass(frozen=True, slots=True)
class Object:
    """``.kind = .object`` with field records (possibly none)."""

    fields: Sequence[Field] = ()
    nullable: bool = False

    def to_raw(self) -> dict[str, ZonValue]:
        fields: list[ZonValue] = [f.to_raw() for f in self.fields]
        return _desc("object", self.nullable, fields=fields)


TypeDesc: TypeAlias = String | Boolean | Integer | Number | Null | Array | Object


def to_raw_value(value: Any) -> ZonValue:
    """A Python JSON-like value as a raw ZON value (tuples become lists)."""
    if isinstance(value, Mapping):
        return {str(k): to_raw_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_raw_value(v) for v in value]
    result: ZonValue = value
    return result


@dataclass(frozen=True, slots=True)
class Field:
    """A field record: a param, or a member of an object descriptor."""

    name: str
    summary: str
    type: TypeDesc
    required: bool = False
    default: Any = MISSING

    def to_raw(self) -> dict[str, ZonValue]:
        raw: dict[str, ZonValue] = {
            "name": self.name,
            "summary": self.summary,
            "type": self.type.to_raw(),
        }
        if self.required:
            raw["required"] = True
        if self.default is not MISSING:
            raw["default"] = to_raw_value(self.default)
        return raw


@dataclass(frozen=True, slots=True)
class Error:
    """A tool-specific error record; ``data`` defaults to the empty object."""

    code: str
    summary: str
    data: TypeDesc | None = None

    def to_raw(self) -> dict[str, ZonValue]:
        raw: dict[str, ZonValue] = {"code": self.code, "summary": self.summary}
        if self.data is not None:
            raw["data"] = self.data.to_raw()
        return raw


@dataclass(frozen=True, slots=True)
class Example:
    """An example call: params as written and the expected result."""

    params: Mapping[str, Any]
    result: Any

    def to_raw(self) -> dict[str, ZonValue]:
        return {"params": to_raw_value(self.params), "result": to_raw_value(self.result)}


@dataclass(frozen=True, slots=True)
class ExitResult:
    """``.exit = .{ .kind = .result, .field = ... }``: pass a result field through as status."""

    field: str

    def to_raw(self) -> dict[str, ZonValue]:
        return {"kind": ZonEnum("result"), "field": self.field}


@dataclass(frozen=True, slots=True)
class Verb:
    """A verb record. ``grant`` is the grant's name, e.g. ``"read"``."""

    name: str
    summary: str
    result: TypeDesc
    grant: str
    params: Sequence[Field] = ()
    errors: Sequence[Error] = ()
    streams: bool = False
    item: TypeDesc | None = None
    exit: ExitResult | None = None
    examples: Sequence[Example] = ()
    #: Standard bundles only (validated with ``bundle=True``).
    shared: str | None = None
    dispatch: str | None = None
    #: MCP's destructiveHint, declared by the author (a write-or-stronger verb only).
    destructive: bool | None = None

    def to_raw(self) -> dict[str, ZonValue]:
        raw: dict[str, ZonValue] = {"name": self.name, "summary": self.summary}
        if self.params:
            raw["params"] = [f.to_raw() for f in self.params]
        raw["result"] = self.result.to_raw()
        if self.errors:
            raw["errors"] = [e.to_raw() for e in self.errors]
        raw["grant"] = ZonEnum(self.grant)
        if self.destructive is not None:
            raw["destructive"] = self.destructive
        if self.streams:
            raw["streams"] = True
        if self.item is not None:
            raw["item"] = self.item.to_raw()
        if self.exit is not None:
            raw["exit"] = self.exit.to_raw()
        if self.examples:
            raw["examples"] = [e.to_raw() for e in self.examples]
        if self.shared is not None:
            raw["shared"] = ZonEnum(self.shared)
        if self.dispatch is not None:
            raw["dispatch"] = ZonEnum(self.dispatch)
        return raw
