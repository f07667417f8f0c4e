"""A Python declaration passes the same validator as ZON (RFC-0004 §2)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import pytest
from pydantic import BaseModel, Field

from venom_schema.canonical import canonical_json, digest
from venom_schema.declare import Declaration, Error, Example
from venom_schema.manifest import ManifestError, load_manifest
from venom_schema.zon import ZonEnum

ECHO_ZON = Path(__file__).parent / "manifests" / "echo.zon"


class EchoParams(BaseModel):
    text: str = Field(description="Text to return")
    style: Literal["plain", "upper"] = Field(default="plain", description="Output casing")


class EchoResult(BaseModel):
    text: str = Field(description="Returned text")


ECHO = Declaration("venom-echo", "A toy daemon for protocol conformance")
ECHO.verb(
    "echo",
    "Return the supplied text",
    grant="read",
    params=EchoParams,
    result=EchoResult,
    examples=[
        Example(EchoParams(text="hi"), EchoResult(text="hi")),
        Example(EchoParams(text="hi", style="upper"), EchoResult(text="HI")),
    ],
)


def test_python_echo_matches_zon_byte_for_byte() -> None:
    """RFC-0004 §2: a compiled declaration passes the same validator with identical output."""
    from_zon = load_manifest(ECHO_ZON)
    from_python = ECHO.model()
    assert canonical_json(from_python) == canonical_json(from_zon)
    assert digest(from_python) == digest(from_zon)


def test_to_raw_uses_zon_values() -> None:
    raw = ECHO.to_raw()
    verbs = raw["verbs"]
    assert isinstance(verbs, list)
    verb = verbs[0]
    assert isinstance(verb, dict)
    assert verb["grant"] == ZonEnum("read")
    assert "streams" not in verb
    assert verb["result"] == {
        "kind": ZonEnum("object"),
        "fields": [
            {
                "name": "text",
                "summary": "Returned text",
                "type": {"kind": ZonEnum("string")},
                "required": True,
            }
        ],
    }


class KindParams(BaseModel):
    b: bool = Field(default=True, description="B")
    i: int = Field(default=3, ge=0, le=9, description="I")
    a: list[str] = Field(default=("x", "y"), description="A")  # type: ignore[arg-type]
    z: None = Field(default=None, description="Z")


class KindResult(BaseModel):
    status: int = Field(ge=0, le=255, description="S")
    note: str | None = Field(default=None, description="N")


class Busy(BaseModel):
    n: int | None = Field(default=None, description="N")


def test_every_kind_validates() -> None:
    declaration = Declaration("t", "S")
    declaration.verb(
        "all.kinds",
        "Every kind",
        grant="write",
        params=KindParams,
        result=KindResult,
        errors=[Error("conflict.all_busy", "Busy", Busy)],
        item=float | None,
        exit_status="status",
        examples=[Example({}, {"status": 0, "note": None})],
    )
    verb = next(
        v for v in declaration.model(bundles=("core",))["verbs"] if v["name"] == "all.kinds"
    )
    assert [p["default"] for p in verb["params"] if "default" in p] == [True, 3, ["x", "y"], None]
    assert verb["exit"] == {"kind": "result", "field": "status"}
    assert verb["item"] == {"kind": "number", "nullable": True}
    assert verb["examples"] == [{"params": {}, "result": {"status": 0, "note": None}}]


class NullableParam(BaseModel):
    p: str | None = Field(description="P")


def test_declaration_errors_use_the_same_validator() -> None:
    """RFC-0004 §3: nullable under params fails whatever the source."""
    bad = Declaration("t", "S")
    bad.verb("v", "S", grant="read", params=NullableParam, result=None)
    with pytest.raises(ManifestError) as info:
        bad.model(source="decl.py")
    assert info.value.problems == (
        "verbs[v].params[p].type.nullable: not allowed under params (RFC-0004 §3)",
    )
    assert str(info.value).startswith("decl.py: ")


def test_unknown_grant_from_a_declaration() -> None:
    bad = Declaration("t", "S")
    bad.verb("v", "S", grant="root", result=None)  # type: ignore[arg-type]
    with pytest.raises(ManifestError, match=r"verbs\[v\]\.grant: unknown \.root"):
        bad.model()


class Empty(BaseModel):
    pass


class EmptyDefault(BaseModel):
    o: Empty = Field(default_factory=Empty, description="O")


def test_empty_object_default() -> None:
    declaration = Declaration("t", "S")
    declaration.verb("v", "S", grant="read", params=EmptyDefault, result=None)
    verb = next(v for v in declaration.model(bundles=())["verbs"] if v["name"] == "v")
    assert verb["params"][0]["default"] == {}
