"""RFC-0004 §§1, 4, 6: the generated CLI, as a user runs it."""

from __future__ import annotations

import json

import pytest

from venom_mcp.conformance._kit import Daemon, mask_messages

USAGE = 2

pytestmark = pytest.mark.uses_verbs("echo")


@pytest.mark.rfc("RFC-0004 §1")
def test_worked_example_outputs(daemon: Daemon) -> None:
    """RFC-0004 §1: the three example invocations print exactly what the RFC shows."""
    r = daemon.cli("echo", "--text", "hi")
    assert (r.returncode, r.stdout) == (0, '{"text":"hi"}\n')
    r = daemon.cli("echo", "--text", "hi", "--style", "upper", "--json")
    assert (r.returncode, r.stdout) == (0, '{"text":"HI"}\n')
    r = daemon.cli("echo", "--json")
    assert r.returncode == 2
    assert mask_messages(r.stdout) == mask_messages(
        '{"error":{"code":"invalid_params.missing","message":"missing required param '
        '\'text\'","data":{"param":"text"}}}\n'
    )


@pytest.mark.rfc("RFC-0004 §4")
def test_dotted_spelling_and_subcommands_reach_one_verb(daemon: Daemon) -> None:
    """RFC-0004 §4: `echo repeat` and `echo.repeat` both work; underscores become hyphens."""
    a = daemon.cli("echo", "repeat", "--text", "x", "--count", "1", "--interval-ms", "0")
    b = daemon.cli("echo.repeat", "--text", "x", "--count=1", "--interval-ms=0")
    assert a.returncode == b.returncode == 0
    assert a.stdout == b.stdout == '{"index":0,"text":"x"}\n'


@pytest.mark.rfc("RFC-0004 §4")
def test_prefix_verb_runs_without_child_token(daemon: Daemon) -> None:
    """RFC-0004 §4: `echo` is a prefix of `echo.repeat`; without a child token it runs itself."""
    r = daemon.cli("echo", "--text", "repeat")
    assert (r.returncode, r.stdout) == (0, '{"text":"repeat"}\n')


@pytest.mark.rfc("RFC-0004 §4")
def test_options_may_precede_and_follow(daemon: Daemon) -> None:
    """RFC-0004 §4: global options may precede the command; options follow any command token."""
    r = daemon.cli("--json", "echo", "--style=upper", "--text", "a")
    assert (r.returncode, r.stdout) == (0, '{"text":"A"}\n')


@pytest.mark.rfc("RFC-0004 §4")
def test_values_starting_with_dash_need_equals(daemon: Daemon) -> None:
    """RFC-0004 §4: values starting with - MUST use =."""
    assert daemon.cli("echo", "--text=-x").stdout == '{"text":"-x"}\n'
    r = daemon.cli("echo", "--text", "-x", "--json")
    assert r.returncode == USAGE
    assert "error" in json.loads(r.stdout)


@pytest.mark.rfc("RFC-0004 §4")
@pytest.mark.parametrize(
    "argv",
    [
        ["echo", "--text", "a", "--text", "b"],  # repeated flag
        ["echo", "--text", "a", "--", "x"],  # token after --
        ["echo", "--nope", "1"],  # unknown flag
        ["no-such-command"],
        ["echo", "types", "--flag"],  # booleans need =true/=false
        ["echo", "types", "--flag", "true"],
        ["echo", "types", "--count", "1.5"],  # integers are decimal digits
        ["echo", "types", "--count", "11"],  # out of range
        ["echo", "types", "--ratio", "nan"],  # non-finite
        ["echo", "types", "--tags", "[1,"],  # malformed JSON
    ],
)
def test_usage_errors_exit_2_with_json_wrapper(daemon: Daemon, argv: list[str]) -> None:
    """RFC-0004 §4: unknown commands/flags and malformed values exit 2; --json gets a wrapper."""
    r = daemon.cli("--json", *argv)
    assert r.returncode == USAGE, r
    assert set(json.loads(r.stdout)) == {"error"}
    human = daemon.cli(*argv)
    assert human.returncode == USAGE
    assert human.stdout == ""
    assert human.stderr.strip()


@pytest.mark.rfc("RFC-0004 §4")
def test_booleans_arrays_objects_and_nested_defaults(daemon: Daemon) -> None:
    """RFC-0004 §3/§4: explicit booleans, JSON arrays/objects, recursive defaults."""
    r = daemon.cli(
        "echo", "types", "--flag=true", "--tags", "[1,2]", "--nested", '{"level":2}', "--json"
    )
    assert r.returncode == 0
    assert json.loads(r.stdout) == {
        "count": 1, "ratio": 0.5, "flag": True, "tags": [1, 2],
        "nested": {"name": "anon", "level": 2}, "mode": None,
    }  # fmt: skip


@pytest.mark.rfc("RFC-0004 §4")
def test_streaming_json_prints_items_and_suppresses_final_ok(daemon: Daemon) -> None:
    """RFC-0004 §4: streaming --json emits items as NDJSON and no final ok."""
    r = daemon.cli("echo", "repeat", "--text", "z", "--count", "3", "--json")
    assert r.returncode == 0
    assert [json.loads(x) for x in r.stdout.splitlines()] == [
        {"index": i, "text": "z"} for i in range(3)
    ]


@pytest.mark.rfc("RFC-0004 §3")
@pytest.mark.parametrize("status", [0, 3, 255])
def test_exit_policy_passes_the_status_through(daemon: Daemon, status: int) -> None:
    """RFC-0004 §3: exit = result/status passes the result field through as the exit status."""
    r = daemon.cli("echo", "exit", "--status", str(status))
    assert r.returncode == status
    assert json.loads(r.stdout) == {"status": status}


@pytest.mark.rfc("RFC-0004 §4")
def test_help_and_help_json(daemon: Daemon) -> None:
    """RFC-0004 §4: --help prints generated help; with --json it is {"help": "..."}."""
    r = daemon.cli("echo", "--help")
    assert r.returncode == 0
    assert "--text" in r.stdout
    assert "--style" in r.stdout
    j = daemon.cli("echo", "--help", "--json")
    assert j.returncode == 0
    assert json.loads(j.stdout)["help"].strip() == r.stdout.strip()


@pytest.mark.rfc("RFC-0004 §6")
def test_skill_prints_content_and_json_wraps_it(daemon: Daemon) -> None:
    """RFC-0004 §6: skill prints SKILL.md; skill --json returns {"content": ...}."""
    human = daemon.cli("skill")
    j = daemon.cli("skill", "--json")
    assert human.returncode == j.returncode == 0
    content = json.loads(j.stdout)["content"]
    assert human.stdout == content if content.endswith("\n") else content + "\n"
    assert content.startswith("---\nname: venom-echo\n")


@pytest.mark.rfc("RFC-0004 §7")
def test_doctor_reports_schema_agreement(daemon: Daemon) -> None:
    """RFC-0004 §7: the CLI compares the advertised digest with its own through doctor."""
    r = daemon.cli("doctor", "--json")
    assert r.returncode == 0, r.stdout
    checks = {c["name"]: c for c in json.loads(r.stdout)["checks"]}
    assert checks["schema"]["status"] == "ok"
    assert checks["daemon"]["status"] == "ok"
