"""Every shell block of the user docs runs as written (rfcs/0004 D-S53).

The docs are README.md, docs/tutorial.md, docs/service.md and docs/remote.md (the scaffold's
README is run by tests/test_standalone.py). Each ``sh``, ``shell``, ``bash`` or ``console``
block is one of:

- run by the test that owns its setting: the README's set-up, its session and service.md's
  install from the checkout by tests/test_readme.py (on a fresh copy of the checkout), the
  tutorial's console blocks by tests/test_tutorial.py;
- run here, in order per document, as one shell (tests/console_kit.py's ``ConsoleSession``)
  with the workspace's environment active and a real venom-echo daemon on private
  directories: a ``console`` block compared with the output it shows, an ``sh`` block as one
  script that must exit 0;
- marked ``no-run=REASON`` in its info string (```` ```sh no-run=systemd ````), where
  REASON is one of `REASONS`, each with the words its block must contain to claim it: a
  block cannot be excused for a reason that is not its own.

No block calls a bare ``uv``: after the README's set-up, uv is ``.uv/bin/uv``.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from console_kit import CommandStep, ConsoleSession, parse_console
from markdown_it import MarkdownIt

from venom_gen.testing import DaemonProcess, PrivateDirs

ROOT = Path(__file__).resolve().parents[1]
DOCS = ("README.md", "docs/tutorial.md", "docs/service.md", "docs/remote.md")
SHELLS = frozenset({"sh", "shell", "bash", "console"})
#: Why a block may not run in CI, and what a block must mention to claim that reason.
REASONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "systemd": ("needs a systemd user session (systemd as PID 1)", ("systemctl",)),
    "launchd": ("needs macOS's launchd", ("launchctl",)),
    "remote-host": ("needs a second machine reached over ssh", ("ssh",)),
    "release-tag": (
        "needs the reader's own project history with a release tag (the gate itself runs in "
        "tests/test_release_gate.py)",
        ("git show v",),
    ),
    "setup": (
        "is the set-up the test itself stands in (the workspace synced and active)",
        ("source .venv/bin/activate",),
    ),
}
#: Blocks another test runs, by document and the block's first command.
RUN_ELSEWHERE = {
    ("README.md", "python3 -m venv .uv"): "tests/test_readme.py (the set-up)",
    ("README.md", "source .venv/bin/activate"): "tests/test_readme.py (the session)",
    ("docs/service.md", ".uv/bin/uv run --locked nox -s dist"): "tests/test_readme.py",
}
#: ``uv`` where a command starts: a line's start, or after ``&&``, ``||``, ``;``, ``|``, ``(``.
BARE_UV = re.compile(r"(?:^|&&|\|\||[;|(`])\s*uv\s")


@dataclass(frozen=True, slots=True)
class Block:
    doc: str
    line: int
    info: tuple[str, ...]
    content: str

    @property
    def no_run(self) -> str | None:
        return next((w.partition("=")[2] for w in self.info if w.startswith("no-run=")), None)

    @property
    def first_command(self) -> str:
        first = self.content.strip().splitlines()[0]
        return first.removeprefix("$ ")

    def elsewhere(self) -> str | None:
        if self.doc == "docs/tutorial.md" and self.info[0] == "console":
            return "tests/test_tutorial.py"
        for (doc, start), where in RUN_ELSEWHERE.items():
            if doc == self.doc and self.first_command.startswith(start):
                return where
        return None

    def steps(self) -> list[CommandStep]:
        if self.info[0] == "console":
            return parse_console(self.content, self.line)
        return [CommandStep(self.line, self.content.rstrip("\n"), ("...",))]


def shell_blocks(doc: str) -> list[Block]:
    tokens = MarkdownIt().parse((ROOT / doc).read_text(encoding="utf-8"))
    return [
        Block(doc, t.map[0] + 2, tuple(t.info.split()), t.content)
        for t in tokens
        if t.type == "fence" and t.map is not None and t.info.split()[:1] in ([s] for s in SHELLS)
    ]


ALL = [block for doc in DOCS for block in shell_blocks(doc)]


@pytest.mark.parametrize("block", ALL, ids=lambda b: f"{b.doc}:{b.line}")
def test_no_block_calls_a_bare_uv(block: Block) -> None:
    for line in block.content.splitlines():
        code = line.split("#", 1)[0].removeprefix("$ ")
        assert not BARE_UV.search(code), f"{block.doc}:{block.line}: {line!r}: use .uv/bin/uv"


@pytest.mark.parametrize("block", ALL, ids=lambda b: f"{b.doc}:{b.line}")
def test_a_block_that_does_not_run_says_why_and_the_reason_is_its_own(block: Block) -> None:
    reason = block.no_run
    if reason is None:
        return
    assert reason in REASONS, f"{block.doc}:{block.line}: no-run={reason}: not one of {REASONS}"
    assert block.elsewhere() is None, f"{block.doc}:{block.line}: runs elsewhere, yet no-run"
    words = REASONS[reason][1]
    assert any(w in block.content for w in words), (
        f"{block.doc}:{block.line}: no-run={reason} ({REASONS[reason][0]}) but the block"
        f" mentions none of {words}"
    )


def test_every_block_is_accounted_for() -> None:
    """Each block runs here, elsewhere, or is excused; and the ones run elsewhere exist."""
    for (doc, start), where in RUN_ELSEWHERE.items():
        assert any(b.doc == doc and b.first_command.startswith(start) for b in ALL), where
    tutorial = [b for b in ALL if b.doc == "docs/tutorial.md"]
    assert all(b.elsewhere() or b.no_run for b in tutorial), "the tutorial runs in its own test"
    excused = [b for b in ALL if b.no_run is not None]
    assert len(excused) <= 6, "more excused blocks than runnable ones: justify each in REASONS"


@pytest.fixture
def daemon(venom_dirs: PrivateDirs) -> Iterator[DaemonProcess]:
    with DaemonProcess("venom_echo.product:PRODUCT", dirs=venom_dirs) as running:
        yield running


@pytest.mark.parametrize("doc", [d for d in DOCS if d != "docs/tutorial.md"])
def test_the_blocks_run_here_run_as_written(
    doc: str, daemon: DaemonProcess, venom_dirs: PrivateDirs
) -> None:
    if shutil.which("socat") is None:
        pytest.skip("the README's socket example needs socat")
    blocks = [b for b in shell_blocks(doc) if b.no_run is None and b.elsewhere() is None]
    assert blocks or doc == "README.md"
    env = dict(daemon.env)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    work = venom_dirs.root / "work"
    work.mkdir(exist_ok=True)
    session = ConsoleSession(work, env, venom_dirs.runtime / "venom", doc=doc)
    try:
        for block in blocks:
            for step in block.steps():
                session.run(step)
    finally:
        session.close()
