"""venom-echo's verbs declared in Python (pydantic) give byte for byte the model of its verbs.zon.

RFC-0004 §2: "A compiled declaration MAY construct the same model; it MUST pass the same
validator and produce identical generated artifacts." The declaration below is venom-echo's
verbs.zon written as pydantic models; the test holds the two paths to one canonical model, one
digest and one set of generated files, and the ZON exported from the declaration reads back to
the same model.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from venom_echo.product import MODEL_PATH
from venom_gen.build.artifacts import all_artifacts
from venom_proto.model_cache import load_cache_info
from venom_schema.canonical import canonical_json, digest
from venom_schema.declare import MISSING, Declaration, Error, Example
from venom_schema.manifest import load_manifest, validate_manifest
from venom_schema.zon import parse_zon

ZON = Path(MODEL_PATH).with_name("verbs.zon")


class EchoParams(BaseModel):
    text: str = Field(description="Text to return")
    style: Literal["plain", "upper"] = Field(default="plain", description="Output casing")


class EchoResult(BaseModel):
    text: str = Field(description="Returned text")


class RepeatParams(BaseModel):
    text: str = Field(description="Text to repeat")
    count: int = Field(default=3, ge=0, le=100000, description="Number of items to stream")
    interval_ms: int = Field(
        default=0, ge=0, le=60000, description="Pause before each item, in milliseconds"
    )


class RepeatResult(BaseModel):
    count: int = Field(ge=0, description="Items sent")


class RepeatItem(BaseModel):
    index: int = Field(ge=0, description="Position from 0")
    text: str = Field(description="The repeated text")


class ExitParams(BaseModel):
    status: int = Field(ge=0, le=255, description="Exit status to return")


class ExitResult(BaseModel):
    status: int = Field(ge=0, le=255, description="The status")


class FailCode(StrEnum):
    FAILED = "failed.echo"
    NOT_FOUND = "not_found.echo"
    BUSY = "conflict.echo_busy"
    TIMEOUT = "timeout.echo"


class FailParams(BaseModel):
    code: FailCode = Field(description="Which declared error to fail with")


class FailedData(BaseModel):
    reason: str = Field(description="Why")


class NotFoundData(BaseModel):
    what: str = Field(description="What was missing")


class BusyData(BaseModel):
    retry_after_ms: int = Field(ge=0, description="When to try again")


class TimeoutData(BaseModel):
    waited_ms: int = Field(ge=0, description="How long it waited")
    hint: str | None = Field(description="What to try")


class NestedParams(BaseModel):
    name: str = Field(default="anon", description="A name")
    level: int = Field(default=0, ge=0, le=3, description="A level")


class TypesParams(BaseModel):
    count: int = Field(default=1, ge=-10, le=10, description="A bounded integer")
    ratio: float = Field(default=0.5, ge=0, le=1, description="A bounded number")
    flag: bool = Field(default=False, description="A boolean")
    tags: list[int] | MISSING = Field(default=MISSING, description="An array of integers")
    nested: NestedParams | MISSING = Field(
        default=MISSING, description="An object with its own defaults"
    )
    mode: Literal["fast", "safe"] | MISSING = Field(default=MISSING, description="A choice")


class NestedResult(BaseModel):
    name: str = Field(description="A name")
    level: int = Field(description="A level")


class TypesResult(BaseModel):
    count: Annotated[int, Field(description="As received")]
    ratio: float = Field(description="As received")
    flag: bool = Field(description="As received")
    tags: list[int] | None = Field(description="As received, or null")
    nested: NestedResult | None = Field(description="As received, or null")
    mode: str | None = Field(description="As received, or null")


ECHO = Declaration("venom-echo", "A toy daemon for protocol conformance")
# Declared out of wire-name order on purpose: the model sorts verbs, whatever the source.
ECHO.verb(
    "echo.types",
    "Return params of every kind as received, after default insertion",
    grant="read",
    params=TypesParams,
    result=TypesResult,
    examples=[
        Example(
            TypesParams(tags=[1, 2]),
            TypesResult(count=1, ratio=0.5, flag=False, tags=[1, 2], nested=None, mode=None),
        )
    ],
)
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
ECHO.verb(
    "echo.repeat",
    "Stream the text back count times, one item each",
    grant="read",
    params=RepeatParams,
    result=RepeatResult,
    item=RepeatItem,
    examples=[Example(RepeatParams(text="hi", count=2), RepeatResult(count=2))],
)
ECHO.verb(
    "echo.exit",
    "Succeed with a status the CLI passes through as its exit status",
    grant="read",
    params=ExitParams,
    result=ExitResult,
    exit_status="status",
    examples=[Example({"status": 3}, {"status": 3})],
)
ECHO.verb(
    "echo.fail",
    "Fail with the chosen declared error",
    grant="read",
    params=FailParams,
    result=None,
    errors=[
        Error("failed.echo", "The echo failed on purpose", FailedData),
        Error("not_found.echo", "There was nothing to echo", NotFoundData),
        Error("conflict.echo_busy", "The echo is busy", BusyData),
        Error("timeout.echo", "The echo took too long", TimeoutData),
    ],
)


def test_python_declaration_gives_the_zon_model_byte_for_byte() -> None:
    """Same canonical bytes, same digest as verbs.zon and as the committed model cache."""
    from_zon = load_manifest(ZON)
    from_python = ECHO.model(source="test_echo_declaration:ECHO")
    assert canonical_json(from_python) == canonical_json(from_zon)
    assert digest(from_python) == digest(from_zon) == load_cache_info(MODEL_PATH)["digest"]


def test_python_declaration_gives_identical_generated_artifacts() -> None:
    """RFC-0004 §2: "produce identical generated artifacts" (docs, man, completions, skill)."""
    assert all_artifacts(ECHO.model()) == all_artifacts(load_manifest(ZON))


def test_exported_zon_reads_back_to_the_same_model() -> None:
    """export -> parse -> validate: the data-only interchange file is the declaration."""
    text = ECHO.to_zon(header="venom-echo, exported from a Python declaration")
    assert text.startswith("// venom-echo, exported from a Python declaration\n.{\n")
    again = validate_manifest(parse_zon(text.encode(), "exported.zon"), source="exported.zon")
    assert canonical_json(again) == canonical_json(ECHO.model())
