"""The generated CLI, run as a subprocess against a real daemon (RFC-0004 §1, §4; RFC-0002 §7)."""

from __future__ import annotations

from typing import Any

import pytest
from integration_kit import Daemon
from integration_kit import json_line as _json
from integration_kit import ndjson as _ndjson


@pytest.mark.covers("cli", "echo")
def test_echo_plain_prints_the_rfc_example(daemon: Daemon) -> None:
    """RFC-0004 §1: `venom-echo echo --text hi` prints its result: human text (`text: hi`,
    rfcs/0004 D-S60), {"text":"hi"} with --json."""
    r = daemon.cli("echo", "--text", "hi")
    assert (r.returncode, r.stdout, r.stderr) == (0, "text: hi\n", "")
    r = daemon.cli("echo", "--text", "hi", "--json")
    assert (r.returncode, r.stdout, r.stderr) == (0, '{"text":"hi"}\n', "")


@pytest.mark.covers("cli", "echo")
def test_echo_upper_json(daemon: Daemon) -> None:
    """RFC-0004 §1: `--style upper --json` prints {"text":"HI"}."""
    r = daemon.cli("echo", "--text", "hi", "--style", "upper", "--json")
    assert (r.returncode, r.stdout) == (0, '{"text":"HI"}\n')


@pytest.mark.covers("cli", "echo")
def test_echo_missing_text_json_wrapper_exit_2(daemon: Daemon) -> None:
    """RFC-0004 §1: `echo --json` prints the invalid_params.missing wrapper and exits 2."""
    r = daemon.cli("echo", "--json")
    expected = (
        '{"error":{"code":"invalid_params.missing","message":"missing required param \'text\'",'
        '"data":{"param":"text"}}}\n'
    )
    assert (r.returncode, r.stdout) == (2, expected)


@pytest.mark.covers("cli", "echo")
def test_echo_missing_text_human_goes_to_stderr(daemon: Daemon) -> None:
    """RFC-0002 §7.3: without --json the message goes to stderr, the exit code is the same."""
    r = daemon.cli("echo")
    assert r.returncode == 2
    assert r.stdout == ""
    assert "missing required param 'text'" in r.stderr


@pytest.mark.covers("cli", "echo")
def test_echo_bad_choice_is_invalid_params_enum(daemon: Daemon) -> None:
    """RFC-0004 §3: a value outside choices is invalid_params.enum, exit 2."""
    r = daemon.cli("echo", "--text", "hi", "--style", "loud", "--json")
    assert r.returncode == 2
    assert _json(r.stdout)["error"]["code"] == "invalid_params.enum"


@pytest.mark.covers("cli", "echo.repeat")
def test_repeat_prints_items_and_suppresses_final_ok(daemon: Daemon) -> None:
    """RFC-0004 §4: streaming --json prints each item as NDJSON and not the final ok."""
    r = daemon.cli("echo", "repeat", "--text", "yo", "--count", "2", "--json")
    assert r.returncode == 0
    assert r.stdout == '{"index":0,"text":"yo"}\n{"index":1,"text":"yo"}\n'


@pytest.mark.covers("cli", "echo.repeat")
def test_repeat_dotted_name_default_count(daemon: Daemon) -> None:
    """RFC-0004 §4: the dotted wire name is one command token; count defaults to 3."""
    r = daemon.cli("echo.repeat", "--text", "a", "--json")
    assert r.returncode == 0
    assert _ndjson(r.stdout) == [{"index": i, "text": "a"} for i in range(3)]


@pytest.mark.covers("cli", "echo.repeat")
def test_repeat_count_zero_prints_nothing(daemon: Daemon) -> None:
    """RFC-0004 §4: a stream with no items prints nothing and exits 0."""
    r = daemon.cli("echo", "repeat", "--text", "a", "--count", "0", "--json")
    assert (r.returncode, r.stdout) == (0, "")


@pytest.mark.covers("cli", "echo.exit")
@pytest.mark.parametrize("status", [0, 3, 255])
def test_exit_status_passthrough(daemon: Daemon, status: int) -> None:
    """RFC-0004 §3: exit = result field `status` becomes the CLI exit status on success."""
    r = daemon.cli("echo", "exit", "--status", str(status), "--json")
    assert r.returncode == status
    assert _json(r.stdout) == {"status": status}


@pytest.mark.covers("cli", "echo.exit")
def test_exit_status_out_of_range_is_usage_exit_2(daemon: Daemon) -> None:
    """RFC-0004 §3: errors always use the RFC-0002 table, never the result status."""
    r = daemon.cli("echo.exit", "--status", "256", "--json")
    assert r.returncode == 2
    assert _json(r.stdout)["error"]["code"] == "invalid_params.range"


FAILURES: list[tuple[str, int, str, dict[str, Any]]] = [
    ("failed.echo", 1, "the echo failed on purpose", {"reason": "asked to fail"}),
    ("not_found.echo", 3, "there was nothing to echo", {"what": "text"}),
    ("conflict.echo_busy", 5, "the echo is busy", {"retry_after_ms": 100}),
    ("timeout.echo", 7, "the echo took too long", {"waited_ms": 0, "hint": None}),
]


@pytest.mark.covers("cli", "echo.fail")
@pytest.mark.parametrize(("code", "exit_", "message", "data"), FAILURES)
def test_fail_maps_class_to_exit(
    daemon: Daemon, code: str, exit_: int, message: str, data: dict[str, Any]
) -> None:
    """RFC-0002 §7.2, §7.3: the class sets the exit code; --json prints the error wrapper."""
    r = daemon.cli("echo", "fail", "--code", code, "--json")
    assert r.returncode == exit_
    assert _json(r.stdout) == {"error": {"code": code, "message": message, "data": data}}


@pytest.mark.covers("cli", "echo.fail")
def test_fail_human_prints_message_on_stderr(daemon: Daemon) -> None:
    """RFC-0002 §7.3: human mode prints the message on stderr with the same exit code."""
    r = daemon.cli("echo", "fail", "--code", "not_found.echo")
    assert (r.returncode, r.stdout) == (3, "")
    assert "there was nothing to echo" in r.stderr


@pytest.mark.covers("cli", "echo.types")
def test_types_defaults_and_nulls(daemon: Daemon) -> None:
    """RFC-0004 §2: defaults fill absent params; absent optional results come back null."""
    r = daemon.cli("echo", "types", "--json")
    assert r.returncode == 0
    assert _json(r.stdout) == {
        "count": 1,
        "ratio": 0.5,
        "flag": False,
        "tags": None,
        "nested": None,
        "mode": None,
    }


@pytest.mark.covers("cli", "echo.types")
def test_types_every_kind_and_nested_defaults(daemon: Daemon) -> None:
    """RFC-0004 §4: booleans need =, negatives need =, arrays/objects take JSON; nested defaults."""
    r = daemon.cli(
        "echo", "types", "--count=-3", "--ratio", "0.25", "--flag=true", "--tags", "[1,2]",
        "--nested", '{"level":2}', "--mode", "fast", "--json",
    )  # fmt: skip
    assert r.returncode == 0, r.stdout
    assert _json(r.stdout) == {
        "count": -3,
        "ratio": 0.25,
        "flag": True,
        "tags": [1, 2],
        "nested": {"name": "anon", "level": 2},
        "mode": "fast",
    }


@pytest.mark.covers("cli", "echo.types")
@pytest.mark.parametrize(
    ("args", "code", "param"),
    [
        (["--count", "11"], "invalid_params.range", "count"),
        (["--nested", '{"level":4}'], "invalid_params.range", "nested.level"),
        (["--nested", '{"x":1}'], "invalid_params.unknown", "nested.x"),
        (["--tags", '[1,"a"]'], "invalid_params.type", "tags.1"),
    ],
)
def test_types_invalid_values_name_the_path(
    daemon: Daemon, args: list[str], code: str, param: str
) -> None:
    """RFC-0004 §3: validation codes with data.param a dotted path, exit 2."""
    r = daemon.cli("echo", "types", *args, "--json")
    assert r.returncode == 2
    err = _json(r.stdout)["error"]
    assert (err["code"], err["data"]["param"]) == (code, param)


@pytest.mark.covers("cli", "ping")
def test_ping(daemon: Daemon) -> None:
    """RFC-0002 §4.5: ping answers {}."""
    r = daemon.cli("ping", "--json")
    assert (r.returncode, r.stdout) == (0, "{}\n")


@pytest.mark.covers("cli", "echo")
@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["echo", "--text", "hi", "--bogus", "x"], "invalid_params.unknown"),
        (["echo", "--text", "a", "--text", "b"], "invalid_params.usage"),
        (["nosuch"], "invalid_params.usage"),
    ],
)
def test_usage_errors_exit_2_with_wrapper(daemon: Daemon, args: list[str], code: str) -> None:
    """RFC-0004 §4: unknown flags, repeated flags and unknown commands exit 2; with --json
    they print the standard error wrapper on stdout."""
    r = daemon.cli(*args, "--json")
    assert r.returncode == 2
    assert _json(r.stdout)["error"]["code"] == code


@pytest.mark.covers("cli", "echo")
def test_help_json(daemon: Daemon) -> None:
    """RFC-0004 §4: help with --json returns {"help": "..."} with the generated text."""
    r = daemon.cli("echo", "--help", "--json")
    assert r.returncode == 0
    payload = _json(r.stdout)
    assert list(payload) == ["help"]
    assert "--text" in payload["help"]
    assert "Return the supplied text" in payload["help"]


@pytest.mark.covers("cli", "echo", "ping")
def test_socket_overrides(daemon: Daemon) -> None:
    """RFC-0002 §2.3, §7.3: --socket (a global option) and VENOM_ECHO_SOCKET pick the socket."""
    r = daemon.cli("--socket", daemon.socket, "--json", "echo", "--text", "g")
    assert (r.returncode, r.stdout) == (0, '{"text":"g"}\n')
    down = daemon.cli("ping", "--json", env={"VENOM_ECHO_SOCKET": "/nonexistent/x.sock"})
    assert down.returncode == 6
    assert down.stdout == (
        '{"error":{"code":"unavailable.not_running","message":"no daemon at /nonexistent/x.sock",'
        '"data":{"socket":"/nonexistent/x.sock"}}}\n'
    )
