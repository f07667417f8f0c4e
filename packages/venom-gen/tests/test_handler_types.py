"""`venom-gen handler-types` and `venom-gen verb-types`: the committed modules are fresh, clean
as emitted, and the types bite: a correct handler file passes ``mypy --strict``; each mistake in
a wrong one is an error."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from venom_gen.build.handler_types import handler_verbs, protocol_name, render_handler_types
from venom_gen.build.verb_types import render_verb_types
from venom_proto.model_cache import load_model

ROOT = Path(__file__).resolve().parents[3]
PRODUCTS = {
    "venom-echo": ROOT / "packages/venom-echo/src/venom_echo",
    "venom-notes": ROOT / "examples/venom-notes/src/venom_notes",
}
REGENERATE = "regenerate: nox -s generate"


@pytest.mark.parametrize("tool", sorted(PRODUCTS))
def test_committed_module_is_fresh(tool: str) -> None:
    package = PRODUCTS[tool]
    model = load_model(str(package / "verbs.model.json"))
    committed = (package / "handler_types.py").read_text(encoding="utf-8")
    assert committed == render_handler_types(model), REGENERATE
    committed = (package / "verb_types.py").read_text(encoding="utf-8")
    assert committed == render_verb_types(model), REGENERATE


def test_only_product_verbs_get_a_method() -> None:
    model = load_model(str(PRODUCTS["venom-echo"] / "verbs.model.json"))
    names = [v["name"] for v in handler_verbs(model)]
    assert names == ["echo", "echo.exit", "echo.fail", "echo.repeat", "echo.types"]
    assert protocol_name("venom-echo") == "VenomEchoHandlers"


def test_params_with_defaults_are_always_present_for_the_handler() -> None:
    text = (PRODUCTS["venom-echo"] / "verb_types.py").read_text(encoding="utf-8")
    params = text.split("class EchoRepeatParams(TypedDict):", 1)[1].split("\n\n\n", 1)[0]
    assert "    count: int\n" in params  # default 3: inserted before the handler runs
    types = text.split("class EchoTypesParams(TypedDict):", 1)[1].split("\n\n\n", 1)[0]
    assert "    tags: NotRequired[list[int]]\n" in types  # optional, no default: may be absent
    nested = text.split("class EchoTypesParamsNested(TypedDict):", 1)[1].split("\n\n\n", 1)[0]
    assert "    level: int" in nested.splitlines()  # a nested default is inserted too
    sent = text.split("class EchoTypesArgsNested(TypedDict):", 1)[1].split("\n\n\n", 1)[0]
    assert "    level: NotRequired[int]" in sent.splitlines()  # a caller may leave it out


HANDLERS_OK = """
from __future__ import annotations

from collections.abc import Mapping

from venom_echo.handler_types import (
    EchoExitParams,
    EchoExitResult,
    EchoFailParams,
    EchoParams,
    EchoRepeatItem,
    EchoRepeatParams,
    EchoRepeatResult,
    EchoResult,
    EchoTypesParams,
    EchoTypesResult,
    StreamingCall,
    bind_handlers,
)
from venom_proto import Call, Handler, VenomError


class Ok:
    def echo(self, call: Call, params: EchoParams) -> EchoResult:
        return {"text": params["text"].upper() if params["style"] == "upper" else params["text"]}

    async def echo_repeat(
        self, call: StreamingCall[EchoRepeatItem], params: EchoRepeatParams
    ) -> EchoRepeatResult:
        for index in range(params["count"]):
            await call.emit({"index": index, "text": params["text"]})
        return {"count": params["count"]}

    def echo_exit(self, call: Call, params: EchoExitParams) -> EchoExitResult:
        return {"status": params["status"]}

    def echo_fail(self, call: Call, params: EchoFailParams) -> None:
        raise VenomError(params["code"], "failed")

    async def echo_types(self, call: Call, params: EchoTypesParams) -> EchoTypesResult:
        nested = params.get("nested")
        return {
            "count": params["count"],
            "ratio": params["ratio"],
            "flag": params["flag"],
            "tags": params.get("tags"),
            "nested": nested,
            "mode": params.get("mode"),
        }


def handlers() -> Mapping[str, Handler]:
    return bind_handlers(Ok())
"""

#: Each marked line must produce exactly the mypy error codes it names.
HANDLERS_BAD = """
from __future__ import annotations

from venom_echo.handler_types import (
    EchoExitParams,
    EchoExitResult,
    EchoFailParams,
    EchoParams,
    EchoRepeatItem,
    EchoRepeatParams,
    EchoRepeatResult,
    EchoResult,
    StreamingCall,
    bind_handlers,
)
from venom_proto import Call


class Bad:
    def echo(self, call: Call, params: EchoParams) -> EchoResult:
        loud = params["style"] == "loud"  # comparison-overlap
        assert loud
        return {"txt": params["txt"]}  # typeddict-unknown-key typeddict-item

    async def echo_repeat(
        self, call: StreamingCall[EchoRepeatItem], params: EchoRepeatParams
    ) -> EchoRepeatResult:
        await call.emit({"index": "0", "text": params["text"]})  # typeddict-item
        return {"count": params["text"]}  # typeddict-item

    def echo_exit(self, call: Call, params: EchoExitParams) -> EchoExitResult:
        return {"status": params["status"] + "1"}  # operator

    def echo_fail(self, call: Call, params: EchoFailParams) -> str:
        return params["code"]


class Missing:
    def echo(self, call: Call, params: EchoParams) -> EchoResult:
        return {"text": params["text"]}


bind_handlers(Bad())  # arg-type
bind_handlers(Missing())  # arg-type
"""


@pytest.fixture(scope="module")
def mypy_errors(
    tmp_path_factory: pytest.TempPathFactory,
    strict_mypy: Callable[[Path, Mapping[str, str]], dict[str, list[tuple[int, str]]]],
) -> dict[str, list[tuple[int, str]]]:
    """One strict mypy run over the two handler files: errors per file."""
    files = {"handlers_ok.py": HANDLERS_OK, "handlers_bad.py": HANDLERS_BAD}
    return strict_mypy(tmp_path_factory.mktemp("mypy"), files)


def test_correct_handlers_pass_strict_mypy(mypy_errors: dict[str, list[tuple[int, str]]]) -> None:
    assert mypy_errors["handlers_ok.py"] == []
    assert "<other>" not in mypy_errors


def test_wrong_handlers_fail_strict_mypy(mypy_errors: dict[str, list[tuple[int, str]]]) -> None:
    """A wrong key, a wrong type, a wrong item, a wrong result or a missing or mistyped
    handler: each is an error with the expected code, on its own line."""
    expected = sorted(
        (number, code)
        for number, line in enumerate(HANDLERS_BAD.splitlines(), start=1)
        if "  # " in line
        for code in line.rsplit("  # ", 1)[1].split()
    )
    assert sorted(set(mypy_errors["handlers_bad.py"])) == expected
