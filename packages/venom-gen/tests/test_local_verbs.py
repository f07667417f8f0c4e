"""`venom_gen.local`: one table names every standard local verb, each run as ``(product, argv)``."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from pathlib import Path

import pytest

from venom_gen import Product
from venom_gen.local import LOCAL_VERBS, local_verbs
from venom_gen.product import resolve
from venom_schema.manifest import validate_manifest

#: A model with the standard bundles (venom-gen's tests run without any product installed).
ECHO_MODEL = Path(__file__).parent / "fixtures" / "echo_model.json"


def test_every_local_verb_of_the_shared_bundles_has_a_runner() -> None:
    """The bundles' local verbs are the table's, plus the product's own ``mcp``."""
    model = validate_manifest({"format": 1, "tool": "t", "summary": "T", "verbs": []}, source="t")
    local = {v["name"] for v in model["verbs"] if v.get("dispatch") == "local"}
    assert local == (set(LOCAL_VERBS) - {"doctor"}) | {"mcp"}


@pytest.mark.parametrize("name", sorted(LOCAL_VERBS))
def test_each_entry_is_a_function_of_product_and_argv(name: str) -> None:
    run = resolve(LOCAL_VERBS[name])
    params = list(inspect.signature(run).parameters.values())
    assert len(params) >= 2
    assert all(p.default is not inspect.Parameter.empty for p in params[2:])


def test_a_product_verb_joins_the_table_and_wins(tmp_path: Path) -> None:
    seen: list[tuple[Product, list[str]]] = []

    def mine(product: Product, argv: list[str]) -> int:
        seen.append((product, argv))
        return 7

    product = Product(
        tool="t",
        version="1",
        model_path=tmp_path / "m.json",
        handlers="x:y",
        local={"doctor": mine, "mcp": mine},
    )
    verbs = local_verbs(product)
    assert set(verbs) == set(LOCAL_VERBS) | {"mcp"}
    assert verbs["doctor"](["--json"]) == 7
    assert verbs["mcp"]([]) == 7
    assert seen == [(product, ["--json"]), (product, [])]


def test_the_table_imports_no_verb_module() -> None:
    """The binary imports the table on every call; a verb's module loads when it runs."""
    code = (
        "import json, sys; from venom_gen import Product; from venom_gen.local import local_verbs; "
        f"local_verbs(Product(tool='t', version='1', model_path={str(ECHO_MODEL)!r}, "
        "handlers='x:y', local={'mcp': 'venom_mcp:mcp_verb'})); "
        "print(json.dumps(sorted(sys.modules)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    loaded = json.loads(out)
    assert [m for m in loaded if m.startswith(("venom_gen.local.", "venom_gen.daemon"))] == []


@pytest.mark.parametrize("url", ["ssh://h;id", "ssh://$(id)/t.sock", "ssh://host:\u00b2"])
def test_doctor_refuses_a_malformed_ssh_url_before_anything_runs(
    url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """rfcs/0006 §3 (issue 27): a usage error, exit 2, never an ssh run or a failing check."""
    from venom_gen.local.doctor import run_doctor

    product = Product(tool="t", version="1", model_path=ECHO_MODEL, handlers="x:y")
    assert run_doctor(product, ["--socket", url, "--json"], environ={}) == 2
    error = json.loads(capsys.readouterr().out)["error"]
    assert (error["code"], error["data"]) == ("invalid_params.usage", {"socket": url})
