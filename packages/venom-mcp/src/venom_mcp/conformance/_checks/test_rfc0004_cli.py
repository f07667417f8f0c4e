"""RFC-0004 §§1, 3, 4, 6: the generated CLI, as a user runs it.

The worked example's checks replay the RFC's own invocations where the model declares its verbs;
every rule they show is also checked on any daemon, from its own model (the second half).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from venom_mcp.conformance._kit import Daemon, mask_messages, not_applicable, request_line
from venom_mcp.conformance._model import (
    TargetModel,
    cli_text,
    cli_words,
    finite,
    flag,
    valid_value,
)

USAGE = 2

#: The checks that replay the RFC's worked example (venom-echo's verbs) byte for byte.
echo_trace = pytest.mark.uses_verbs("echo", "echo.repeat", "echo.types", "echo.exit")


def _safe(model: TargetModel) -> list[dict[str, Any]]:
    """Daemon verbs the suite may run freely: no grant above read, no stream, no required
    param (so a call changes nothing and needs no value)."""
    return [
        v for v in model.daemon_verbs()
        if v["grant"] in ("none", "read") and not v.get("streams")
        and not any(p.get("required") for p in v["params"])
    ]  # fmt: skip


def _argv(params: dict[str, Any]) -> list[str]:
    return [f"{flag(k)}={cli_text(v)}" for k, v in params.items()]


@echo_trace
@pytest.mark.rfc("RFC-0004 §1")
def test_worked_example_outputs(daemon: Daemon) -> None:
    """RFC-0004 §1: the three example invocations print exactly what the RFC shows."""
    r = daemon.cli("echo", "--text", "hi", "--json")
    assert (r.returncode, r.stdout) == (0, '{"text":"hi"}\n')
    # Without --json the first line prints human text (rfcs/0004 D-S60, matrix S-1-1).
    assert daemon.cli("echo", "--text", "hi").stdout == "text: hi\n"
    r = daemon.cli("echo", "--text", "hi", "--style", "upper", "--json")
    assert (r.returncode, r.stdout) == (0, '{"text":"HI"}\n')
    r = daemon.cli("echo", "--json")
    assert r.returncode == 2
    assert mask_messages(r.stdout) == mask_messages(
        '{"error":{"code":"invalid_params.missing","message":"missing required param '
        '\'text\'","data":{"param":"text"}}}\n'
    )


@echo_trace
@pytest.mark.rfc("RFC-0004 §4")
def test_dotted_spelling_and_subcommands_reach_one_verb(daemon: Daemon) -> None:
    """RFC-0004 §4: `echo repeat` and `echo.repeat` both work; underscores become hyphens."""
    a = daemon.cli("echo", "repeat", "--text", "x", "--count", "1", "--interval-ms", "0", "--json")
    b = daemon.cli("echo.repeat", "--text", "x", "--count=1", "--interval-ms=0", "--json")
    assert a.returncode == b.returncode == 0
    assert a.stdout == b.stdout == '{"index":0,"text":"x"}\n'


@echo_trace
@pytest.mark.rfc("RFC-0004 §4")
def test_prefix_verb_runs_without_child_token(daemon: Daemon) -> None:
    """RFC-0004 §4: `echo` is a prefix of `echo.repeat`; without a child token it runs itself."""
    r = daemon.cli("echo", "--text", "repeat", "--json")
    assert (r.returncode, r.stdout) == (0, '{"text":"repeat"}\n')


@echo_trace
@pytest.mark.rfc("RFC-0004 §4")
def test_options_may_precede_and_follow(daemon: Daemon) -> None:
    """RFC-0004 §4: global options may precede the command; options follow any command token."""
    r = daemon.cli("--json", "echo", "--style=upper", "--text", "a")
    assert (r.returncode, r.stdout) == (0, '{"text":"A"}\n')


@echo_trace
@pytest.mark.rfc("RFC-0004 §4")
def test_values_starting_with_dash_need_equals(daemon: Daemon) -> None:
    """RFC-0004 §4: values starting with - MUST use =."""
    assert daemon.cli("echo", "--text=-x", "--json").stdout == '{"text":"-x"}\n'
    r = daemon.cli("echo", "--text", "-x", "--json")
    assert r.returncode == USAGE
    assert "error" in json.loads(r.stdout)


@echo_trace
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


@echo_trace
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


@echo_trace
@pytest.mark.rfc("RFC-0004 §4")
def test_streaming_json_prints_items_and_suppresses_final_ok(daemon: Daemon) -> None:
    """RFC-0004 §4: streaming --json emits items as NDJSON and no final ok."""
    r = daemon.cli("echo", "repeat", "--text", "z", "--count", "3", "--json")
    assert r.returncode == 0
    assert [json.loads(x) for x in r.stdout.splitlines()] == [
        {"index": i, "text": "z"} for i in range(3)
    ]


@echo_trace
@pytest.mark.rfc("RFC-0004 §3")
@pytest.mark.parametrize("status", [0, 3, 255])
def test_exit_policy_passes_the_status_through(daemon: Daemon, status: int) -> None:
    """RFC-0004 §3: exit = result/status passes the result field through as the exit status."""
    r = daemon.cli("echo", "exit", "--status", str(status), "--json")
    assert r.returncode == status
    assert json.loads(r.stdout) == {"status": status}


@echo_trace
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


@pytest.mark.bundles("agent")
@pytest.mark.rfc("RFC-0004 §6")
def test_skill_prints_content_and_json_wraps_it(daemon: Daemon) -> None:
    """RFC-0004 §6: skill prints SKILL.md; skill --json returns {"content": ...}."""
    human = daemon.cli("skill")
    j = daemon.cli("skill", "--json")
    assert human.returncode == j.returncode == 0
    content = json.loads(j.stdout)["content"]
    assert human.stdout == content if content.endswith("\n") else content + "\n"
    assert content.startswith(f"---\nname: {daemon.target.tool}\n")


@pytest.mark.bundles("agent")
@pytest.mark.rfc("RFC-0004 §7")
def test_doctor_reports_schema_agreement(daemon: Daemon) -> None:
    """RFC-0004 §7: the CLI compares the advertised digest with its own through doctor."""
    r = daemon.cli("doctor", "--json")
    assert r.returncode == 0, r.stdout
    checks = {c["name"]: c for c in json.loads(r.stdout)["checks"]}
    assert checks["schema"]["status"] == "ok"
    assert checks["daemon"]["status"] == "ok"


# --- the same rules on any daemon, from its own model -------------------------------------------


@pytest.mark.rfc("RFC-0004 §4")
def test_streaming_json_prints_exactly_the_items(daemon: Daemon, model: TargetModel) -> None:
    """RFC-0004 §4: a streaming verb under --json prints its items as NDJSON and no final ok:
    the CLI's lines are exactly the items the socket streams for the same call."""
    verb, params = finite(model)
    with daemon.connect() as c:
        c.send_lines(daemon.owner_hello(), request_line(1, verb, params))
        c.until_id(0)
        wire = c.until_id(1)
    if "error" in wire[-1]:
        not_applicable(f"the model's finite stream {verb} failed on the socket (--stream)")
    r = daemon.cli("--json", *cli_words(verb), *_argv(params))
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert [json.loads(x) for x in r.stdout.splitlines()] == [m["item"] for m in wire[:-1]]


@pytest.mark.rfc("RFC-0004 §4")
def test_spaced_and_dotted_spellings_run_one_verb(daemon: Daemon, model: TargetModel) -> None:
    """RFC-0004 §4: `a b` and `a.b` run the same verb: same output, same exit status."""
    dotted = [v for v in _safe(model) if "." in v["name"] or "_" in v["name"]]
    if not dotted:
        not_applicable("the model declares no dotted read-only verb without required params")
    wire = dotted[0]["name"]
    spaced = daemon.cli("--json", *cli_words(wire))
    joined = daemon.cli("--json", wire)
    assert spaced.returncode == joined.returncode
    assert spaced.stdout == joined.stdout
    assert spaced.stdout.strip()


@pytest.mark.rfc("RFC-0004 §4")
def test_a_prefix_verb_runs_itself_without_a_child_token(
    daemon: Daemon, model: TargetModel
) -> None:
    """RFC-0004 §4: a verb that is a prefix of another (`skill`, `skill.install`) runs itself
    when no child token follows: the same as over the socket."""
    names = {v["name"] for v in model.cli_verbs()}
    found = [v for v in _safe(model) if any(n.startswith(v["name"] + ".") for n in names)]
    if not found:
        not_applicable("the model declares no read-only verb that is a prefix of another")
    verb = found[0]["name"]
    r = daemon.cli("--json", *cli_words(verb))
    with daemon.connect() as c:
        c.send_lines(daemon.owner_hello(), request_line(1, verb, {}))
        c.until_id(0)
        wire = c.until_id(1)[-1]
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert json.loads(r.stdout) == wire["ok"]


@pytest.mark.rfc("RFC-0004 §4")
def test_global_options_may_precede_or_follow(daemon: Daemon) -> None:
    """RFC-0004 §4: a global option may come before the command or after it (ping: `{}`)."""
    for argv in (["--json", "ping"], ["ping", "--json"]):
        r = daemon.cli(*argv)
        assert (r.returncode, r.stdout) == (0, "{}\n"), argv


@pytest.mark.rfc("RFC-0004 §4")
def test_a_dash_value_needs_equals(daemon: Daemon, model: TargetModel) -> None:
    """RFC-0004 §4: a value starting with `-` must be given with `=`; `--p -x` is a usage
    error, for any string param the model declares."""
    found = [
        (v, p) for v in model.cli_verbs() for p in v["params"]
        if p["type"]["kind"] == "string" and "choices" not in p["type"]
    ]  # fmt: skip
    if not found:
        not_applicable("the model declares no free string param")
    verb, param = found[0]
    rest = _argv({p["name"]: valid_value(p["type"]) for p in verb["params"]
                  if p.get("required") and p["name"] != param["name"]})  # fmt: skip
    r = daemon.cli("--json", *cli_words(verb["name"]), *rest, flag(param["name"]), "-x")
    assert r.returncode == USAGE, (r.stdout, r.stderr)
    assert set(json.loads(r.stdout)) == {"error"}


@pytest.mark.rfc("RFC-0004 §4")
def test_booleans_need_an_explicit_value(daemon: Daemon, model: TargetModel) -> None:
    """RFC-0004 §4: a boolean flag takes `=true` or `=false`; bare, or with a spaced value, it
    is a usage error (exit 2, the --json wrapper), for any boolean param the model declares."""
    found = [(v, p) for v in model.cli_verbs() for p in v["params"]
             if p["type"]["kind"] == "boolean"]  # fmt: skip
    if not found:
        not_applicable("the model declares no boolean param")
    verb, param = found[0]
    rest = _argv({p["name"]: valid_value(p["type"]) for p in verb["params"]
                  if p.get("required") and p["name"] != param["name"]})  # fmt: skip
    for tail in ([flag(param["name"])], [flag(param["name"]), "true"]):
        r = daemon.cli("--json", *cli_words(verb["name"]), *rest, *tail)
        assert r.returncode == USAGE, (tail, r.stdout, r.stderr)
        assert set(json.loads(r.stdout)) == {"error"}


@pytest.mark.rfc("RFC-0004 §3")
def test_exit_policy_result_field_is_the_status(daemon: Daemon, model: TargetModel) -> None:
    """RFC-0004 §3: a verb whose exit is `result`/FIELD exits with that field of its result."""
    found = [v for v in _safe(model) if v["exit"]["kind"] == "result"]
    if not found:
        not_applicable("the model declares no read-only verb with a result exit policy")
    verb = found[0]
    r = daemon.cli("--json", *cli_words(verb["name"]))
    result = json.loads(r.stdout)
    assert r.returncode == result[verb["exit"]["field"]], (r.stdout, r.stderr)
