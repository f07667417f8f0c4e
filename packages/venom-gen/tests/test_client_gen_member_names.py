"""Typed clients' verb types for result, item and error-data field names that are not
identifiers.

RFC-0004 §2 allows any name without control characters outside params (``createdAt``,
``created at``, ``a.b``, ``from``, ``__x``, ``😀``...). The generated TypedDicts keep each name
as its key verbatim (the functional syntax where a class attribute could not spell it), the
nested types get unique identifier names, and the module stays ``mypy --strict`` clean while
the keys still bite: a misspelled key is an error.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import types
from pathlib import Path
from typing import cast

import pytest
from generated_kit import client_package

from venom_gen.build.verb_types import render_verb_types
from venom_schema.model import Descriptor, Model, Verb

ROOT = Path(__file__).resolve().parents[3]
HOSTILE = Path(__file__).with_name("fixtures") / "hostile_model.json"


def _records() -> Verb:
    model: Model = json.loads(HOSTILE.read_text(encoding="utf-8"))
    return next(v for v in model["verbs"] if v["name"] == "records")


def _module(model: Model) -> types.ModuleType:
    module = types.ModuleType("hostile_types")
    sys.modules["hostile_types"] = module  # TypedDict resolves its module by name
    try:
        exec(compile(render_verb_types(model), "hostile_types.py", "exec"), module.__dict__)
    finally:
        del sys.modules["hostile_types"]
    return module


def test_keys_are_the_names_verbatim() -> None:
    module = _module(json.loads(HOSTILE.read_text(encoding="utf-8")))
    verb = _records()
    result, item = module.RecordsResult, module.RecordsItem
    assert list(result.__annotations__) == [f["name"] for f in verb["result"]["fields"]]
    assert result.__required_keys__ == {"nested object"}
    assert list(item.__annotations__) == [f["name"] for f in verb["item"]["fields"]]
    nested = module.RecordsResultNestedObject
    assert list(nested.__annotations__) == ["created at", "createdAt"]


def _model(*names: str, desc: Descriptor | None = None) -> Model:
    fields = [
        {"name": n, "summary": n, "type": desc or {"kind": "string"}, "required": True}
        for n in names
    ]
    verb = {
        "name": "v",
        "summary": "V",
        "params": [],
        "result": {"kind": "object", "fields": fields},
        "errors": [],
        "grant": "read",
        "streams": False,
        "exit": {"kind": "standard"},
        "examples": [],
    }
    return {"format": 1, "tool": "t", "summary": "T", "verbs": [cast("Verb", verb)]}


@pytest.mark.parametrize(
    ("names", "functional"),
    [
        (("createdAt", "b"), False),
        (("self", "_x", "TypedDict"), False),
        (("from",), True),
        (("__x",), True),  # a class body would mangle it to _VResult__x
        (("ﬁle",), True),  # NFKC turns the ligature into "file"
        (("a b",), True),
        (("str",), True),  # `str: str` would shadow the type it is annotated with
    ],
)
def test_class_syntax_only_where_it_spells_the_key(
    names: tuple[str, ...], functional: bool
) -> None:
    text = render_verb_types(_model(*names))
    assert ('VResult = TypedDict(\n    "VResult",' in text) is functional
    assert list(_module(_model(*names)).VResult.__annotations__) == list(names)


def test_nested_type_names_are_unique_identifiers() -> None:
    """Names that reduce to one identifier part get numbered, never a GenerationError."""
    obj: Descriptor = {"kind": "object", "fields": []}
    module = _module(_model("created at", "created_at", "createdAt", "😀", "🙂", "1st", desc=obj))
    parts = [n for n in dir(module) if n.startswith("VResult") and n != "VResult"]
    assert sorted(parts) == [
        "VResultCreatedAt",
        "VResultCreatedAt2",
        "VResultCreatedAt3",
        "VResultField",
        "VResultField2",
        "VResultN1st",
    ]


USAGE = """
from __future__ import annotations

from hostile.client import HostileToolClient
from hostile.verb_types import RecordsItem, RecordsResult


def good(client: HostileToolClient) -> str:
    stream = client.records()
    flags = [item["a.b"] for item in stream if item.get("__x", False)]
    result: RecordsResult = stream.result
    nested = result["nested object"]
    return nested["created at"] + result.get("😀", "") + result.get("from", "") + str(flags)


def bad(result: RecordsResult, item: RecordsItem) -> None:
    result["created_at"]  # typeddict-item
    item["a.b"] + "x"  # operator
    result["nested object"]["createdAt"] + "x"  # operator
"""
_ERROR = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+): error: .*\[(?P<code>[a-z-]+)\]$")


def test_the_client_type_checks_and_its_keys_bite(tmp_path: Path) -> None:
    files = client_package("hostile", json.loads(HOSTILE.read_text(encoding="utf-8")))
    files["usage.py"] = USAGE
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    command = [sys.executable, "-m", "mypy", "--strict", "--no-error-summary"]
    command += ["--cache-dir", str(tmp_path / ".mypy_cache")]
    command += [str(tmp_path / name) for name in files]
    proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    errors = []
    for line in proc.stdout.splitlines():
        match = _ERROR.match(line)
        assert match is not None or ": note:" in line, line
        if match is not None:
            errors.append((Path(match["file"]).name, int(match["line"]), match["code"]))
    expected = [
        ("usage.py", number, line.rsplit("# ", 1)[1])
        for number, line in enumerate(USAGE.splitlines(), start=1)
        if "  # " in line
    ]
    assert sorted(set(errors)) == expected  # a union operand may report twice on one line
