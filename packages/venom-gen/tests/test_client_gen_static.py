"""Static checks of generated clients and their verb types: ruff-clean and ``mypy --strict``-clean
as emitted, for venom-echo, a hostile model and a model of keyword and client-member names; and
the types bite: a usage file with correct calls type-checks, while each wrong call in another is
an error."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, cast

import pytest
from generated_kit import client_package

from venom_gen.build.client_gen import render_client
from venom_gen.build.verb_types import render_verb_types
from venom_proto.model_cache import load_model
from venom_schema.model import Model, Verb

ROOT = Path(__file__).resolve().parents[3]
ECHO_MODEL = ROOT / "packages/venom-echo/src/venom_echo/verbs.model.json"
HOSTILE = Path(__file__).with_name("fixtures") / "hostile_model.json"


def _verb(name: str, **extra: Any) -> Verb:
    verb: dict[str, Any] = {
        "name": name,
        "summary": f"Verb {name}",
        "params": [],
        "result": {"kind": "object", "fields": []},
        "errors": [],
        "grant": "read",
        "streams": False,
        "exit": {"kind": "standard"},
        "examples": [],
    }
    verb.update(extra)
    return cast("Verb", verb)


def _field(name: str, desc: dict[str, Any], *, required: bool = True, **extra: Any) -> Any:
    return {"name": name, "summary": f"Field {name}", "type": desc, "required": required, **extra}


#: Keywords as verb and param names, client-member names, non-object items, long choice lists
#: and summaries that try to break out of docstrings and comments.
ODD_MODEL: Model = {
    "format": 1,
    "tool": "odd-tool",
    "summary": "Odd",
    "verbs": [
        _verb(
            "close",
            summary='Triple """ quotes and a back\\slash\u2028and a line separator',
        ),
        _verb("connect", result={"kind": "null"}),
        _verb(
            "import",
            summary='Ends with a quote "',
            params=[
                _field("from", {"kind": "string"}),
                _field("self", {"kind": "integer"}, required=False, default=2),
                _field(
                    "class", {"kind": "string", "choices": [f"choice_{n:02}" for n in range(12)]}
                ),
            ],
            result={"kind": "array", "items": {"kind": "object", "nullable": True, "fields": []}},
        ),
        _verb(
            "tail",
            streams=True,
            item={"kind": "string", "nullable": True},
            result={"kind": "integer"},
            summary="word " * 40,
        ),
        _verb("cancel", dispatch="transport"),
        _verb("serve", dispatch="local"),
    ],
}

MODELS: dict[str, Any] = {
    "echo": lambda: load_model(ECHO_MODEL),
    "odd": lambda: ODD_MODEL,
    "hostile": lambda: json.loads(HOSTILE.read_text(encoding="utf-8")),
}


def _ruff(*args: str) -> subprocess.CompletedProcess[str]:
    config = ["--config", str(ROOT / "pyproject.toml")]
    command = [sys.executable, "-m", "ruff", *args, *config]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_generated_source_is_ruff_clean(name: str, tmp_path: Path) -> None:
    """As generated: ``ruff format --check`` passes and ``ruff check`` finds nothing."""
    for path, text in client_package(name, MODELS[name]()).items():
        (tmp_path / path).parent.mkdir(exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    formatted = _ruff("format", "--check", "--diff", str(tmp_path / name))
    assert formatted.returncode == 0, formatted.stdout + formatted.stderr
    checked = _ruff("check", "--no-cache", str(tmp_path / name))
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_keyword_and_member_names() -> None:
    """Keywords become ``from_`` arguments over a functional TypedDict; ``close`` and
    ``connect`` verbs become ``close_``/``connect_``; transport and local verbs get nothing."""
    types = render_verb_types(ODD_MODEL)
    assert 'ImportParams = TypedDict(\n    "ImportParams",' in types
    assert '        "from": str,' in types
    text = render_client(ODD_MODEL)
    signature = "self, *, from_: str, self_: int | Absent = ABSENT, class_: ImportParamsClass"
    assert f"        {signature}\n" in text
    assert '"from": from_' in text
    assert "    def close_(self) -> CloseResult:" in text
    assert "    def connect_(self) -> None:" in text
    assert "    def tail(self) -> Stream[str | None, int]:" in text
    assert "    async def tail(self) -> AsyncStream[str | None, int]:" in text
    assert '"cancel"' not in text
    assert '"serve"' not in text
    assert "TypedDict" not in text  # the types are verb_types', imported


def _imported(text: str) -> set[str]:
    tree = ast.parse(text)
    names = {alias.name for n in tree.body if isinstance(n, ast.Import) for alias in n.names}
    froms = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    return names | {"." * n.level + (n.module or "") for n in froms}


def test_a_client_needs_venom_proto_alone() -> None:
    """The client imports the standard library, venom-proto and its verb types; those import
    ``typing`` only."""
    files = client_package("echo", load_model(ECHO_MODEL))
    client, types = _imported(files["echo/client.py"]), _imported(files["echo/verb_types.py"])
    assert client == {"__future__", "typing", "venom_proto", "venom_proto.typed", ".verb_types"}
    assert types == {"__future__", "typing"}


def _methods(cls: ast.ClassDef) -> dict[str, str]:
    """Each method's source without its docstring."""
    methods: dict[str, str] = {}
    for node in cls.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            docstring = ast.get_docstring(node) is not None
            node.body = node.body[1:] if docstring else node.body
            methods[node.name] = ast.unparse(node)
    return methods


def test_one_method_template() -> None:
    """Each async method is its sync twin with ``async``, ``await`` and `AsyncStream`, from the
    one template (the docstrings are the sync class's); the client is under half its size
    before issue 22 (1,521 lines)."""
    text = render_client(load_model(ECHO_MODEL))
    classes = [node for node in ast.parse(text).body if isinstance(node, ast.ClassDef)]
    sync, async_ = (_methods(cls) for cls in classes)
    assert set(sync) == set(async_)
    for name, code in async_.items():
        unasync = code.replace("async def", "def").replace("await ", "")
        assert unasync.replace("AsyncStream[", "Stream[") == sync[name]
    assert len(text.splitlines()) < 1521 // 2


USAGE_OK = """
from __future__ import annotations

import anyio

from echo.client import ABSENT, AsyncVenomEchoClient, VenomEchoClient, VenomError
from echo.verb_types import EchoResult, EchoTypesArgsNested


def sync_use(path: str) -> int:
    with VenomEchoClient.connect(path, timeout=5.0) as client:
        out: EchoResult = client.echo(text="hi", style="upper")
        client.echo(text="hi", style=ABSENT)
        stream = client.echo_repeat(text="a", count=2, interval_ms=0)
        total = sum(item["index"] for item in stream) + stream.result["count"]
        nested: EchoTypesArgsNested = {"name": "x"}
        types = client.echo_types(nested=nested, tags=[1, 2], mode="fast", ratio=1)
        if types["nested"] is not None:
            total += types["nested"]["level"]
        try:
            client.echo_fail(code="timeout.echo")
        except VenomError as exc:
            print(exc.code, exc.data)
        checks = client.doctor()["checks"]
        print(out["text"].upper(), [c.get("hint", "") for c in checks], client.hello_result)
        return total


async def async_use() -> int:
    async with AsyncVenomEchoClient.connect() as client:
        out = await client.echo(text="hi")
        stream = await client.events(follow=False, types=["echo.*"])
        seqs = [event["seq"] async for event in stream]
        return len(out["text"]) + sum(seqs) + stream.result["last"]


print(anyio.run(async_use), sync_use("/tmp/x.sock"))
"""

#: Each line ends with the mypy error code it must produce.
USAGE_BAD = """
from __future__ import annotations

from echo.client import AsyncVenomEchoClient, VenomEchoClient


async def bad(client: VenomEchoClient, aclient: AsyncVenomEchoClient) -> None:
    client.echo(text="hi", style="loud")  # arg-type
    client.echo(text=1)  # arg-type
    client.echo(style="upper")  # call-arg
    client.echo("positional")  # call-arg
    client.echo_repeat(text="a", cuont=3)  # call-arg
    client.echo(text="x")["txt"]  # typeddict-item
    [item["index"] + "x" for item in client.echo_repeat(text="a")]  # operator
    client.echo_types(nested={"name": 1})  # arg-type
    client.echo_types(mode="slow")  # arg-type
    client.echo_types(tags=None)  # arg-type
    client.echo_fail(code="failed.other")  # arg-type
    client.hello()  # attr-defined
    x: str = client.doctor()["exit"]  # assignment
    y: str = (await aclient.echo_exit(status=1))["status"]  # assignment
    for item in await aclient.echo_repeat(text="a"):  # attr-defined
        pass
"""


@pytest.fixture(scope="module")
def mypy_errors(
    tmp_path_factory: pytest.TempPathFactory,
    strict_mypy: Callable[[Path, Mapping[str, str]], dict[str, list[tuple[int, str]]]],
) -> dict[str, list[tuple[int, str]]]:
    """One strict mypy run over the generated modules and the usage files: errors per file."""
    files: dict[str, str] = {}
    for name, model in MODELS.items():
        files.update(client_package(name, model()))
    files.update({"usage_ok.py": USAGE_OK, "usage_bad.py": USAGE_BAD})
    return strict_mypy(tmp_path_factory.mktemp("mypy"), files)


GENERATED = [f"{name}/{part}.py" for name in sorted(MODELS) for part in ("client", "verb_types")]


@pytest.mark.parametrize("name", [*GENERATED, "usage_ok.py"])
def test_strict_mypy_clean(mypy_errors: dict[str, list[tuple[int, str]]], name: str) -> None:
    assert mypy_errors[name] == []
    assert "<other>" not in mypy_errors


def test_wrong_calls_fail_mypy(mypy_errors: dict[str, list[tuple[int, str]]]) -> None:
    """Every wrong call is caught, with the expected error code, on its own line."""
    expected = [
        (number, line.rsplit("# ", 1)[1])
        for number, line in enumerate(USAGE_BAD.splitlines(), start=1)
        if "  # " in line
    ]
    got = sorted(set(mypy_errors["usage_bad.py"]))
    assert got == expected
