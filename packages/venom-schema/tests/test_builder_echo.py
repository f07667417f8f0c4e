"""The Python declaration API passes the same validator as ZON (RFC-0004 §2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from venom_schema.canonical import canonical_json, digest
from venom_schema.manifest import (
    Array,
    Boolean,
    Error,
    Example,
    ExitResult,
    Field,
    Integer,
    Manifest,
    ManifestError,
    Null,
    Number,
    Object,
    String,
    Verb,
    load_manifest,
)
from venom_schema.zon import ZON_EMPTY, ZonEnum

ECHO_ZON = Path(__file__).parent / "manifests" / "echo.zon"

ECHO = Manifest(
    tool="venom-echo",
    summary="A toy daemon for protocol conformance",
    verbs=[
        Verb(
            name="echo",
            summary="Return the supplied text",
            params=[
                Field("text", "Text to return", String(), required=True),
                Field(
                    "style", "Output casing", String(choices=["plain", "upper"]), default="plain"
                ),
            ],
            result=Object([Field("text", "Returned text", String(), required=True)]),
            grant="read",
            examples=[
                Example({"text": "hi"}, {"text": "hi"}),
                Example({"text": "hi", "style": "upper"}, {"text": "HI"}),
            ],
        )
    ],
)


def test_python_echo_matches_zon_byte_for_byte() -> None:
    """RFC-0004 §2: a compiled declaration passes the same validator with identical output."""
    from_zon = load_manifest(ECHO_ZON)
    from_python = ECHO.validate()
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


def test_every_builder_kind_validates() -> None:
    manifest = Manifest(
        tool="t",
        summary="S",
        verbs=[
            Verb(
                name="all.kinds",
                summary="Every kind",
                params=[
                    Field("b", "B", Boolean(), default=True),
                    Field("i", "I", Integer(min=0, max=9), default=(3)),
                    Field("n", "N", Number(min=-1.5, max=1e3)),
                    Field("a", "A", Array(String()), default=("x", "y")),
                    Field("z", "Z", Null()),
                ],
                result=Object(
                    [
                        Field("status", "S", Integer(min=0, max=255), required=True),
                        Field("note", "N", String(nullable=True)),
                    ]
                ),
                errors=[
                    Error(
                        "conflict.all_busy",
                        "Busy",
                        Object([Field("n", "N", Integer(nullable=True))]),
                    )
                ],
                grant="write",
                streams=True,
                item=Number(nullable=True),
                exit=ExitResult("status"),
                examples=[Example({}, {"status": 0, "note": None})],
            )
        ],
    )
    verb = next(
        v for v in manifest.validate(bundles=("core",))["verbs"] if v["name"] == "all.kinds"
    )
    assert [p["default"] for p in verb["params"] if "default" in p] == [True, 3, ["x", "y"]]
    assert verb["exit"] == {"kind": "result", "field": "status"}
    assert verb["item"] == {"kind": "number", "nullable": True}
    assert verb["examples"] == [{"params": {}, "result": {"status": 0, "note": None}}]


def test_builder_errors_use_the_same_validator() -> None:
    """RFC-0004 §3: nullable under params fails whatever the source."""
    bad = Manifest(
        tool="t",
        summary="S",
        verbs=[
            Verb(
                name="v",
                summary="S",
                params=[Field("p", "P", String(nullable=True))],
                result=Null(),
                grant="read",
            )
        ],
    )
    with pytest.raises(ManifestError) as info:
        bad.validate(source="decl.py")
    assert info.value.problems == (
        "verbs[v].params[p].type.nullable: not allowed under params (RFC-0004 §3)",
    )
    assert str(info.value).startswith("decl.py: ")


def test_unknown_grant_from_builder() -> None:
    bad = Manifest(
        tool="t", summary="S", verbs=[Verb(name="v", summary="S", result=Null(), grant="root")]
    )
    with pytest.raises(ManifestError, match=r"verbs\[v\]\.grant: unknown \.root"):
        bad.validate()


def test_empty_object_default() -> None:
    m = Manifest(
        tool="t",
        summary="S",
        verbs=[
            Verb(
                name="v",
                summary="S",
                result=Null(),
                grant="read",
                params=[Field("o", "O", Object(), default={})],
            )
        ],
    )
    verb = next(v for v in m.validate(bundles=())["verbs"] if v["name"] == "v")
    assert verb["params"][0]["default"] == {}
    assert ZON_EMPTY is not None
