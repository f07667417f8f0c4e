"""Hostile bytes and broken streams at the generated CLI: argv that is not UTF-8, environment
paths that are not UTF-8, a closed or full stdout and a closed stderr.

Every case is the real CLI as a subprocess (argv and environment as raw bytes), and every case
must end with the specified exit status and, under ``--json``, exactly one JSON line on stdout:
never a traceback.
"""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any

import pytest
from test_cli_kit import cli, short_dir

__all__ = ("cli", "short_dir")  # fixtures, re-exported for pytest

WAIT = 10.0
BAD = b"\xff"


@pytest.fixture
def cli_bytes(cli: list[str]) -> list[bytes]:
    return [os.fsencode(arg) for arg in cli]


def _env(**extra: bytes) -> dict[bytes, bytes]:
    env = {k: v for k, v in os.environb.items() if not k.startswith(b"VENOM_ECHO_")}
    env[b"VENOM_ECHO_SOCKET"] = b"/nonexistent/x.sock"
    env.update({k.encode(): v for k, v in extra.items()})
    return env


def _run(argv: list[bytes], **kw: Any) -> subprocess.CompletedProcess[bytes]:
    kw.setdefault("env", _env())
    kw.setdefault("capture_output", True)
    return subprocess.run(argv, timeout=WAIT, check=False, **kw)


def _one_json_line(stdout: bytes) -> dict[str, Any]:
    lines = stdout.splitlines()
    assert len(lines) == 1, stdout
    value: dict[str, Any] = json.loads(lines[0].decode("utf-8"))  # strict UTF-8
    return value


#: argv tokens holding a byte that is not UTF-8, in every position the grammar has.
NON_UTF8_ARGV = {
    "command": [BAD],
    "subcommand": [b"config", b"g" + BAD],
    "dotted command": [b"config." + BAD],
    "option name": [b"echo", b"--" + BAD],
    "inline option name": [b"echo", b"--te" + BAD + b"t=hi"],
    "short option": [b"echo", b"-" + BAD],
    "socket value": [b"ping", b"--socket", b"/tmp/" + BAD + b".sock"],
    "inline socket value": [b"ping", b"--socket=/tmp/" + BAD],
    "after --": [b"ping", b"--", BAD],
    "global option before the command": [b"--" + BAD, b"ping"],
}


@pytest.mark.parametrize("argv", NON_UTF8_ARGV.values(), ids=NON_UTF8_ARGV.keys())
def test_non_utf8_argv_is_a_usage_error(cli_bytes: list[bytes], argv: list[bytes]) -> None:
    """RFC-0004 §2/§4: argv that is not UTF-8 is a usage error (exit 2), JSON wrapper included."""
    wrapped = _run([*cli_bytes, b"--json", *argv])  # first: it is no option after "--"
    assert (wrapped.returncode, wrapped.stderr) == (2, b"")
    error = _one_json_line(wrapped.stdout)["error"]
    assert error["code"] == "invalid_params.usage"
    assert "\\xff" in error["message"]
    assert "\\xff" in error["data"]["arg"]
    human = _run([*cli_bytes, *argv])
    assert (human.returncode, human.stdout) == (2, b"")
    assert b"Traceback" not in human.stderr
    assert b"\\xff" in human.stderr
    human.stderr.decode("utf-8")  # what reaches the terminal is UTF-8 text


def test_non_utf8_param_value_is_a_type_error(cli_bytes: list[bytes]) -> None:
    """A param value that is not UTF-8 names the param (invalid_params.type, exit 2)."""
    for argv in ([b"echo", b"--text", BAD], [b"echo", b"--text=" + BAD], [b"kinds", b"--obj", BAD]):
        res = _run([*cli_bytes, *argv, b"--json"])
        assert (res.returncode, res.stderr) == (2, b"")
        error = _one_json_line(res.stdout)["error"]
        assert error["code"] == "invalid_params.type"
        assert error["data"]["param"] in ("text", "obj")


@pytest.mark.parametrize(
    "env",
    [
        {"VENOM_ECHO_SOCKET": b"/nonexistent/" + BAD + b".sock"},
        {"XDG_RUNTIME_DIR": b"/nonexistent/" + BAD, "VENOM_ECHO_SOCKET": b""},
    ],
    ids=["socket variable", "runtime directory"],
)
def test_non_utf8_environment_path_is_reported_printably(
    cli_bytes: list[bytes], env: dict[str, bytes]
) -> None:
    """A socket path from the environment may be any bytes (it is a path): the error is exit 6,
    printed as valid UTF-8 with the bad byte shown as ``\\xff``."""
    environ = _env(**env)
    if not env.get("VENOM_ECHO_SOCKET", b"x"):
        del environ[b"VENOM_ECHO_SOCKET"]
    wrapped = _run([*cli_bytes, b"ping", b"--json"], env=environ)
    assert (wrapped.returncode, wrapped.stderr) == (6, b"")
    error = _one_json_line(wrapped.stdout)["error"]
    assert error["code"] == "unavailable.not_running"
    assert "\\xff" in error["data"]["socket"]
    human = _run([*cli_bytes, b"ping"], env=environ)
    assert human.returncode == 6
    assert b"Traceback" not in human.stderr
    assert b"\\xff" in human.stderr


@pytest.mark.parametrize(
    ("argv", "code"),
    [([b"echo", b"--text", b"hi"], 6), ([b"echo"], 2), ([b"--help"], 0)],
    ids=["daemon down", "usage error", "help"],
)
@pytest.mark.parametrize("json_mode", [False, True], ids=["human", "json"])
def test_unwritable_stdout(
    cli_bytes: list[bytes], argv: list[bytes], code: int, json_mode: bool
) -> None:
    """stdout closed (``>&-``) or full (``/dev/full``): no traceback, and never exit 0 for output
    that was lost; an outcome that was already an error keeps its own status."""
    argv = [*cli_bytes, *argv, *([b"--json"] if json_mode else [])]
    lost = 1 if code == 0 else code
    closed = _run(argv, stdout=None, stderr=subprocess.PIPE, capture_output=False, close_fds=True,
                  preexec_fn=lambda: os.close(1))  # fmt: skip
    assert closed.returncode == lost
    assert b"Traceback" not in closed.stderr
    with open("/dev/full", "wb") as full:
        res = _run(argv, stdout=full, stderr=subprocess.PIPE, capture_output=False)
    assert res.returncode == lost
    assert b"Traceback" not in res.stderr
    if json_mode or code == 0:  # the lost stdout is what is reported on stderr
        assert b"cannot write" in res.stderr


@pytest.mark.parametrize(
    ("argv", "code"), [([b"echo"], 2), ([b"echo", b"--text", b"hi"], 6), ([BAD], 2)]
)
def test_closed_stderr_keeps_the_exit_status(
    cli_bytes: list[bytes], argv: list[bytes], code: int
) -> None:
    """stderr closed (``2>&-``): the error cannot be printed, its exit status still holds."""
    res = _run([*cli_bytes, *argv], stdout=subprocess.PIPE, stderr=None, capture_output=False,
               preexec_fn=lambda: os.close(2))  # fmt: skip
    assert (res.returncode, res.stdout) == (code, b"")


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("plain", "plain"),
        ("caf\u00e9", "caf\u00e9"),
        ("a\udcffb", "a\\xffb"),  # surrogate escape of byte 0xff (how argv carries it)
        ("\udcc3\udca9", "\u00e9"),  # escaped bytes that form valid UTF-8 are that text
        ("x\ud800y", "x\\ud800y"),  # a lone surrogate from elsewhere
    ],
)
def test_printable(text: str, shown: str) -> None:
    from venom_gen.cli._output import printable

    assert printable(text) == shown
    printable(text).encode("utf-8")
