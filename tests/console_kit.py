"""Console blocks in Markdown, run and compared: the format docs/tutorial.md and README.md share.

A ``console`` block is ``$ command`` lines (a trailing ``\\`` continues one), each followed by
its expected output. Lines are compared exactly after stripping trailing blanks, except that
``...`` inside a line matches any text and a line that is only ``...`` matches any number of
lines.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path


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


#: What a shell sets by itself: never carried from one command to the next.
_SHELL_OWN = frozenset({"_", "PWD", "OLDPWD", "SHLVL"})


class ConsoleSession:
    """Runs ``console`` steps in order as one interactive shell would.

    Each command runs under ``bash -c`` in the session's directory and environment, and what
    it changes there carries over to the next command: ``cd``, ``export`` and ``source``
    (a virtual environment's ``activate``) work as written. A command must exit 0 (a doc shows
    a failure with ``|| echo "exit status $?"``) and print what the doc shows. ``command &``
    starts a daemon in the background; the next command runs once a new owner token and a
    listening socket appear in ``venom_dir`` (``$XDG_RUNTIME_DIR/venom``). ``close`` stops
    every background process group.
    """

    def __init__(
        self,
        cwd: Path,
        env: dict[str, str],
        venom_dir: Path,
        *,
        doc: str,
        timeout: float = 90.0,
        ready_timeout: float = 10.0,
    ) -> None:
        self.cwd = cwd
        self.env = env
        self.venom_dir = venom_dir
        self.doc = doc
        self.timeout = timeout
        self.ready_timeout = ready_timeout
        self.background: list[subprocess.Popen[bytes]] = []

    def _tokens(self) -> dict[Path, tuple[int, int]]:
        found = self.venom_dir.glob("*.token") if self.venom_dir.is_dir() else ()
        return {p: (p.stat().st_ino, p.stat().st_mtime_ns) for p in found}

    def _ready(self, before: dict[Path, tuple[int, int]]) -> bool:
        for token, stamp in self._tokens().items():
            if before.get(token) != stamp:
                try:
                    with socket.socket(socket.AF_UNIX) as s:
                        s.connect(str(token.with_suffix(".sock")))
                    return True
                except OSError:
                    pass
        return False

    def start(self, step: CommandStep) -> None:
        before = self._tokens()
        proc = subprocess.Popen(
            ["bash", "-c", step.command.removesuffix("&").strip()],
            cwd=self.cwd,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,  # bash's "Killed" notice after a kill -9 step
            start_new_session=True,  # its own process group, so close() reaches everything
        )
        self.background.append(proc)
        deadline = time.monotonic() + self.ready_timeout
        where = f"{self.doc} line {step.line}"
        while not self._ready(before):
            assert proc.poll() is None, f"{where}: {step.command!r} exited early"
            assert time.monotonic() < deadline, f"{where}: no daemon came up"
            time.sleep(0.02)

    def run(self, step: CommandStep) -> None:
        if step.command.endswith("&"):
            self.start(step)
            assert step.expected == (), f"{self.doc} line {step.line}: background output"
            return
        with tempfile.TemporaryDirectory(prefix="console-") as scratch:
            state = Path(scratch)
            script = (
                f"{step.command}\n__status=$?\n"
                f'env -0 > "{state}/env"; pwd > "{state}/pwd"; exit $__status\n'
            )
            done = subprocess.run(
                ["bash", "-c", script],
                cwd=self.cwd,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                timeout=self.timeout,
                check=False,
            )
            output = done.stdout.decode("utf-8", errors="replace")
            where = f"{self.doc} line {step.line}: $ {step.command}"
            assert done.returncode == 0, f"{where}\nexit status {done.returncode}\n{output}"
            pairs = (state / "env").read_bytes().decode("utf-8", errors="replace").split("\0")
            env = dict(pair.split("=", 1) for pair in pairs if "=" in pair)
            self.env = {k: v for k, v in env.items() if k not in _SHELL_OWN}
            self.cwd = Path((state / "pwd").read_text(encoding="utf-8").strip())
        shown = "\n".join(step.expected)
        report = f"{where}\n--- expected\n{shown}\n--- got\n{output}"
        assert output_matches(step.expected, output), report

    def close(self) -> None:
        for proc in self.background:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(self.ready_timeout)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(self.ready_timeout)
