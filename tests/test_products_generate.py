"""Every product in the tree names its source once, and `venom-gen generate --check` passes on
it: the check `nox -s generate -- --check` runs in CI, here as a test (rfcs/0004 D-S50)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from venom_gen.build.regenerate import load_project, stale_files

ROOT = Path(__file__).resolve().parents[1]
PRODUCTS = ("packages/venom-echo", "examples/venom-notes")


@pytest.mark.parametrize("product", PRODUCTS)
def test_every_derived_file_is_fresh(product: str) -> None:
    stale = stale_files(load_project(ROOT / product))
    assert not stale, "\n".join([f"run: venom-gen generate --project {product}", *stale])


def test_notes_is_declared_in_python_and_echo_in_zon() -> None:
    notes = load_project(ROOT / "examples/venom-notes")
    assert notes.declaration == "venom_notes.declaration:DECLARATION"
    echo = load_project(ROOT / "packages/venom-echo")
    assert echo.declaration is None
    assert echo.client == ROOT / "packages/venom-echo/src/venom_echo/client.py"


def test_nox_generate_runs_the_one_command_on_each_product() -> None:
    tree = ast.parse((ROOT / "noxfile.py").read_text(encoding="utf-8"))
    session = next(
        node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "generate"
    )
    text = ast.unparse(session)
    assert "'venom-gen', 'generate', '--project', product" in text
    assert all(f"'{p}'" in text for p in PRODUCTS)
    for old in ("'all'", "'export-zon'", "'handler-types'", "'verb-types'", "'client'"):
        assert old not in text, old
