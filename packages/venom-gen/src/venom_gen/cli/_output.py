"""Printing results, stream items, errors and help (RFC-0002 §7.3, RFC-0004 §4).

``--json`` prints results and stream items as compact JSON, one value per line, UTF-8, on
stdout, and an error as the ``{"error":{...}}`` wrapper on stdout with nothing on stderr.
Human mode prints text derived from the verb's descriptors (`venom_gen.cli.human`, rfcs/0004
D-S60 to D-S64) and an error as ``<tool>: <message>`` on stderr; the shared ``skill`` verb
prints only the SKILL.md content (RFC-0004 §6). Everything human mode prints that came from a
daemon or a file is escaped for the terminal first (`venom_gen.cli.terminal`); the renderer
and the escaping load only when human text is printed, so ``--json`` loads neither.

Text that is not valid UTF-8 (argv and environment bytes arrive as surrogate escapes) is printed
through `printable`: a byte that is not UTF-8 is shown as ``\\xff``. A stdout that cannot be
written (closed, full, an I/O error; a closed pipe is the caller's ``BrokenPipeError``) raises
`OutputLost`; a stderr that is closed or fails is skipped, since nothing is left to report on.
"""

from __future__ import annotations

import os

from venom_proto import VenomError
from venom_proto.stdjson import std_dumps

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would cost every call ~3 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import IO, Any, TextIO

    from venom_schema.model import Verb

    from .human import ItemPrinter

__all__ = ("ClosedStdout", "Output", "OutputLost", "printable", "silence_stdout")


def printable(text: str) -> str:
    """``text`` as valid UTF-8 text: surrogate-escaped bytes that are not UTF-8 become ``\\xNN``,
    any other lone surrogate ``\\uNNNN``. Cheap for the usual ASCII text."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a surrogate that no byte was escaped to
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _printable_value(value: Any) -> Any:
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {printable(str(k)): _printable_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_printable_value(v) for v in value]
    return value


class OutputLost(Exception):
    """Raised by `Output` when stdout cannot be written; ``str()`` says why."""


class ClosedStdout:
    """The stdout of a process started with fd 1 closed (``>&-``): every write fails."""

    def write(self, data: bytes) -> int:
        raise OSError(9, "stdout is closed")  # EBADF

    def flush(self) -> None:
        return None


class Output:
    """Writes one invocation's output in human or ``--json`` mode."""

    __slots__ = ("_items", "environ", "json", "stderr", "stdout", "tool")

    def __init__(
        self,
        tool: str,
        *,
        json: bool,
        stdout: IO[bytes] | ClosedStdout,
        stderr: TextIO | None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.tool = tool
        self.json = json
        self.stdout = stdout
        self.stderr = stderr
        #: Where ``NO_COLOR`` and ``CLICOLOR_FORCE`` are read (default ``os.environ``).
        self.environ = os.environ if environ is None else environ
        self._items: ItemPrinter | None = None

    def _colour(self, stream: object) -> bool:
        from .terminal import colour_wanted

        return colour_wanted(stream, self.environ)

    def _write(self, data: bytes) -> None:
        try:
            self.stdout.write(data)
            self.stdout.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputLost(exc.strerror or str(exc)) from None

    def value(self, value: Any) -> None:
        """One compact JSON line; flushed at once so stream consumers see items live."""
        self._write(std_dumps(value) + b"\n")

    def text(self, text: str) -> None:
        """Plain text on stdout, newline-terminated."""
        if not text.endswith("\n"):
            text += "\n"
        self._write(text.encode("utf-8", "surrogateescape"))

    def note(self, text: str) -> None:
        """One line on stderr, if there is a stderr that takes it."""
        if self.stderr is None:
            return
        line = printable(text) + "\n"
        try:
            try:
                self.stderr.write(line)
            except UnicodeEncodeError:  # a stderr whose encoding lacks a character
                encoding = getattr(self.stderr, "encoding", None) or "ascii"
                self.stderr.write(line.encode(encoding, "backslashreplace").decode(encoding))
            self.stderr.flush()
        except (OSError, ValueError):
            return  # stderr is gone or full: there is nowhere left to report

    def item(self, verb: Verb, value: Any) -> None:
        """A stream item: a compact JSON line, or with its descriptor's human text (a table
        row as it arrives); flushed at once either way."""
        if self.json:
            self.value(value)
            return
        printer = self._items
        if printer is None:
            from .human import ItemPrinter

            colour = self._colour(self.stdout)
            printer = self._items = ItemPrinter(verb.get("item"), self._write_text, colour=colour)
        printer.item(value)

    def result(self, verb: Verb, value: Any) -> None:
        """A final result: compact JSON, or its descriptor's human text; the shared skill
        verb's human rendering is its SKILL.md content."""
        if self.json:
            self.value(value)
            return
        if _is_skill(verb) and isinstance(value, dict):
            content = value.get("content")
            if isinstance(content, str):
                self.document(content)
                return
        from .human import render

        text = render(verb.get("result"), value, colour=self._colour(self.stdout))
        if text:
            self._write_text(text)

    def document(self, text: str) -> None:
        """A document from a daemon or a file (SKILL.md, help): its controls escaped, its
        newlines and backslashes kept."""
        from .terminal import escape_document

        self.text(escape_document(text))

    def _write_text(self, text: str) -> None:
        self._write(text.encode("utf-8", "surrogateescape"))

    def help(self, text: str) -> int:
        """Generated help: the text, or ``{"help": text}`` with ``--json``; exit 0."""
        if self.json:
            self.value({"help": text})
        else:
            self.document(text)
        return 0

    def error(self, err: VenomError, *, hint: str | None = None) -> int:
        """Report ``err`` and return its exit status (RFC-0002 §7.2)."""
        if not self.json:
            from .terminal import ERROR, escape, paint

            prefix = paint(f"{self.tool}:", ERROR, self._colour(self.stderr))
            self.note(f"{prefix} {escape(err.message)}" + (f"\n{hint}" if hint else ""))
            return err.exit_code
        wrapper = {"error": err.to_object()}
        try:
            data = std_dumps(wrapper)
        except ValueError:  # UnicodeEncodeError: text from argv or the environment
            data = std_dumps(_printable_value(wrapper))
        try:
            self._write(data + b"\n")
        except OutputLost as lost:
            self.lost(lost)
        return err.exit_code

    def lost(self, reason: OutputLost) -> None:
        """Report on stderr that stdout could not be written, and quiet stdout for the exit."""
        self.note(f"{self.tool}: cannot write to stdout: {reason}")
        if not isinstance(self.stdout, ClosedStdout):
            silence_stdout(self.stdout)


def _is_skill(verb: Verb) -> bool:
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
