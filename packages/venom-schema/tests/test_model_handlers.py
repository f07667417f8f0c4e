"""`model_handler`: a handler that takes the declared pydantic params and returns a model runs
behind the same registry checks as any other (grant, params with defaults, result)."""

from __future__ import annotations

import asyncio
import inspect
import os
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field

from venom_proto import Call, ConnectionInfo, VenomError
from venom_schema.declare import MISSING, Declaration
from venom_schema.grants import ALL_GRANTS
from venom_schema.model_handlers import model_handler
from venom_schema.registry import build_verbs


class Nested(BaseModel):
    level: int = Field(default=0, ge=0, description="A level")


class Params(BaseModel):
    text: str = Field(description="Text")
    style: Literal["plain", "upper"] = Field(default="plain", description="Casing")
    nested: Nested | MISSING = Field(default=MISSING, description="Nested")


class Result(BaseModel):
    text: str = Field(description="Text")
    level: int | MISSING = Field(default=MISSING, description="Nested level, when given")


DECLARATION = Declaration("t", "S")
DECLARATION.verb("shout", "Shout", grant="read", params=Params, result=Result)
DECLARATION.verb("whisper", "Whisper", grant="read", params=Params, result=Result)
seen: list[Params] = []


def shout(call: Call, params: Params) -> Result:
    seen.append(params)
    text = params.text.upper() if params.style == "upper" else params.text
    if isinstance(params.nested, Nested):
        return Result(text=text, level=params.nested.level)
    return Result(text=text)


async def whisper(call: Call, params: Params) -> dict[str, Any]:
    return {"text": params.text.lower(), "level": "loud"}  # wrong: the registry refuses it


class _Host:
    async def emit_item(self, call: Call, item: Any) -> None:
        raise AssertionError("no items")


def _call(verb: str) -> Call:
    info = ConnectionInfo(id=1, uid=os.getuid(), gid=os.getgid(), pid=None)
    return Call(1, verb, info, _Host())


VERBS = build_verbs(
    DECLARATION.model(bundles=()),
    {"shout": model_handler(Params, shout), "whisper": model_handler(Params, whisper)},
    grants_for=lambda info: ALL_GRANTS,
)


def test_params_arrive_as_the_model_with_defaults_and_results_leave_as_json() -> None:
    handler = VERBS["shout"].handler
    assert handler(_call("shout"), {"text": "hi"}) == {"text": "hi"}  # MISSING left out
    assert seen[-1] == Params(text="hi", style="plain")
    assert handler(_call("shout"), {"text": "hi", "style": "upper", "nested": {}}) == {
        "text": "HI",
        "level": 0,  # the nested default, inserted by the registry before pydantic ran
    }


def test_bad_params_are_refused_before_the_model_is_built() -> None:
    with pytest.raises(VenomError) as info:
        VERBS["shout"].handler(_call("shout"), {"text": 1})
    assert info.value.code == "invalid_params.type"


def test_async_stays_async_and_a_wrong_result_is_internal_result() -> None:
    handler = VERBS["whisper"].handler
    assert inspect.iscoroutinefunction(handler)
    with pytest.raises(VenomError) as info:
        asyncio.run(handler(_call("whisper"), {"text": "HI"}))
    assert info.value.code == "internal.result"
