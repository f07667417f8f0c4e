"""Verbs declared as typed Python on pydantic: the compiled-declaration path of RFC-0004 §2.

A `Declaration` holds a product's verbs; params, results, stream items and error data are
pydantic models (or plain annotations: ``str``, ``list[int]``, ``None``...). ``model()`` lowers
them to the same raw records a ``verbs.zon`` holds and runs the one manifest validator, so the
same verbs give the same normalized model and digest whichever path declares them; ``to_zon()``
writes the data-only interchange file::

    class EchoParams(BaseModel):
        text: str = Field(description="Text to return")
        style: Literal["plain", "upper"] = Field(default="plain", description="Output casing")

    class EchoResult(BaseModel):
        text: str = Field(description="Returned text")

    DECLARATION = Declaration("venom-echo", "A toy daemon for protocol conformance")
    DECLARATION.verb("echo", "Return the supplied text", grant="read",
                     params=EchoParams, result=EchoResult,
                     examples=[Example(EchoParams(text="hi"), EchoResult(text="hi"))])

How Python maps to format 1 (docs/declarations.md has the whole table): a field's summary is its
``description`` (or attribute docstring); a field without a default is required; a default is
the field's default; ``T | MISSING = MISSING`` (pydantic's sentinel) is optional and absent when
not given; ``T | None`` is nullable; ``Literal`` or a ``str`` ``Enum`` gives choices; ``ge``
and ``le`` give the inclusive bounds. Anything format 1 cannot say (unions, maps, exclusive
bounds, lengths, patterns) is refused with a `DeclarationError` naming the field, never
silently dropped.

Build time only: importing this module imports pydantic, and nothing on a product's run time
imports it (the CLI and the daemon read the cached model JSON).
"""

from __future__ import annotations

import enum
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from pydantic import MISSING, BaseModel
from pydantic.fields import FieldInfo

from venom_schema.manifest import validate_manifest
from venom_schema.model import Grant, Json, Model
from venom_schema.zon import ZonEnum, ZonValue

__all__ = (
    "MISSING",
    "Declaration",
    "DeclarationError",
    "Error",
    "Example",
    "Shape",
    "descriptor_of",
)

#: What may stand for a type: a pydantic model class, or an annotation such as ``str``,
#: ``list[Item]``, ``Literal["a", "b"]``, ``Item | None`` or ``None``.
Shape: TypeAlias = Any
#: A raw ZON struct: a record as ``parse_zon`` gives it for a ``verbs.zon`` (enum literals as
#: `ZonEnum`), the form the one manifest validator takes.
_Raw: TypeAlias = dict[str, ZonValue]
#: Marks a field without a default (``None`` is the JSON null default).
_NO_DEFAULT: Any = object()

_NONE_TYPE = type(None)
_UNIONS = (typing.Union, types.UnionType)
#: pydantic metadata with no format-1 counterpart, by the attribute that carries it.
_REFUSED = {
    "gt": "exclusive bounds (use ge, and le: format 1 bounds are inclusive)",
    "lt": "exclusive bounds (use ge, and le: format 1 bounds are inclusive)",
    "multiple_of": "multiple_of",
    "min_length": "length limits",
    "max_length": "length limits",
    "pattern": "patterns",
}


class DeclarationError(ValueError):
    """A Python declaration that format 1 cannot express; the message names the field."""


@dataclass(frozen=True, slots=True)
class Error:
    """A tool-specific error record: ``code``, ``summary`` and the ``data`` shape (default: the
    empty object)."""

    code: str
    summary: str
    data: Shape = None


@dataclass(frozen=True, slots=True)
class Example:
    """An example call: params and result as pydantic instances or plain JSON values.

    Instances are written as set (``exclude_unset``), so an example shows what a caller writes,
    not the defaults the daemon inserts; pydantic has already checked them against their models.
    """

    params: BaseModel | Mapping[str, Any]
    result: Any


@dataclass(frozen=True, slots=True)
class _VerbDecl:
    name: str
    summary: str
    grant: Grant
    params: type[BaseModel] | None
    result: Shape
    item: Shape
    streams: bool
    errors: tuple[Error, ...]
    exit_status: str | None
    examples: tuple[Example, ...]
    destructive: bool | None


class Declaration:
    """A product's verbs, declared in Python; ``model()`` is the normalized model.

    Verbs are added with `verb` (in any order: the model sorts them). The standard bundles are
    merged by the validator exactly as for a ``verbs.zon``.
    """

    def __init__(self, tool: str, summary: str, *, format: int = 1) -> None:
        self.tool = tool
        self.summary = summary
        self.format = format
        self._verbs: list[_VerbDecl] = []

    def verb(
        self,
        name: str,
        summary: str,
        *,
        grant: Grant,
        result: Shape,
        params: type[BaseModel] | None = None,
        item: Shape = None,
        streams: bool | None = None,
        errors: Sequence[Error] = (),
        exit_status: str | None = None,
        examples: Sequence[Example] = (),
        destructive: bool | None = None,
    ) -> None:
        """Declare one verb by its exact wire name.

        ``params`` is a pydantic model whose fields are the params (none when omitted);
        ``result`` the final ok's shape (``None``: JSON null); ``item`` the shape of each
        streamed item: giving one makes the verb stream (``streams`` may say so explicitly, for
        an item of JSON null). ``exit_status`` names the result field the CLI passes through as
        its exit status (RFC-0004 §3). ``destructive`` is MCP's ``destructiveHint``, the
        author's word alone, on a verb stronger than ``read`` (rfcs/0004 D-S36).
        """
        self._verbs.append(
            _VerbDecl(
                name=name,
                summary=summary,
                grant=grant,
                params=params,
                result=result,
                item=item,
                streams=item is not None if streams is None else streams,
                errors=tuple(errors),
                exit_status=exit_status,
                examples=tuple(examples),
                destructive=destructive,
            )
        )

    @property
    def verb_names(self) -> tuple[str, ...]:
        """The declared wire names, in declaration order."""
        return tuple(v.name for v in self._verbs)

    def to_raw(self) -> dict[str, ZonValue]:
        """The raw manifest ``parse_zon`` gives for `to_zon`'s text (raises `DeclarationError`).

        Optional members appear only when set, as in a hand-written ``verbs.zon``.
        """
        verbs: list[ZonValue] = [_lower_verb(v) for v in self._verbs]
        return {"format": self.format, "tool": self.tool, "summary": self.summary, "verbs": verbs}

    def model(self, *, source: str = "<python>", bundles: Sequence[str] | None = None) -> Model:
        """The normalized model, through the same validator as ``verbs.zon`` (RFC-0004 §2).

        Raises `DeclarationError` for Python that format 1 cannot say, and
        ``venom_schema.manifest.ManifestError`` for what the validator refuses.
        """
        if bundles is None:
            return validate_manifest(self.to_raw(), source=source)
        return validate_manifest(self.to_raw(), source=source, bundles=bundles)

    def to_zon(self, *, header: str | None = None) -> str:
        """The data-only ``verbs.zon`` text of this declaration (``header``: a leading comment)."""
        from venom_schema.zon import dump_zon

        return dump_zon(self.to_raw(), header=header)

    def __repr__(self) -> str:
        return f"Declaration({self.tool!r}, {len(self._verbs)} verbs)"


def _lower_verb(decl: _VerbDecl) -> _Raw:
    """The verb's raw record, members in a hand-written ``verbs.zon``'s order."""
    where = f"verb {decl.name!r}"
    record: _Raw = {"name": decl.name, "summary": decl.summary}
    if decl.params is not None:
        if not (isinstance(decl.params, type) and issubclass(decl.params, BaseModel)):
            raise DeclarationError(f"{where}: params must be a pydantic model class")
        if params := _fields_of(decl.params):
            record["params"] = params
    record["result"] = descriptor_of(decl.result, where=f"{where} result")
    if decl.errors:
        record["errors"] = [_lower_error(e, where) for e in decl.errors]
    record["grant"] = ZonEnum(decl.grant)
    if decl.destructive is not None:
        record["destructive"] = decl.destructive
    if decl.streams:
        record["streams"] = True
        record["item"] = descriptor_of(decl.item, where=f"{where} item")
    if decl.exit_status is not None:
        record["exit"] = {"kind": ZonEnum("result"), "field": decl.exit_status}
    if decl.examples:
        record["examples"] = [
            {"params": _example_value(ex.params), "result": _example_value(ex.result)}
            for ex in decl.examples
        ]
    return record


def _lower_error(error: Error, where: str) -> _Raw:
    record: _Raw = {"code": error.code, "summary": error.summary}
    if error.data is not None:
        record["data"] = descriptor_of(error.data, where=f"{where} {error.code}")
    return record


def _example_value(value: Any) -> Json:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return _json_value(value, where="example")


def _json_value(value: Any, *, where: str) -> Json:
    """A default or example value as JSON data (models, enums and tuples converted)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True)
    if isinstance(value, enum.Enum):
        return _json_value(value.value, where=where)
    if isinstance(value, Mapping):
        return {str(k): _json_value(v, where=where) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_value(v, where=where) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    raise DeclarationError(f"{where}: {type(value).__name__} is not a JSON value")


def _fields_of(model: type[BaseModel]) -> list[ZonValue]:
    return [_field(model, name, info) for name, info in model.model_fields.items()]


def _field(model: type[BaseModel], name: str, info: FieldInfo) -> _Raw:
    where = f"{model.__name__}.{name}"
    if not info.description:
        raise DeclarationError(
            f"{where}: no summary (give it Field(description=...) or an attribute docstring)"
        )
    annotation, optional, nullable = _split_union(info.annotation, where)
    desc = _descriptor(annotation, list(info.metadata), nullable, where)
    default: Any = _NO_DEFAULT
    required = info.is_required() and not optional
    if info.default is MISSING or info.is_required():
        pass
    elif info.default_factory is not None:
        factory: Any = info.default_factory
        default = _json_value(factory(), where=where)
    else:
        default = _json_value(info.default, where=where)
    record: _Raw = {"name": info.alias or name, "summary": info.description, "type": desc}
    if required:
        record["required"] = True
    if default is not _NO_DEFAULT:
        record["default"] = default
    return record


def descriptor_of(shape: Shape, *, where: str = "shape") -> dict[str, ZonValue]:
    """The format-1 type descriptor of a pydantic model class or an annotation, as a
    ``verbs.zon`` writes it (``kind`` an enum literal, ``nullable`` only when true)."""
    annotation, optional, nullable = _split_union(shape, where)
    if optional:
        raise DeclarationError(f"{where}: MISSING belongs to a field, not to a whole type")
    return _descriptor(annotation, [], nullable, where)


def _split_union(annotation: Any, where: str) -> tuple[Any, bool, bool]:
    """``T | None | MISSING`` -> ``(T, optional, nullable)``; other unions are refused."""
    if typing.get_origin(annotation) not in _UNIONS:
        return annotation, False, False
    members = typing.get_args(annotation)
    optional = any(m is MISSING for m in members)
    nullable = _NONE_TYPE in members
    rest = [m for m in members if m is not MISSING and m is not _NONE_TYPE]
    if len(rest) != 1:
        raise DeclarationError(f"{where}: format 1 has no unions (only T | None and T | MISSING)")
    return rest[0], optional, nullable


def _desc(kind: str, nullable: bool, **members: ZonValue) -> _Raw:
    record: _Raw = {"kind": ZonEnum(kind)}
    record.update({name: value for name, value in members.items() if value is not None})
    if nullable:
        record["nullable"] = True
    return record


def _descriptor(annotation: Any, metadata: list[Any], nullable: bool, where: str) -> _Raw:
    if typing.get_origin(annotation) is typing.Annotated:
        inner, *extra = typing.get_args(annotation)
        for meta in extra:
            metadata.extend(meta.metadata if isinstance(meta, FieldInfo) else [meta])
        inner, optional, more_nullable = _split_union(inner, where)
        if optional:
            raise DeclarationError(f"{where}: MISSING belongs to a field, not to a whole type")
        return _descriptor(inner, metadata, nullable or more_nullable, where)
    low, high = _bounds(metadata, where)
    if annotation is None or annotation is _NONE_TYPE:
        return _desc("null", nullable)
    if annotation is bool:
        return _desc("boolean", nullable)
    if annotation is int:
        # pydantic refuses a non-integral bound on an int, but keeps ge=1.0 a float
        return _desc("integer", nullable, min=_int(low), max=_int(high))
    if annotation is float:
        return _desc("number", nullable, min=low, max=high)
    if low is not None or high is not None:
        raise DeclarationError(f"{where}: ge/le bound only int and float")
    if annotation is str:
        return _desc("string", nullable)
    choices = _choices(annotation, where)
    if choices is not None:
        return _desc("string", nullable, choices=list[ZonValue](choices))
    origin = typing.get_origin(annotation)
    if origin in (list, Sequence):
        (items,) = typing.get_args(annotation) or (None,)
        if items is None:
            raise DeclarationError(f"{where}: a list needs its item type, e.g. list[str]")
        return _desc("array", nullable, items=descriptor_of(items, where=f"{where}[]"))
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _desc("object", nullable, fields=_fields_of(annotation))
    raise DeclarationError(
        f"{where}: {annotation!r} has no format-1 type (str, bool, int, float, None, Literal,"
        " a str Enum, list[...] or a pydantic model)"
    )


def _int(bound: int | float | None) -> int | None:
    return None if bound is None else int(bound)


def _choices(annotation: Any, where: str) -> list[str] | None:
    if typing.get_origin(annotation) is Literal:
        values = list(typing.get_args(annotation))
    elif isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        values = [member.value for member in annotation]
    else:
        return None
    if not all(isinstance(v, str) for v in values):
        raise DeclarationError(f"{where}: choices must be strings (format 1 enums are strings)")
    return values


def _bounds(metadata: list[Any], where: str) -> tuple[int | float | None, int | float | None]:
    low: int | float | None = None
    high: int | float | None = None
    for meta in metadata:
        for attribute, what in _REFUSED.items():
            if getattr(meta, attribute, None) is not None:
                raise DeclarationError(f"{where}: format 1 has no {what}")
        if getattr(meta, "ge", None) is not None:
            low = meta.ge
        elif getattr(meta, "le", None) is not None:
            high = meta.le
        else:
            raise DeclarationError(f"{where}: {meta!r} has no format-1 counterpart")
    return low, high
