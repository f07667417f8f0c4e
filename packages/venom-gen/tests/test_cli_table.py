"""The generated CLI's argv grammar and output, as one table of argv -> stdout, stderr, exit.

Runs in-process with a fake daemon (see conftest.py). ``E(code, data)`` stands for one
``{"error": {...}}`` line whose code and data must match exactly (the message is free text,
except where the RFC fixes it). ``M`` means stderr holds a ``venom-echo: ...`` message.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from test_cli_kit import fake_daemon, run_cli

__all__ = ("fake_daemon", "run_cli")  # fixtures, re-exported for pytest

M, NONE = "message", ""


@dataclass(frozen=True)
class E:
    """An expected ``{"error": ...}`` line (after any item lines)."""

    code: str
    data: dict[str, Any] | None = None
    before: str = ""  # exact stdout preceding the error line (stream items)


def _usage(arg: str) -> E:
    return E("invalid_params.usage", {"arg": arg})


def _p(code: str, param: str) -> E:
    return E(f"invalid_params.{code}", {"param": param})


RFC_MISSING = (
    '{"error":{"code":"invalid_params.missing","message":"missing required param \'text\'",'
    '"data":{"param":"text"}}}\n'
)
HOSTILE = "\x1b]0;t\x07\u202e"  # a title change, a bell, a right-to-left override
SKILL = "---\nname: venom-echo\n---\n# Skill\n"
ITEMS3 = '{"i":0}\n{"i":1}\n{"i":2}\n'
TABLE3 = "i\n0\n1\n2\n"  # the same stream as human text: a table of one column

CASES: list[tuple[list[str], str | E, str, int]] = [
    # RFC-0004 §1's examples and option spellings
    (["echo", "--text", "hi"], "text: hi\n", NONE, 0),
    (["echo", "--text", "hi", "--style", "upper", "--json"], '{"text":"HI"}\n', NONE, 0),
    (["echo", "--json"], RFC_MISSING, NONE, 2),
    # Controls are escaped in human text (D-S61); JSON escapes C0 only, as it always did.
    (["echo", "--text", HOSTILE], "text: \\x1b]0;t\\x07\\u202e\n", NONE, 0),
    (["echo", "--text", HOSTILE, "--json"], '{"text":"\\u001b]0;t\\u0007\u202e"}\n', NONE, 0),
    (["echo"], "", M, 2),
    (["echo", "--text=hi"], "text: hi\n", NONE, 0),
    (["echo", "--style", "upper", "--text", "hi"], "text: HI\n", NONE, 0),
    (["--json", "echo", "--text", "hi"], '{"text":"hi"}\n', NONE, 0),
    (["--socket", "/tmp/x.sock", "echo", "--text", "hi"], "text: hi\n", NONE, 0),
    (["echo", "--socket=/tmp/x.sock", "--text", "hi"], "text: hi\n", NONE, 0),
    (["echo", "--text=-v"], "text: -v\n", NONE, 0),
    (["echo", "--text=--json"], "text: --json\n", NONE, 0),
    (["echo", "--text", "null"], "text: null\n", NONE, 0),
    (["echo", "--text", ""], 'text: ""\n', NONE, 0),
    (["echo", "--text", "h\u00e9llo \u2603"], "text: h\u00e9llo \u2603\n", NONE, 0),
    (["echo", "--text", "a=b"], "text: a=b\n", NONE, 0),
    (["echo", "--text", "hi", "--"], "text: hi\n", NONE, 0),
    # command tokens: spaced, dotted, hyphenated, prefix verbs, options between commands
    (["config", "get", "--key", "a"], "value: a-value\n", NONE, 0),
    (["config.get", "--key", "a"], "value: a-value\n", NONE, 0),
    (["config", "--key", "a", "get"], "value: a-value\n", NONE, 0),
    (["config", "--json", "get", "--key", "a"], '{"value":"a-value"}\n', NONE, 0),
    (["pane", "set-title", "--title", "t"], "", NONE, 0),
    (["pane.set_title", "--title", "t"], "", NONE, 0),
    (["set-title", "--title", "t"], "", NONE, 0),
    (["set_title", "--title", "t"], "", NONE, 0),
    (["skill"], SKILL, NONE, 0),
    (["skill", "--json"], json.dumps({"content": SKILL}, separators=(",", ":")) + "\n", NONE, 0),
    (["skill", "install"], "path: /p/user\n", NONE, 0),
    (["skill", "install", "--target", "proj"], "path: /p/proj\n", NONE, 0),
    (["skill.install", "--target=proj"], "path: /p/proj\n", NONE, 0),
    (["skill", "--target", "x", "install"], "path: /p/x\n", NONE, 0),
    (["ping"], "", NONE, 0),
    (["pane", "set_title", "--title", "t"], _usage("set_title"), M, 2),
    (["pane", "set-title", "x", "--title", "t"], _usage("x"), M, 2),
    (["config.get.x"], _usage("config.get.x"), M, 2),
    (["config", "config.get"], _usage("config.get"), M, 2),
    (["hello"], _usage("hello"), M, 2),
    (["cancel", "--id", "1"], _usage("cancel"), M, 2),
    ([], E("invalid_params.usage", {"command": ""}), M, 2),
    (["--json"], E("invalid_params.usage", {"command": ""}), NONE, 2),
    (["nope"], _usage("nope"), M, 2),
    (["-"], _usage("-"), M, 2),
    (["config"], E("invalid_params.usage", {"command": "config"}), M, 2),
    (["config", "nope", "--json"], _usage("nope"), NONE, 2),
    (["echo", "extra", "--text", "hi"], _usage("extra"), M, 2),
    # option grammar errors
    (["echo", "--text", "hi", "--", "--style", "upper"], _usage("--style"), M, 2),
    (["echo", "--text", "-v"], _usage("--text"), M, 2),
    (["echo", "--text"], _usage("--text"), M, 2),
    (["echo", "-t", "hi"], _usage("-t"), M, 2),
    (["echo", "--text", "a", "--text", "b"], _usage("--text"), M, 2),
    (["echo", "--text=a", "--text=a", "--json"], _usage("--text=a"), NONE, 2),
    (["echo", "--text", "hi", "--json", "--json"], _usage("--json"), NONE, 2),
    (["echo", "--text", "hi", "--json=true"], _usage("--json=true"), M, 2),
    (["echo", "--text", "hi", "--socket"], _usage("--socket"), M, 2),
    (["echo", "--text", "hi", "--socket="], _usage("--socket="), M, 2),
    (["--text", "hi", "echo"], _usage("--text"), M, 2),
    (["echo", "--bogus", "x", "--text", "hi"], _p("unknown", "bogus"), M, 2),
    (["echo", "--timeout", "5", "--text", "hi", "--json"], _p("unknown", "timeout"), NONE, 2),
    (["kinds", "--max_count", "3"], _p("unknown", "max_count"), M, 2),
    (["echo", "--text", "\udcff"], _p("type", "text"), M, 2),
    # every kind
    (["kinds", "--s", "x", "--flag=true", "--flag=false"], _usage("--flag=false"), M, 2),
    (["kinds", "--flag=true"], "", NONE, 0),
    (["kinds", "--flag"], _usage("--flag"), M, 2),
    (["kinds", "--flag", "true"], _usage("--flag"), M, 2),
    (["kinds", "--flag=yes"], _p("type", "flag"), M, 2),
    (["kinds", "--flag=null"], _p("type", "flag"), M, 2),
    (["kinds", "--int=-5", "--max-count", "0"], "", NONE, 0),
    (["kinds", "--int", "007"], "", NONE, 0),
    (["kinds", "--int", "1.5"], _p("type", "int"), M, 2),
    (["kinds", "--int", "+5"], _p("type", "int"), M, 2),
    (["kinds", "--int", "1e3"], _p("type", "int"), M, 2),
    (["kinds", "--int", "null"], _p("type", "int"), M, 2),
    (["kinds", "--int=-11"], _p("range", "int"), M, 2),
    (["kinds", "--int", "1001"], _p("range", "int"), M, 2),
    (["kinds", "--int", "9007199254740992"], _p("range", "int"), M, 2),
    (["kinds", "--int", "9" * 5000], _p("range", "int"), M, 2),
    (["kinds", "--num", "1.5e3"], "", NONE, 0),
    (["kinds", "--num=-0.5"], "", NONE, 0),
    (["kinds", "--num", "7"], "", NONE, 0),
    (["kinds", "--num", "1."], _p("type", "num"), M, 2),
    (["kinds", "--num", ".5"], _p("type", "num"), M, 2),
    (["kinds", "--num", "inf"], _p("type", "num"), M, 2),
    (["kinds", "--num", "nan"], _p("type", "num"), M, 2),
    (["kinds", "--num", "0x10"], _p("type", "num"), M, 2),
    (["kinds", "--num", "1e999"], _p("range", "num"), M, 2),
    (["kinds", "--num=-2"], _p("range", "num"), M, 2),
    (["kinds", "--nothing", "null"], "", NONE, 0),
    (["kinds", "--nothing", "x"], _p("type", "nothing"), M, 2),
    (["kinds", "--list", "[1, 2]"], "", NONE, 0),
    (["kinds", "--list", "[1,"], _p("type", "list"), M, 2),
    (["kinds", "--list", "[NaN]"], _p("type", "list"), M, 2),
    (["kinds", "--list", '["\\ud800"]'], _p("type", "list"), M, 2),
    (["kinds", "--list", '{"a":1}'], _p("type", "list"), M, 2),
    (["kinds", "--list", '[1,"x"]'], _p("type", "list.1"), M, 2),
    (["kinds", "--list", "null"], _p("type", "list"), M, 2),
    (["kinds", "--obj", '{"x":1}'], "", NONE, 0),
    (["kinds", "--obj", '{"x":1,"z":2}'], _p("unknown", "obj.z"), M, 2),
    (["kinds", "--obj", "{}", "--json"], _p("missing", "obj.x"), NONE, 2),
    (["echo", "--style", "loud", "--text", "hi"], _p("enum", "style"), M, 2),
    # streaming (RFC-0002 §7.3): items as NDJSON, final ok suppressed but validated
    (["count", "--n", "3"], TABLE3, NONE, 0),
    (["count", "--n", "3", "--json"], ITEMS3, NONE, 0),
    (["count", "--n", "0"], "", NONE, 0),
    (["count", "--n", "100001"], _p("range", "n"), M, 2),
    (["count", "--n", "99"], "i\n0\n", M, 5),
    (["count", "--n", "99", "--json"], E("conflict.count_busy", None, '{"i":0}\n'), NONE, 5),
    (
        ["count", "--n", "98", "--json"],
        E("internal.result", {"path": "i", "reason": "type"}, '{"i":0}\n'),
        NONE,
        11,
    ),
    (["count", "--n", "97"], "i\n0\n", M, 11),
    (["count", "--n", "96", "--json"], E("cancelled", None, '{"i":0}\n'), NONE, 8),
    # exit policy and daemon errors
    (["run", "--code", "3"], "status: 3\n", NONE, 3),
    (["job", "--json"], '{"line":"x"}\n', NONE, 4),
    (["run", "--code", "0", "--json"], '{"status":0}\n', NONE, 0),
    (["run", "--code", "300"], "", M, 11),
    (["config", "get", "--key", "nope", "--json"], E("not_found.key", {"key": "nope"}), NONE, 3),
    (["config", "get", "--key", "nope"], "", M, 3),
    # local verbs without an implementation; bad params on local verbs
    (["mcp", "--json"], E("unsupported.verb", {"verb": "mcp"}), NONE, 10),
    (["serve", "--foreground"], _usage("--foreground"), M, 2),
    # help errors: command tokens are still checked
    (["nope", "--help"], _usage("nope"), M, 2),
    (["echo", "--help=x", "--text", "hi"], _usage("--help=x"), M, 2),
]


def _ids(case: tuple[list[str], Any, str, int]) -> str:
    return " ".join(case[0])[:60] or "<empty>"


@pytest.mark.parametrize(("argv", "stdout", "stderr", "code"), CASES, ids=[_ids(c) for c in CASES])
def test_cli_table(
    run_cli: Callable[..., Any], argv: list[str], stdout: str | E, stderr: str, code: int
) -> None:
    """RFC-0004 §4 argv mapping and RFC-0002 §7.2/§7.3 output and exit codes."""
    res = run_cli(*argv)
    assert res.code == code, (res.stdout, res.stderr)
    if stderr == NONE:
        assert res.stderr == ""
    else:
        assert res.stderr.startswith("venom-echo: "), res.stderr
        assert res.stderr.endswith("\n")
    if isinstance(stdout, str):
        assert res.stdout == stdout
    elif stderr == NONE:
        assert res.stdout.startswith(stdout.before)
        line = res.stdout[len(stdout.before) :]
        assert line.endswith("\n")
        assert line.count("\n") == 1
        err = json.loads(line)["error"]
        assert set(err) <= {"code", "message", "data"}
        assert err["code"] == stdout.code
        assert isinstance(err["message"], str)
        assert err.get("data") == stdout.data
    else:
        assert res.stdout == stdout.before


def test_cli_table_size() -> None:
    """The table stays broad: the brief asks for at least 60 cases."""
    assert len(CASES) >= 60
