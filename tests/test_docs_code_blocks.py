"""Every Python block in the documentation runs: the guides, the READMEs, the tutorial.

A block's fence says how it runs:

- ```` ```python ````: executed, in order, in one namespace per page (a page's blocks build on
  each other); blocks that talk to a daemon find a real venom-echo daemon through the
  environment, as a user's shell would after ``venom-echo serve``;
- ```` ```python file=NAME ````: a file of the page's project; docs/tutorial.md's are written
  and run by tests/test_tutorial.py, docs/testing.md's are run here by pytest, as the page says;
- ```` ```python fragment ````: a few lines shown inside a larger context (a handler body, a
  call needing an ssh host): compiled, and held to a few lines so nothing long hides there.

Signatures and sketches that are not Python use ```` ```text ````.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from venom_gen.testing import DaemonProcess

ROOT = Path(__file__).resolve().parents[1]
_FENCE = re.compile(r"^```python([^\n]*)\n(.*?)^```$", re.DOTALL | re.MULTILINE)
#: A fragment longer than this is a program and must run.
FRAGMENT_LINES = 10


def _pages() -> list[Path]:
    pages = sorted((ROOT / "docs").glob("*.md"))
    pages += [ROOT / "README.md", *sorted(ROOT.glob("packages/*/README.md"))]
    pages += sorted(ROOT.glob("examples/*/README.md"))
    return pages


def _blocks(page: Path) -> list[tuple[int, str, str]]:
    text = page.read_text(encoding="utf-8")
    return [
        (text.count("\n", 0, m.start()) + 1, m.group(1).strip(), m.group(2))
        for m in _FENCE.finditer(text)
    ]


def _runnable(page: Path) -> list[tuple[int, str]]:
    return [(line, body) for line, info, body in _blocks(page) if info == ""]


@pytest.mark.parametrize("page", _pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_block_is_marked_and_compiles(page: Path) -> None:
    for line, info, body in _blocks(page):
        where = f"{page.relative_to(ROOT)}:{line}"
        assert info in ("", "fragment") or info.startswith("file="), f"{where}: fence {info!r}"
        compile(body, where, "exec")
        if info == "fragment":
            assert body.count("\n") <= FRAGMENT_LINES, f"{where}: a long fragment must run"


@pytest.fixture(scope="module")
def echo_daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DaemonProcess]:
    with DaemonProcess("venom_echo.product:PRODUCT") as daemon:
        yield daemon


@pytest.mark.parametrize(
    "page",
    [p for p in _pages() if _runnable(p)],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_the_runnable_blocks_run(
    page: Path, echo_daemon: DaemonProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The daemon's private directories, as the user's shell has them.
    for name in ("XDG_RUNTIME_DIR", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "HOME"):
        if name in echo_daemon.env:
            monkeypatch.setenv(name, echo_daemon.env[name])
    namespace: dict[str, Any] = {"__name__": f"doc:{page.name}"}
    for line, body in _runnable(page):
        where = f"{page.relative_to(ROOT)}:{line}"
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(body, where, "exec"), namespace)


def test_the_testing_guides_test_files_pass(tmp_path: Path) -> None:
    page = ROOT / "docs" / "testing.md"
    blocks = _blocks(page)
    files = [(info.removeprefix("file="), body) for _, info, body in blocks if info]
    conftests = [body for _, info, body in blocks if not info and "@pytest.fixture" in body]
    assert files
    assert conftests
    for name, body in files:
        (tmp_path / name).write_text(body, encoding="utf-8")
    (tmp_path / "conftest.py").write_text("\n\n".join(conftests), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{len(files)} passed" in done.stdout or "passed" in done.stdout
