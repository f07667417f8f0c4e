"""docs/tutorial.md is executed, so it cannot drift from the code.

The format (also stated at the top of the tutorial):

- A fenced block whose info string is ``console`` runs: each ``$ command`` line (a trailing ``\\``
  continues it on the next line) is run by ``bash -c`` in a scratch directory, and the lines up
  to the next command are its expected output (stdout and stderr together, as in a terminal).
  Lines are compared exactly after stripping trailing blanks, except that ``...`` inside a line
  matches any text and a line that is only ``...`` matches any number of lines. A command must
  exit 0 (write ``|| echo "exit status $?"`` to show a failure).
- What a command changes in the shell carries over (``cd``, ``export``, ``source``), and
  ``$ command &`` starts a daemon in the background; the next command runs once a new owner
  token and a listening socket appear in ``$XDG_RUNTIME_DIR/venom`` (console_kit's
  ``ConsoleSession``).
- A fenced block with ``file=PATH`` in its info string is written to PATH (in the scratch
  directory) when reached. Other blocks (``shell``, ``python`` without ``file=``) are prose.

The run gets private ``HOME`` and ``XDG_*`` directories and the workspace's ``bin`` on PATH.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from console_kit import CommandStep, ConsoleSession, output_matches, parse_console
from markdown_it import MarkdownIt

from venom_gen.testing import PrivateDirs

REPO = Path(__file__).resolve().parents[1]
TUTORIAL = REPO / "docs" / "tutorial.md"
EXAMPLE = REPO / "examples" / "venom-notes"
#: Files the tutorial writes that must be byte for byte those of examples/venom-notes.
SAME_AS_EXAMPLE = {
    "notes/src/venom_notes/declaration.py": "src/venom_notes/declaration.py",
    "notes/src/venom_notes/store.py": "src/venom_notes/store.py",
    "notes/src/venom_notes/handlers.py": "src/venom_notes/handlers.py",
}
#: Files the tutorial's commands make that must be byte for byte those of examples/venom-notes.
MADE_AS_EXAMPLE = {
    "notes/src/venom_notes/verbs.zon": "src/venom_notes/verbs.zon",  # venom-gen export-zon
    "notes/src/venom_notes/handler_types.py": "src/venom_notes/handler_types.py",
    "notes/src/venom_notes/verb_types.py": "src/venom_notes/verb_types.py",
}
COMMAND_TIMEOUT = 90.0
READY_TIMEOUT = 10.0


@dataclass(frozen=True, slots=True)
class FileStep:
    line: int
    path: str
    text: str


Step = FileStep | CommandStep


def parse_tutorial(markdown: str) -> list[Step]:
    """Every executed step of the tutorial, in order."""
    steps: list[Step] = []
    for token in MarkdownIt().parse(markdown):
        if token.type != "fence" or token.map is None:
            continue
        words = token.info.split()
        first_line = token.map[0] + 2  # 1-based, after the opening fence
        target = next((w.partition("=")[2] for w in words if w.startswith("file=")), None)
        if target is not None:
            steps.append(FileStep(first_line, target, token.content))
        elif words[:1] == ["console"]:
            steps.extend(parse_console(token.content, first_line))
    return steps


#: The part of the conformance suite scaffolded projects run in this repository's tests.
QUICK_CONFORMANCE = "hello"


class Runner:
    """Runs the steps in a scratch directory with private XDG directories."""

    def __init__(self, dirs: PrivateDirs) -> None:
        self.work = dirs.root / "work"
        self.work.mkdir()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("VENOM_", "XDG_"))}
        env.pop("PYTHONPATH", None)
        env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
        # The scaffold's conformance test runs a part of the suite here (the whole suite runs on
        # venom-echo and venom-notes in `nox -s conformance`, and on a scaffolded daemon in
        # tests/test_standalone.py): enough to show the wiring, without minutes more of CI.
        env["VENOM_CONFORMANCE_SELECT"] = QUICK_CONFORMANCE
        self.session = ConsoleSession(
            self.work,
            dirs.env("venom-notes", env),  # HOME and every XDG_* the kit's own
            dirs.runtime / "venom",
            doc="docs/tutorial.md",
            timeout=COMMAND_TIMEOUT,
            ready_timeout=READY_TIMEOUT,
        )

    def write(self, step: FileStep) -> None:
        path = self.work / step.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(step.text, encoding="utf-8")

    def run(self, step: CommandStep) -> None:
        self.session.run(step)

    def close(self) -> None:
        self.session.close()


@pytest.fixture
def runner(venom_dirs: PrivateDirs) -> Iterator[Runner]:
    # The kit's directories, not pytest's tmp_path: the daemon's socket path must fit sun_path.
    r = Runner(venom_dirs)
    try:
        yield r
    finally:
        r.close()


def test_the_tutorial_runs_as_written(runner: Runner) -> None:
    """Every console block, in order, against a real daemon, with the outputs it shows."""
    missing = [tool for tool in ("bash", "socat", "jq") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"the tutorial needs {', '.join(missing)}")
    for step in parse_tutorial(TUTORIAL.read_text(encoding="utf-8")):
        if isinstance(step, FileStep):
            runner.write(step)
        else:
            runner.run(step)
    for made, example in MADE_AS_EXAMPLE.items():
        text = (runner.work / made).read_text(encoding="utf-8")
        assert text == (EXAMPLE / example).read_text(encoding="utf-8"), made


def test_tutorial_files_are_the_example_files() -> None:
    """The code the reader types is the code of examples/venom-notes, byte for byte."""
    files = {
        s.path: s.text
        for s in parse_tutorial(TUTORIAL.read_text(encoding="utf-8"))
        if isinstance(s, FileStep)
    }
    for written, example in SAME_AS_EXAMPLE.items():
        assert written in files, f"the tutorial no longer writes {written}"
        assert files[written] == (EXAMPLE / example).read_text(encoding="utf-8"), written


def test_console_blocks_parse_into_commands_and_outputs() -> None:
    markdown = "text\n\n```console\n$ echo a \\\n  b\na b\n$ true\n```\n\n```shell\n$ no\n```\n"
    assert parse_tutorial(markdown) == [
        CommandStep(4, "echo a \n  b", ("a b",)),
        CommandStep(7, "true", ()),
    ]


def test_file_blocks_are_steps() -> None:
    markdown = "```python file=x/y.py\nprint(1)\n```\n"
    assert parse_tutorial(markdown) == [FileStep(2, "x/y.py", "print(1)\n")]


@pytest.mark.parametrize(
    ("expected", "output", "matches"),
    [
        (("a", "b"), "a\nb\n", True),
        (("a", "b"), "a\nb", True),
        (("a", "b"), "a\nb\nc\n", False),
        (("a",), "a  \n", True),
        (('{"id":1,"created":"..."}',), '{"id":1,"created":"2026-01-01T00:00:00Z"}\n', True),
        (('{"id":1,"created":"..."}',), '{"id":2,"created":"x"}\n', False),
        (("...", "9 passed in ..."), "....\n9 passed in 1.2s\n", True),
        (("...", "9 passed in ..."), "9 passed in 1.2s\n", True),
        (("...", "9 passed in ..."), "8 passed in 1.2s\n", False),
        (("x...",), "x\ny\n", False),  # an in-line ... never spans lines
        ((), "", True),
        ((), "surprise\n", False),
    ],
)
def test_output_matching(expected: tuple[str, ...], output: str, matches: bool) -> None:
    assert output_matches(expected, output) is matches
