"""bash completion (RFC-0004 §6), exercised in real bash: by calling the completion function
with COMP_WORDS as readline splits them, and through readline in an interactive bash on a pty."""

from __future__ import annotations

import json
import os
import select
import shlex
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from venom_gen.build.completions import render_bash
from venom_schema.model import Model

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")

FIXTURES = Path(__file__).parent / "fixtures"


def _comp_words(line: str) -> list[str]:
    """COMP_WORDS as bash builds them: `=` (in COMP_WORDBREAKS) is a word of its own."""
    words: list[str] = []
    for token in line.split(" "):
        if token.startswith("--") and "=" in token:
            flag, _, value = token.partition("=")
            words += [flag, "="] + ([value] if value else [])
        else:
            words.append(token)
    return words


def _complete(script: str, lines: list[str], tmp_path: Path) -> list[list[str]]:
    path = tmp_path / "completion.bash"
    path.write_text(script, encoding="utf-8")
    driver = [f"source {shlex.quote(str(path))}"]
    for line in lines:
        words = " ".join(shlex.quote(w) for w in _comp_words(line))
        fn = "_" + line.split(" ")[0].replace("-", "_")
        driver += [
            f"COMP_WORDS=({words}); COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 ))",
            f"COMP_LINE={shlex.quote(line)}; COMP_POINT=${{#COMP_LINE}}; COMPREPLY=()",
            f"{fn}; printf '%s\\0' \"${{COMPREPLY[@]}}\"; printf '\\1'",
        ]
    proc = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", "\n".join(driver)],
        capture_output=True,
        timeout=30,
        check=True,
        cwd=tmp_path,
    )
    assert proc.stderr == b""
    chunks = proc.stdout.decode("utf-8").split("\1")[:-1]
    return [[w for w in chunk.split("\0") if w] for chunk in chunks]


CASES: list[tuple[str, list[str]]] = [
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
    ),
    ("venom-echo co", ["config", "config.get", "config.set"]),
    ("venom-echo config ", ["get", "set"]),
    ("venom-echo config.get --", ["--key", "--json", "--socket", "--help"]),
    ("venom-echo config get --k", ["--key"]),
    ("venom-echo echo --style ", ["plain", "upper"]),
    ("venom-echo echo --style=", ["plain", "upper"]),
    ("venom-echo echo --style=u", ["upper"]),
    ("venom-echo config set --dry-run=", ["true", "false"]),
    ("venom-echo config set --d", ["--dry-run="]),
    ("venom-echo echo --text hi --style=plain --", ["--json", "--socket", "--help"]),
    ("venom-echo --json echo --", ["--text", "--style", "--socket", "--help"]),
    ("venom-echo echo -- --", []),
    ("venom-echo echo --text ", []),
    ("venom-echo echo --text --", ["--style", "--json", "--socket", "--help"]),
    ("venom-echo config set --dry-run ", []),
    ("venom-echo skill install --target claude --", ["--force=", "--json", "--socket", "--help"]),
    ("venom-echo skill ", ["install"]),
    ("venom-echo skill --", ["--json", "--socket", "--help"]),
    ("venom-echo skill install --", ["--target", "--force=", "--json", "--socket", "--help"]),
    ("venom-echo skill.install --target c", ["claude", "codex"]),
    ("venom-echo --j", ["--json"]),
    ("venom-echo hel", []),
]


def test_completion_table(echo_model: Model, tmp_path: Path) -> None:
    """RFC-0004 §6: commands, dotted aliases, enums, booleans, globals, used flags, `--`."""
    got = _complete(render_bash(echo_model), [line for line, _ in CASES], tmp_path)
    for (line, expected), replies in zip(CASES, got, strict=True):
        assert replies == expected, line


def test_socket_is_the_only_file_completion(echo_model: Model, tmp_path: Path) -> None:
    """RFC-0004 §6: files only for --socket, never for plain string options."""
    (tmp_path / "daemon.sock").write_text("")
    got = _complete(
        render_bash(echo_model),
        ["venom-echo --socket dae", "venom-echo echo --socket=dae", "venom-echo echo --text dae"],
        tmp_path,
    )
    assert got == [["daemon.sock"], ["daemon.sock"], []]


def test_hostile_choices_are_quoted(hostile_model: Model, tmp_path: Path) -> None:
    """User strings never run: the script loads cleanly; choices come back shell-quoted."""
    marker = Path("/tmp/venom-pwned")
    existed = marker.exists()
    got = _complete(
        render_bash(hostile_model),
        ["hostile-tool pane set-title --mode ", "hostile-tool pane.set_title --mode=x"],
        tmp_path,
    )
    choices = hostile_model["verbs"][1]["params"][1]["type"]["choices"]
    assert [shlex.split(reply)[0] for reply in got[0]] == choices
    assert got[1] == ["x\\|y"]
    assert existed or not marker.exists()


def test_script_is_deterministic(echo_model: Model) -> None:
    """Same model, same script."""
    assert render_bash(echo_model) == render_bash(json.loads(json.dumps(echo_model)))
    assert render_bash(echo_model).endswith("complete -F _venom_echo 'venom-echo'\n")


class _Pty:
    def __init__(self, argv: list[str], cwd: Path) -> None:
        master, slave = os.openpty()
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(cwd),
            "TERM": "dumb",
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "PS1": "$ ",
        }
        self.proc = subprocess.Popen(
            argv, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd, start_new_session=True
        )
        os.close(slave)
        self.master = master
        self.seen = b""

    def type(self, text: str) -> None:
        os.write(self.master, text.encode("utf-8"))

    def wait_file(self, path: Path, timeout: float = 10.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            while select.select([self.master], [], [], 0.02)[0]:
                try:
                    self.seen += os.read(self.master, 65536)
                except OSError:
                    break
            if path.exists() and path.read_text("utf-8").endswith("DONE\n"):
                text = path.read_text("utf-8")
                path.unlink()
                return text
        raise AssertionError(f"no result; terminal: {self.seen[-1500:]!r}")

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=5)
        os.close(self.master)


@pytest.fixture
def bash_pty(tmp_path: Path) -> Iterator[_Pty]:
    shell = _Pty(["bash", "--norc", "--noprofile", "-i"], tmp_path)
    yield shell
    shell.close()


def test_readline_completes_in_interactive_bash(
    bash_pty: _Pty, echo_model: Model, hostile_model: Model, tmp_path: Path
) -> None:
    """RFC-0004 §6 through readline: `--style=u<TAB>` (split at `=`), dotted aliases, the
    prefix verb, and a hostile choice inserted quoted."""
    out = tmp_path / "args"
    for name, model in (("echo", echo_model), ("hostile", hostile_model)):
        (tmp_path / f"{name}.bash").write_text(render_bash(model), encoding="utf-8")
    bash_pty.type(
        "bind 'set bell-style none'; source echo.bash; source hostile.bash\n"
        f"venom-echo() {{ printf '<%s>' \"$@\" > {out}; echo DONE >> {out}; }}\n"
        f"hostile-tool() {{ printf '<%s>' \"$@\" > {out}; echo DONE >> {out}; }}\n"
    )
    cases = [
        ("venom-echo echo --style=u\t\n", "<echo><--style=upper>"),
        ("venom-echo echo --sty\tup\t--text hi\n", "<echo><--style><upper><--text><hi>"),
        ("venom-echo config.g\t--k\ttheme\n", "<config.get><--key><theme>"),
        ("venom-echo skill ins\t\n", "<skill><install>"),
        ("venom-echo config set --dr\ttr\t\n", "<config><set><--dry-run=true>"),
        ("hostile-tool pane set-title --mode=x\t\n", "<pane><set-title><--mode=x|y>"),
    ]
    for keys, expected in cases:
        bash_pty.type(keys)
        assert bash_pty.wait_file(out) == expected + "DONE\n", keys
