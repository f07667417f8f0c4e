"""zsh completion (RFC-0004 §6), exercised in a real interactive zsh on a pty with compinit.

A `compadd` wrapper records the matches zsh accepted (`compadd -O`), and a ZLE widget
bound to ^T writes the buffer after TAB, so each case checks both the offered matches and
what completion inserted.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from venom_gen.build.completions import render_zsh
from venom_schema.model import Model

pytestmark = pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed")

FIXTURES = Path(__file__).parent / "fixtures"


class _Zsh:
    """An interactive `zsh -f` on a pty with compinit, the scripts sourced and probes set."""

    def __init__(self, workdir: Path, scripts: list[Path]) -> None:
        self.out, self.matches = workdir / "out", workdir / "matches"
        master, slave = os.openpty()
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(workdir),
            "TERM": "dumb",
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
        }
        self.proc = subprocess.Popen(
            ["zsh", "-f", "-i"],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            cwd=workdir,
            start_new_session=True,
        )
        os.close(slave)
        self.master, self.seen = master, b""
        sources = "".join(f"source {s}\n" for s in scripts)
        self._type(
            "setopt no_beep\nautoload -U compinit && compinit -u -D\n"
            + sources
            + f'compadd() {{ local -a m; builtin compadd -O m "$@"; (( $#m )) && '
            f'print -rl -- "${{m[@]}}" >> {self.matches}; builtin compadd "$@"; }}\n'
            f'_dump() {{ print -r -- "$BUFFER" > {self.out}; print DONE >> {self.out}; '
            "BUFFER=; }\nzle -N _dump; bindkey '^T' _dump\n"
            f"print READY > {self.out}\n"
        )
        self._wait()

    def _type(self, text: str) -> None:
        os.write(self.master, text.encode("utf-8"))

    def _wait(self, timeout: float = 10.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            while select.select([self.master], [], [], 0.02)[0]:
                try:
                    self.seen += os.read(self.master, 65536)
                except OSError:
                    break
            if self.out.exists():
                text = self.out.read_text("utf-8")
                if text.endswith(("DONE\n", "READY\n")):
                    self.out.unlink()
                    return text
        raise AssertionError(f"zsh did not answer; terminal: {self.seen[-1500:]!r}")

    def complete(self, line: str) -> tuple[list[str], str]:
        """Type `line`, TAB, then dump: (matches offered, buffer after completion)."""
        self.matches.write_text("")
        self._type(line + "\t\x14")
        buffer = self._wait().removesuffix("DONE\n").removesuffix("\n")
        return self.matches.read_text("utf-8").splitlines(), buffer

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=5)
        os.close(self.master)


@pytest.fixture
def zsh_shell(tmp_path: Path, echo_model: Model, hostile_model: Model) -> Iterator[_Zsh]:
    paths = []
    for name, model in (("echo", echo_model), ("hostile", hostile_model)):
        path = tmp_path / f"_{name}"
        path.write_text(render_zsh(model), encoding="utf-8")
        paths.append(path)
    shell = _Zsh(tmp_path, paths)
    yield shell
    shell.close()


CASES: list[tuple[str, list[str], str]] = [
    (
        "venom-echo ",
        [
            "config",
            "config.get",
            "config.set",
            "echo",
            "events",
            "mcp",
            "ping",
            "serve",
            "skill",
            "skill.install",
        ],
        "venom-echo ",
    ),
    ("venom-echo co", ["config", "config.get", "config.set"], "venom-echo config"),
    ("venom-echo config ", ["get", "set"], "venom-echo config "),
    (
        "venom-echo config.get --",
        ["--key", "--json", "--socket", "--help"],
        "venom-echo config.get --",
    ),
    ("venom-echo config get --k", ["--key"], "venom-echo config get --key "),
    ("venom-echo echo --style ", ["plain", "upper"], "venom-echo echo --style "),
    ("venom-echo echo --style=", ["plain", "upper"], "venom-echo echo --style="),
    ("venom-echo echo --style=u", ["upper"], "venom-echo echo --style=upper "),
    ("venom-echo config set --dry-run=", ["true", "false"], "venom-echo config set --dry-run="),
    ("venom-echo config set --d", ["--dry-run="], "venom-echo config set --dry-run="),
    (
        "venom-echo echo --text hi --style=plain --",
        ["--json", "--socket", "--help"],
        "venom-echo echo --text hi --style=plain --",
    ),
    (
        "venom-echo --json echo --",
        ["--text", "--style", "--socket", "--help"],
        "venom-echo --json echo --",
    ),
    ("venom-echo echo -- --", [], "venom-echo echo -- --"),
    ("venom-echo echo --text ", [], "venom-echo echo --text "),
    ("venom-echo echo --text --s", ["--style", "--socket"], "venom-echo echo --text --s"),
    ("venom-echo config set --dry-run ", [], "venom-echo config set --dry-run "),
    (
        "venom-echo skill install --target claude --f",
        ["--force="],
        "venom-echo skill install --target claude --force=",
    ),
    ("venom-echo skill ", ["install"], "venom-echo skill install "),
    ("venom-echo skill install --f", ["--force="], "venom-echo skill install --force="),
    (
        "venom-echo skill.install --target c",
        ["claude", "codex"],
        "venom-echo skill.install --target c",
    ),
    ("venom-echo hel", [], "venom-echo hel"),
]


def test_completion_table(zsh_shell: _Zsh) -> None:
    """RFC-0004 §6: commands, dotted aliases, enums, booleans, globals, used flags, `--`."""
    for line, matches, buffer in CASES:
        assert zsh_shell.complete(line) == (matches, buffer), line


def test_hostile_choices_inserted_quoted(zsh_shell: _Zsh, hostile_model: Model) -> None:
    """User strings never run; a choice with specials is inserted with zsh quoting."""
    choices = hostile_model["verbs"][1]["params"][1]["type"]["choices"]
    matches, _ = zsh_shell.complete("hostile-tool pane set-title --mode ")
    assert matches == choices
    assert zsh_shell.complete("hostile-tool pane.set_title --mode=x") == (
        ["x|y"],
        "hostile-tool pane.set_title --mode=x\\|y ",
    )
    assert "command not found" not in zsh_shell.seen.decode("utf-8", "replace")


def test_script_loads_without_compinit_errors(tmp_path: Path, hostile_model: Model) -> None:
    """Sourcing after compinit prints nothing and registers the function."""
    path = tmp_path / "_hostile"
    path.write_text(render_zsh(hostile_model), encoding="utf-8")
    proc = subprocess.run(
        [
            "zsh",
            "-f",
            "-c",
            f"autoload -U compinit && compinit -u -D && source {path} && "
            "print -r -- ${_comps[hostile-tool]}",
        ],
        capture_output=True,
        timeout=30,
        check=True,
        cwd=tmp_path,
        env={"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path)},
    )
    assert proc.stderr == b""
    assert proc.stdout == b"_hostile_tool\n"
    assert render_zsh(hostile_model) == render_zsh(json.loads(json.dumps(hostile_model)))


def test_socket_is_the_only_file_completion(zsh_shell: _Zsh, tmp_path: Path) -> None:
    """RFC-0004 §6: files only for --socket, never for plain string options."""
    (tmp_path / "daemon.sock").write_text("")
    # _files may offer the same file from more than one compadd call.
    matches, buffer = zsh_shell.complete("venom-echo --socket dae")
    assert (set(matches), buffer) == ({"daemon.sock"}, "venom-echo --socket daemon.sock ")
    matches, buffer = zsh_shell.complete("venom-echo echo --socket=dae")
    assert (set(matches), buffer) == ({"daemon.sock"}, "venom-echo echo --socket=daemon.sock ")
    assert zsh_shell.complete("venom-echo echo --text dae") == ([], "venom-echo echo --text dae")
