"""Console blocks in Markdown, run and compared: the format docs/tutorial.md and README.md share.

A ``console`` block is ``$ command`` lines (a trailing ``\\`` continues one), each followed by
its expected output. Lines are compared exactly after stripping trailing blanks, except that
``...`` inside a line matches any text and a line that is only ``...`` matches any number of
lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CommandStep:
    line: int
    command: str
    expected: tuple[str, ...]


def parse_console(content: str, first_line: int) -> list[CommandStep]:
    """The ``$ command`` lines of one console block and the output lines after each."""
    steps: list[CommandStep] = []
    lines = content.splitlines()
    i = 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            raise ValueError(f"line {first_line + i}: output before any command")
        start, command = i, lines[i][2:]
        while command.endswith("\\") and i + 1 < len(lines):
            i += 1
            command = command[:-1] + "\n" + lines[i]
        i += 1
        expected: list[str] = []
        while i < len(lines) and not lines[i].startswith("$ "):
            expected.append(lines[i].rstrip())
            i += 1
        steps.append(CommandStep(first_line + start, command, tuple(expected)))
    return steps


def output_pattern(expected: tuple[str, ...]) -> re.Pattern[str]:
    """A regex for the whole output: ``...`` lines match any lines, ``...`` in a line any text."""
    parts = []
    for line in expected:
        if line == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(r"[^\n]*?".join(re.escape(piece) for piece in line.split("...")) + r"\n")
    return re.compile("".join(parts))


def output_matches(expected: tuple[str, ...], output: str) -> bool:
    """Whether ``output`` (trailing blanks per line ignored) is what ``expected`` shows."""
    normalized = "".join(line.rstrip() + "\n" for line in output.splitlines())
    return output_pattern(expected).fullmatch(normalized) is not None
