"""fish completion (RFC-0004 §6), exercised in real fish through `complete -C`."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from venom_gen.build.completions import render_fish
from venom_gen.build.completions.fish import fish_quote
from venom_schema.model import Model

pytestmark = pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed")

FIXTURES = Path(__file__).parent / "fixtures"


def _complete(script: str, lines: list[str], tmp_path: Path) -> list[list[str]]:
    path = tmp_path / "completion.fish"
    path.write_text(script, encoding="utf-8")
    driver = [f"source {fish_quote(str(path))}"]
    for line in lines:
        driver.append(f"complete -C {fish_quote(line)}; printf '\\1\\n'")
    proc = subprocess.run(
        ["fish", "--no-config", "-c", "\n".join(driver)],
        capture_output=True,
        timeout=30,
        check=True,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert proc.stderr == b""
    chunks = proc.stdout.decode("utf-8").split("\1\n")[:-1]
    return [chunk.splitlines() for chunk in chunks]


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
    ("venom-echo config.get --", ["--help", "--json", "--key", "--socket"]),
    ("venom-echo config get --k", ["--key"]),
    ("venom-echo echo --style ", ["plain", "upper"]),
    ("venom-echo echo --style=", ["--style=plain", "--style=upper"]),
    ("venom-echo echo --style=u", ["--style=upper"]),
    ("venom-echo config set --dry-run=", ["--dry-run=false", "--dry-run=true"]),
    ("venom-echo config set --d", ["--dry-run="]),
    ("venom-echo echo --text hi --style=plain --", ["--help", "--json", "--socket"]),
    ("venom-echo --json echo --", ["--help", "--socket", "--style", "--text"]),
    ("venom-echo echo -- --", []),
    ("venom-echo echo --text ", []),
    ("venom-echo echo --text --", ["--help", "--json", "--socket", "--style"]),
    ("venom-echo config set --dry-run ", []),
    ("venom-echo skill install --target claude --", ["--force=", "--help", "--json", "--socket"]),
    ("venom-echo skill ", ["install"]),
    ("venom-echo skill install --f", ["--force="]),
    ("venom-echo skill.install --target c", ["claude", "codex"]),
    ("venom-echo hel", []),
]


def test_completion_table(echo_model: Model, tmp_path: Path) -> None:
    """RFC-0004 §6: commands, dotted aliases, enums, booleans, globals, used flags, `--`."""
    got = _complete(render_fish(echo_model), [line for line, _ in CASES], tmp_path)
    for (line, expected), candidates in zip(CASES, got, strict=True):
        assert sorted(candidates) == sorted(expected), line


def test_socket_is_the_only_file_completion(echo_model: Model, tmp_path: Path) -> None:
    """RFC-0004 §6: files only for --socket, never for plain string options."""
    (tmp_path / "daemon.sock").write_text("")
    got = _complete(
        render_fish(echo_model),
        ["venom-echo --socket dae", "venom-echo echo --socket=dae", "venom-echo echo --text dae"],
        tmp_path,
    )
    assert got == [["daemon.sock"], ["--socket=daemon.sock"], []]


def test_hostile_choices_offered_verbatim(hostile_model: Model, tmp_path: Path) -> None:
    """User strings never run; choices come back exactly (fish hides `.dot` as hidden)."""
    marker = Path("/tmp/venom-pwned")
    existed = marker.exists()
    got = _complete(
        render_fish(hostile_model),
        ["hostile-tool pane set-title --mode ", "hostile-tool pane set-title --mode ."],
        tmp_path,
    )
    choices = hostile_model["verbs"][1]["params"][1]["type"]["choices"]
    assert sorted(got[0]) == sorted(c for c in choices if not c.startswith("."))
    assert got[1] == [".dot"]
    assert existed or not marker.exists()


def test_script_is_deterministic(hostile_model: Model) -> None:
    """Same model, same script."""
    assert render_fish(hostile_model) == render_fish(json.loads(json.dumps(hostile_model)))
