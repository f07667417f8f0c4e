"""docs/declarations.md's Python blocks run: the declaration validates, its export reads back."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from venom_schema.canonical import canonical_json
from venom_schema.manifest import validate_manifest
from venom_schema.zon import parse_zon

DOC = Path(__file__).resolve().parents[1] / "docs" / "declarations.md"
_FENCE = re.compile(r"^```python\n(.*?)^```$", re.DOTALL | re.MULTILINE)


def _run_blocks() -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": "declarations_doc"}
    blocks = _FENCE.findall(DOC.read_text(encoding="utf-8"))
    assert blocks, "docs/declarations.md has no python block"
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), namespace)
    return namespace


def test_the_documented_declaration_validates_and_exports() -> None:
    declaration = _run_blocks()["DECLARATION"]
    model = declaration.model(source="docs/declarations.md")
    verbs = {v["name"]: v for v in model["verbs"]}
    assert verbs["kv.watch"]["streams"] is True
    assert verbs["kv.get"]["params"][2] == {
        "name": "mode",
        "summary": "How",
        "type": {"kind": "string", "choices": ["fast", "safe"]},
        "required": False,
    }
    exported = parse_zon(declaration.to_zon().encode(), "kv.zon")
    assert canonical_json(validate_manifest(exported)) == canonical_json(model)


def test_the_documented_typed_handlers_bind_every_echo_verb() -> None:
    bound = _run_blocks()["handlers"](None)
    assert sorted(bound) == ["echo", "echo.exit", "echo.fail", "echo.repeat", "echo.types"]


def test_the_documented_model_handler_takes_and_returns_models() -> None:
    shout = _run_blocks()["SHOUT"]
    assert shout(None, {"text": "hi"}) == {"text": "HI"}
