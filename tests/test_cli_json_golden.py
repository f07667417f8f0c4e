"""Every CLI verb of venom-echo and venom-notes in both modes (issue 25): ``--json`` byte for
byte as before human text, human text as its rules say, the same exit codes.

Human text (rfcs/0004 D-S60..D-S64) changed what the CLI prints without ``--json``; with it
nothing may change. `tests/cli_json_golden.json` holds what each invocation below printed (exit
status, stdout, stderr) before human text existed, captured from main with
``python tests/test_cli_json_golden.py --write``; each run compares today's output with it.
Only what differs between two runs anyway is replaced, the same way on both sides: the private
directory, the interpreter's path, process ids, timestamps and token secrets.

The same invocations without ``--json``, on a fresh daemon, must exit with the same codes, and
print what `tests/cli_human_golden.json` shows (``--write-human`` rewrites it after a
deliberate change of the rules, rfcs/0004 D-S60 to D-S64): every verb's human rendering,
reviewed once.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from venom_gen.testing import DaemonProcess

GOLDEN = Path(__file__).with_name("cli_json_golden.json")
HUMAN = Path(__file__).with_name("cli_human_golden.json")

#: Every CLI verb of venom-echo, with its errors and usage errors, in an order whose state
#: changes are deterministic (``shutdown`` last).
ECHO: tuple[tuple[str, ...], ...] = (
    ("--version", "--json"),
    ("echo", "--help", "--json"),
    ("ping", "--json"),
    ("echo", "--text", "hi", "--json"),
    ("echo", "--text", "hi", "--style", "upper", "--json"),
    ("echo", "--json"),
    ("echo", "--text", "hi", "--style", "loud", "--json"),
    ("echo", "--text", "\x1b]0;title\x07\u202e", "--json"),
    ("echo", "--text", "\u6f22\u5b57 wide", "--json"),
    ("echo", "repeat", "--text", "yo", "--count", "2", "--json"),
    ("echo", "repeat", "--text", "a", "--count", "0", "--json"),
    ("echo", "exit", "--status", "0", "--json"),
    ("echo", "exit", "--status", "3", "--json"),
    ("echo", "fail", "--code", "failed.echo", "--json"),
    ("echo", "fail", "--code", "not_found.echo", "--json"),
    ("echo", "fail", "--code", "conflict.echo_busy", "--json"),
    ("echo", "fail", "--code", "timeout.echo", "--json"),
    ("echo", "types", "--json"),
    (
        "echo",
        "types",
        "--count",
        "7",
        "--ratio",
        "2.5",
        "--flag=true",
        "--tags",
        '["a","b"]',
        "--nested",
        '{"k":[1,null]}',
        "--json",
    ),
    ("events", "--json"),
    ("events", "--types", '["config.changed"]', "--json"),
    ("config", "check", "--json"),
    ("config", "get", "--json"),
    ("config", "get", "--key", "nope", "--json"),
    ("config", "schema", "--json"),
    ("config", "set", "--key", "greeting", "--value", '"hey"', "--json"),
    ("config", "reload", "--json"),
    ("doctor", "--json"),
    ("manifest", "--json"),
    ("skill", "--json"),
    ("skill", "install", "--dir", "{root}/skills", "--json"),
    ("token", "issue", "--name", "ci", "--grants", '["read"]', "--json"),
    ("token", "list", "--json"),
    ("token", "revoke", "--name", "ci", "--json"),
    ("token", "revoke", "--name", "ci", "--json"),
    ("completion", "bash", "--json"),
    ("completion", "zsh", "--json"),
    ("completion", "fish", "--json"),
    ("man", "--json"),
    ("man", "install", "--dir", "{root}/man", "--json"),
    ("mcp", "config", "--json"),
    ("service", "install", "--dir", "{root}/units", "--json"),
    ("serve", "--json"),
    ("nope", "--json"),
    ("echo", "--text", "hi", "--socket", "{root}/absent.sock", "--json"),
    ("shutdown", "--json"),
)

#: Every verb of venom-notes' own (the shared ones are venom-echo's above).
NOTES: tuple[tuple[str, ...], ...] = (
    ("note", "list", "--json"),
    ("note", "add", "--text", "first", "--tags", '["a"]', "--json"),
    ("note", "add", "--text", "second \u00e9\u6f22", "--json"),
    ("note", "add", "--text", "bell\x07 esc\x1b[2J", "--tags", '["a","b"]', "--json"),
    ("note", "get", "--id", "1", "--json"),
    ("note", "get", "--id", "99", "--json"),
    ("note", "list", "--json"),
    ("note", "list", "--tag", "a", "--limit", "1", "--json"),
    ("note", "search", "--query", "e", "--json"),
    ("note", "search", "--query", "zzz", "--json"),
    ("note", "remove", "--id", "2", "--json"),
    ("note", "remove", "--id", "2", "--json"),
    ("note", "watch", "--cursor", "0", "--limit", "3", "--json"),
    ("note", "add", "--json"),
)

_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)")
_LOG_TIME = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+")
_NUMBERS = re.compile(r'"(pid|uptime_ms|expires|created_ms|time_ms|ts)":\d+(?:\.\d+)?')
_DAEMON_PID = re.compile(r"daemon pid \d+")
_SECRET = re.compile(r'"token":"[^"]*"')
_TOKEN_ID = re.compile(r'"id":"[A-Za-z0-9_-]{6,}"')
# The same in human text: "pid: 123", a token's secret and its 12-hex-digit id.
_HUMAN_PID = re.compile(r"^(pid:\s+)\d+$", re.MULTILINE)
_HUMAN_SECRET = re.compile(r"vt1_[0-9a-f]+_[0-9a-f]+")
_HUMAN_TOKEN_ID = re.compile(r"(?<![:0-9a-f])[0-9a-f]{12}(?![0-9a-f])")


def normalize(text: str, root: str) -> str:
    """``text`` with what differs between runs anyway replaced by placeholders."""
    text = text.replace(root, "{root}").replace(sys.executable, "{python}")
    text = _LOG_TIME.sub("{log-time}", text)
    text = _TIME.sub("{time}", text)
    text = _NUMBERS.sub(lambda m: f'"{m.group(1)}":"{{n}}"', text)
    text = _DAEMON_PID.sub("daemon pid {n}", text)
    text = _SECRET.sub('"token":"{secret}"', text)
    text = _TOKEN_ID.sub('"id":"{token-id}"', text)
    text = _HUMAN_PID.sub(lambda m: m.group(1) + "{n}", text)
    text = _HUMAN_SECRET.sub("{secret}", text)
    return _HUMAN_TOKEN_ID.sub("{token-id}", text)


def _run(
    daemon: DaemonProcess, invocations: tuple[tuple[str, ...], ...], json_mode: bool
) -> Iterator[Any]:
    root = str(daemon.dirs.root)
    for args in invocations:
        argv = [a.replace("{root}", root) for a in args if json_mode or a != "--json"]
        run = daemon.cli(*argv)
        yield {
            "argv": list(args),
            "exit": run.returncode,
            "stdout": normalize(run.stdout, root),
            "stderr": normalize(run.stderr, root),
        }


def capture(*, json_mode: bool = True) -> dict[str, list[Any]]:
    """Today's output of every invocation, with ``--json`` or without, normalized."""
    out: dict[str, list[Any]] = {}
    for name, product, invocations in (
        ("venom-echo", "venom_echo.product:PRODUCT", ECHO),
        ("venom-notes", "venom_notes.product:PRODUCT", NOTES),
    ):
        with DaemonProcess(product) as daemon:
            out[name] = list(_run(daemon, invocations, json_mode))
    return out


@pytest.fixture(scope="module")
def today() -> dict[str, list[Any]]:
    return capture()


@pytest.fixture(scope="module")
def human() -> dict[str, list[Any]]:
    return capture(json_mode=False)


@pytest.mark.parametrize("tool", ["venom-echo", "venom-notes"])
def test_human_text_of_every_verb(human: dict[str, list[Any]], tool: str) -> None:
    """RFC-0002 §7.3 without --json: human text on stdout, the message on stderr, and the same
    exit code as with --json, for every invocation."""
    as_json = json.loads(GOLDEN.read_text(encoding="utf-8"))[tool]
    golden = json.loads(HUMAN.read_text(encoding="utf-8"))[tool]
    assert [r["exit"] for r in human[tool]] == [r["exit"] for r in as_json]
    for now, before, wrapped in zip(human[tool], golden, as_json, strict=True):
        assert now == before, now["argv"]
        assert "\x1b" not in now["stdout"] + now["stderr"]  # no colour off a terminal
        if wrapped["stdout"].startswith('{"error"'):  # the message on stderr, nothing on stdout
            assert now["stdout"] == ""
            assert f"{tool}: " in now["stderr"]


@pytest.mark.parametrize("tool", ["venom-echo", "venom-notes"])
def test_json_output_is_byte_for_byte_unchanged(today: dict[str, list[Any]], tool: str) -> None:
    """RFC-0002 §7.3 with --json: one JSON value per result, items as NDJSON, the error
    wrapper, and the exit code, exactly as before human text existed."""
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))[tool]
    assert [r["argv"] for r in today[tool]] == [r["argv"] for r in golden]
    for now, before in zip(today[tool], golden, strict=True):
        assert now == before, now["argv"]


if __name__ == "__main__":
    if sys.argv[1:] not in (["--write"], ["--write-human"]):
        sys.exit("usage: python tests/test_cli_json_golden.py --write | --write-human")
    as_json = sys.argv[1] == "--write"
    text = json.dumps(capture(json_mode=as_json), indent=1, ensure_ascii=False) + "\n"
    (GOLDEN if as_json else HUMAN).write_text(text, encoding="utf-8")
