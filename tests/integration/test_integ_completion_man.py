"""`venom-echo completion <shell>` sourced in real bash, zsh and fish; `venom-echo man` and
`man install` read by the real man (rfcs/0001 §9, §10)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from integration_kit import venom_echo_command

GENERATED = Path(__file__).parents[2] / "packages/venom-echo/src/venom_echo/generated"


def _env(home: Path) -> dict[str, str]:
    bindir = str(Path(venom_echo_command()).parent)
    return {"PATH": f"{bindir}:/usr/bin:/bin", "HOME": str(home), "LC_ALL": "C.UTF-8"}


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [venom_echo_command(), *args], capture_output=True, text=True, timeout=30, check=False,
        env=env,
    )  # fmt: skip


@pytest.mark.covers("cli", "completion.bash", "completion.zsh", "completion.fish")
@pytest.mark.parametrize(
    ("shell", "name"),
    [("bash", "venom-echo.bash"), ("zsh", "_venom-echo"), ("fish", "venom-echo.fish")],
)
def test_prints_the_generated_script(shell: str, name: str) -> None:
    done = run("completion", shell)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (GENERATED / "completions" / name).read_text("utf-8")
    assert done.stderr == ""
    wrapped = run("completion", shell, "--json")
    assert json.loads(wrapped.stdout) == {"content": done.stdout}


def test_a_shell_is_required() -> None:
    done = run("completion")
    assert done.returncode == 2
    assert "one of: bash, fish, zsh" in done.stderr
    assert run("completion", "tcsh").returncode == 2


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_bash_sources_it(tmp_path: Path) -> None:
    """The README's line, `source <(venom-echo completion bash)`, then a completion request."""
    script = "\n".join(
        [
            "source <(venom-echo completion bash)",
            "COMP_WORDS=(venom-echo completion ''); COMP_CWORD=2",
            "COMP_LINE='venom-echo completion '; COMP_POINT=${#COMP_LINE}; COMPREPLY=()",
            "_venom_echo; printf '%s\\n' \"${COMPREPLY[@]}\"",
        ]
    )
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", script], capture_output=True, text=True,
        timeout=30, env=_env(tmp_path), cwd=tmp_path, check=False,
    )  # fmt: skip
    assert done.stderr == ""
    assert sorted(done.stdout.split()) == ["bash", "fish", "zsh"]


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed")
def test_zsh_sources_it(tmp_path: Path) -> None:
    """After compinit, `source <(venom-echo completion zsh)` registers the completer."""
    script = (
        "autoload -U compinit && compinit -u -D\n"
        "source <(venom-echo completion zsh)\n"
        "print -r -- ${_comps[venom-echo]}\n"
    )
    done = subprocess.run(
        ["zsh", "-f", "-c", script], capture_output=True, text=True, timeout=30,
        env=_env(tmp_path), cwd=tmp_path, check=False,
    )  # fmt: skip
    assert done.stderr == ""
    assert done.stdout.strip() == "_venom_echo"


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed")
def test_fish_sources_it(tmp_path: Path) -> None:
    script = "venom-echo completion fish | source; complete -C 'venom-echo completion '"
    done = subprocess.run(
        ["fish", "--no-config", "-c", script], capture_output=True, text=True, timeout=30,
        env=_env(tmp_path), cwd=tmp_path, check=False,
    )  # fmt: skip
    assert done.stderr == ""
    offered = sorted(line.split("\t")[0] for line in done.stdout.splitlines())
    assert offered == ["bash", "fish", "zsh"]


@pytest.mark.covers("cli", "man")
def test_man_prints_pages() -> None:
    done = run("man")
    assert done.returncode == 0, done.stderr
    assert done.stdout == (GENERATED / "man" / "venom-echo.1").read_text("utf-8")
    page = run("man", "--page", "venom-echo-config-get", "--json")
    assert json.loads(page.stdout) == {
        "page": "venom-echo-config-get.1",
        "content": (GENERATED / "man" / "venom-echo-config-get.1").read_text("utf-8"),
    }
    for bad in ("nope", "../man/venom-echo", ".hidden"):
        missing = run("man", "--page", bad, "--json")
        assert missing.returncode == 3
        assert json.loads(missing.stdout)["error"]["code"] == "not_found.page"


@pytest.mark.covers("cli", "man.install")
def test_man_install_where_man_finds_it(tmp_path: Path) -> None:
    """Default target ~/.local/share/man/man1; idempotent; `man -w` then finds the page."""
    env = _env(tmp_path)
    first = run("man", "install", "--json", env=env)
    assert first.returncode == 0, first.stderr
    report = json.loads(first.stdout)
    target = tmp_path / ".local/share/man/man1"
    assert report["dir"] == str(target)
    pages = sorted(p.name for p in (GENERATED / "man").glob("*.1"))
    assert sorted(p.name for p in target.iterdir()) == pages
    assert report == {"dir": str(target), "pages": len(pages), "written": len(pages)}
    again = json.loads(run("man", "install", "--json", env=env).stdout)
    assert again["written"] == 0
    if shutil.which("man") is None:
        pytest.skip("man is not installed")
    found = subprocess.run(
        ["man", "-w", "venom-echo"], capture_output=True, text=True, timeout=30, check=False,
        env={**env, "MANPATH": str(target.parent)},
    )  # fmt: skip
    assert found.stdout.strip() == str(target / "venom-echo.1"), found.stderr


def test_man_install_refuses_relative_and_reports_write_errors(tmp_path: Path) -> None:
    relative = run("man", "install", "--dir", "pages", "--json")
    assert relative.returncode == 2
    assert json.loads(relative.stdout)["error"]["code"] == "invalid_params.relative_path"
    blocker = tmp_path / "file"
    blocker.write_text("x")
    blocked = run("man", "install", "--dir", str(blocker / "man1"), "--json")
    assert blocked.returncode == 1
    error = json.loads(blocked.stdout)["error"]
    assert error["code"] == "failed.write"
    assert set(error["data"]) == {"path", "reason"}
    assert not os.path.exists(blocker / "man1")


@pytest.mark.skipif(shutil.which("man") is None, reason="man is not installed")
def test_man_on_a_terminal_shows_the_formatted_page(tmp_path: Path) -> None:
    """stdout a tty: `venom-echo man` hands the page to man, which formats it (MANPAGER=cat)."""
    import pty

    env = {**_env(tmp_path), "MANPAGER": "cat", "PAGER": "cat", "MANWIDTH": "80", "TERM": "dumb"}
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [venom_echo_command(), "man"], stdout=slave, stderr=subprocess.PIPE, env=env
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    assert proc.wait(30) == 0
    shown = b"".join(chunks).decode("utf-8", "replace")
    shown = re.sub(".\x08", "", shown)  # the overstrike of bold: N^HN -> N
    assert ".TH" not in shown  # formatted, not the roff source
    assert "NAME" in shown
    assert "A toy daemon for protocol conformance" in shown
