"""Printing results, stream items, errors and help (RFC-0002 §7.3, RFC-0004 §4).

Both modes print results and stream items as compact JSON, one value per line, UTF-8, on
stdout. Errors differ: ``--json`` prints the ``{"error":{...}}`` wrapper on stdout and nothing
on stderr; human mode prints ``<tool>: <message>`` on stderr. The one human renderer is the
shared ``skill`` verb's, which prints only the SKILL.md content (RFC-0004 §6).
"""

from __future__ import annotations

import os

from venom_proto._core._stdjson import std_dumps
from venom_proto._core.errors import VenomError

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would cost every call ~3 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import IO, Any, TextIO

__all__ = ("Output", "silence_stdout")


class Output:
    """Writes one invocation's output in human or ``--json`` mode."""

    __slots__ = ("json", "stderr", "stdout", "tool")

    def __init__(self, tool: str, *, json: bool, stdout: IO[bytes], stderr: TextIO) -> None:
        self.tool = tool
        self.json = json
        self.stdout = stdout
        self.stderr = stderr

    def value(self, value: Any) -> None:
        """One compact JSON line; flushed at once so stream consumers see items live."""
        self.stdout.write(std_dumps(value) + b"\n")
        self.stdout.flush()

    def text(self, text: str) -> None:
        """Plain text on stdout, newline-terminated."""
        if not text.endswith("\n"):
            text += "\n"
        self.stdout.write(text.encode("utf-8", "surrogateescape"))
        self.stdout.flush()

    def result(self, verb: Mapping[str, Any], value: Any) -> None:
        """A final result: compact JSON, except the shared skill verb's human rendering."""
        if not self.json and _is_skill(verb) and isinstance(value, dict):
            content = value.get("content")
            if isinstance(content, str):
                self.text(content)
                return
        self.value(value)

    def help(self, text: str) -> int:
        """Generated help: the text, or ``{"help": text}`` with ``--json``; exit 0."""
        if self.json:
            self.value({"help": text})
        else:
            self.text(text)
        return 0

    def error(self, err: VenomError, *, hint: str | None = None) -> int:
        """Report ``err`` and return its exit status (RFC-0002 §7.2)."""
        if self.json:
            self.value({"error": err.to_object()})
        else:
            self.stderr.write(f"{self.tool}: {err.message}\n")
            if hint:
                self.stderr.write(hint + "\n")
            self.stderr.flush()
        return err.exit_code


def _is_skill(verb: Mapping[str, Any]) -> bool:
    return verb.get("name") == "skill" and verb.get("shared") == "agent"


def silence_stdout(stream: IO[bytes]) -> None:
    """Point the stream's descriptor at /dev/null after EPIPE, so the exit flush stays quiet."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)
