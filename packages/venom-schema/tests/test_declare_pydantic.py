"""`venom_schema.declare`: pydantic declarations lower to format 1 or fail naming the field."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field

from venom_schema.declare import (
    MISSING,
    Declaration,
    DeclarationError,
    Error,
    Example,
    descriptor_of,
)
from venom_schema.manifest import ManifestError
from venom_schema.model import Verb
from venom_schema.zon import ZonEnum, ZonValue


class Color(StrEnum):
    RED = "red"
    BLUE = "blue"


class Inner(BaseModel):
    """Docstrings give summaries when the model asks for them."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    size: int = 1
    """How big"""


class Params(BaseModel):
    name: str = Field(description="A name")
    color: Color = Field(default=Color.RED, description="A color")
    ids: list[Annotated[int, Field(ge=1)]] = Field(default_factory=list, description="Ids")
    inner: Inner | MISSING = Field(default=MISSING, description="An object")
    from_: str | MISSING = Field(default=MISSING, alias="from", description="Aliased")


class Result(BaseModel):
    ratio: float = Field(ge=0, le=1.5, description="A ratio")
    note: str | None = Field(description="Required, may be null")
    later: Inner | MISSING | None = Field(default=MISSING, description="May be absent or null")


def _verb(declaration: Declaration, name: str) -> Verb:
    return next(v for v in declaration.model(bundles=())["verbs"] if v["name"] == name)


def test_fields_map_to_format_1() -> None:
    d = Declaration("t", "S")
    d.verb("v.get", "Get", grant="read", params=Params, result=Result)
    verb = _verb(d, "v.get")
    assert verb["params"] == [
        {"name": "name", "summary": "A name", "type": {"kind": "string"}, "required": True},
        {
            "name": "color",
            "summary": "A color",
            "type": {"kind": "string", "choices": ["red", "blue"]},
            "required": False,
            "default": "red",
        },
        {
            "name": "ids",
            "summary": "Ids",
            "type": {"kind": "array", "items": {"kind": "integer", "min": 1}},
            "required": False,
            "default": [],
        },
        {
            "name": "inner",
            "summary": "An object",
            "type": {
                "kind": "object",
                "fields": [
                    {
                        "name": "size",
                        "summary": "How big",
                        "type": {"kind": "integer"},
                        "required": False,
                        "default": 1,
                    }
                ],
            },
            "required": False,
        },
        {"name": "from", "summary": "Aliased", "type": {"kind": "string"}, "required": False},
    ]
    fields = verb["result"]["fields"]
    assert fields[0]["type"] == {"kind": "number", "min": 0, "max": 1.5}
    assert (fields[1]["required"], fields[1]["type"]) == (
        True,
        {"kind": "string", "nullable": True},
    )
    assert fields[2]["required"] is False
    assert fields[2]["type"]["nullable"] is True
    assert verb["streams"] is False


def test_streams_errors_exit_and_examples() -> None:
    class Status(BaseModel):
        status: int = Field(ge=0, le=255, description="The status")

    d = Declaration("t", "S")
    d.verb(
        "v.run",
        "Run",
        grant="write",
        result=Status,
        item=str,
        errors=[Error("failed.v_run", "It failed", Inner), Error("conflict.v_busy", "Busy")],
        exit_status="status",
        examples=[Example({}, Status(status=3))],
    )
    verb = _verb(d, "v.run")
    assert verb["streams"] is True
    assert verb["item"] == {"kind": "string"}
    assert verb["exit"] == {"kind": "result", "field": "status"}
    assert verb["errors"][1]["data"] == {"kind": "object", "fields": []}
    assert verb["examples"] == [{"params": {}, "result": {"status": 3}}]


def test_example_instances_show_what_was_set_not_the_defaults() -> None:
    d = Declaration("t", "S")
    d.verb(
        "v",
        "V",
        grant="read",
        params=Params,
        result=None,
        examples=[Example(Params(name="x"), None)],
    )
    assert _verb(d, "v")["examples"] == [{"params": {"name": "x"}, "result": None}]


class Union(BaseModel):
    x: int | str = Field(description="X")


class NoSummary(BaseModel):
    x: int


class Exclusive(BaseModel):
    x: int = Field(gt=0, description="X")


class Length(BaseModel):
    x: str = Field(max_length=3, description="X")


class Mapping(BaseModel):
    x: dict[str, int] = Field(description="X")


class IntChoices(BaseModel):
    x: Literal[1, 2] = Field(description="X")


@pytest.mark.parametrize(
    ("params", "message"),
    [
        (Union, "Union.x: format 1 has no unions"),
        (NoSummary, "NoSummary.x: no summary"),
        (Exclusive, "Exclusive.x: format 1 has no exclusive bounds"),
        (Length, "Length.x: format 1 has no length limits"),
        (Mapping, "Mapping.x: dict[str, int] has no format-1 type"),
        (IntChoices, "IntChoices.x: choices must be strings"),
    ],
)
def test_what_format_1_cannot_say_is_refused(params: type[BaseModel], message: str) -> None:
    d = Declaration("t", "S")
    d.verb("v", "V", grant="read", params=params, result=None)
    with pytest.raises(DeclarationError, match=message.replace("[", r"\[")):
        d.model()


def test_the_validator_still_decides_the_rest() -> None:
    """RFC-0004 §3: nullable under params fails whatever the path; the error names the param."""

    class Nullable(BaseModel):
        x: int | None = Field(default=None, description="X")

    d = Declaration("t", "S")
    d.verb("v", "V", grant="read", params=Nullable, result=None)
    with pytest.raises(ManifestError) as info:
        d.model(source="decl.py")
    assert "verbs[v].params[x].type.nullable: not allowed under params" in str(info.value)


def _kind(kind: str, **members: ZonValue) -> dict[str, ZonValue]:
    return {"kind": ZonEnum(kind), **members}


@pytest.mark.parametrize(
    ("shape", "expected"),
    [
        (None, _kind("null")),
        (bool, _kind("boolean")),
        (list[str] | None, _kind("array", items=_kind("string"), nullable=True)),
        (Annotated[int, Field(ge=0, le=9)], _kind("integer", min=0, max=9)),
        (Annotated[int, Field(ge=1.0)], _kind("integer", min=1)),
        (
            Inner,
            _kind(
                "object",
                fields=[
                    {"name": "size", "summary": "How big", "type": _kind("integer"), "default": 1}
                ],
            ),
        ),
    ],
)
def test_descriptor_of_plain_annotations(shape: Any, expected: dict[str, ZonValue]) -> None:
    """The descriptor as a verbs.zon writes it: kind an enum literal, bounds of the kind's type."""
    assert descriptor_of(shape) == expected
    assert type(descriptor_of(shape).get("min", 0)) is int


def test_missing_belongs_to_fields() -> None:
    with pytest.raises(DeclarationError, match="result: MISSING belongs to a field"):
        descriptor_of(int | MISSING, where="result")
