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
        env={**os.environ, "PYTHONPATH": str(root / "src")},
        capture_output=True,
        text=True,
        timeout=1800,  # its conformance test runs the whole shipped suite against its daemon
        check=False,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert "15 passed" in run.stdout
