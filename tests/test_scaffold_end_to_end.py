"""`venom-gen new` makes a product that passes its own tests with the whole toolkit installed.

It lives here, not among venom-gen's own tests, because the scaffolded product stands on
venom-mcp, a layer above venom-gen: venom-gen's wheel alone cannot run it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from venom_gen.build.scaffold import scaffold_product


@pytest.mark.timeout(1800)
def test_scaffolded_project_passes_its_own_tests(tmp_path: Path) -> None:
    """The acceptance criterion: no edits needed. Socket, CLI and MCP are exercised for real."""
    root = tmp_path / "venom-foo"
    scaffold_product("venom-foo", root, standalone=True)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root / "src"), "VENOM_CONFORMANCE_SELECT": "hello"},
        capture_output=True,
        text=True,
        timeout=1800,  # its conformance test runs the whole shipped suite against its daemon
        check=False,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert "15 passed" in run.stdout


def test_a_changed_summary_fails_the_freshness_test_until_regenerated(tmp_path: Path) -> None:
    """The declaration, verbs.zon and every generated file must agree: a summary edited in the
    declaration alone fails the scaffold's own test; `venom-gen generate` makes it pass."""
    root = tmp_path / "venom-foo"
    scaffold_product("venom-foo", root, standalone=True)
    declaration = root / "src" / "venom_foo" / "declaration.py"
    text = declaration.read_text(encoding="utf-8")
    declaration.write_text(text.replace('"Return a greeting"', '"Return a warm greeting"'))

    def model_tests() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
             "tests/test_venom_foo_model.py"],
            cwd=root, env={**os.environ, "PYTHONPATH": str(root / "src")},
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip

    stale = model_tests()
    assert stale.returncode == 1, stale.stdout[-3000:]
    assert "test_every_derived_file_is_fresh" in stale.stdout
    assert "Return a warm greeting" in stale.stdout  # the diff names what changed
    venom_gen = Path(sys.executable).parent / "venom-gen"
    regenerated = subprocess.run(
        [str(venom_gen), "generate"], cwd=root, capture_output=True, text=True, timeout=60,
        check=False,
    )  # fmt: skip
    assert regenerated.returncode == 0, regenerated.stderr
    fresh = model_tests()
    assert fresh.returncode == 0, fresh.stdout[-3000:]
