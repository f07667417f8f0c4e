"""The examples of docs/testing.md's test-kit section run, as written, against venom-notes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[3] / "docs" / "testing.md"
BLOCK = re.compile(r"```python file=(\S+)\n(.*?)```", re.S)
CONFTEST = """import pytest


@pytest.fixture
def venom_product() -> str:
    return "venom_notes.product:PRODUCT"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
"""


@pytest.mark.skipif(not DOC.is_file(), reason="runs from the repository only")
def test_the_kit_examples_pass(tmp_path: Path) -> None:
    blocks = BLOCK.findall(DOC.read_text(encoding="utf-8"))
    assert len(blocks) >= 2
    for name, text in blocks:
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "conftest.py").write_text(CONFTEST, encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path,
        env={k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert "4 passed" in run.stdout
