"""The CLI conventions users expect, on the real `venom-echo` and `venom-gen` processes.

--version (global position only), -h, "did you mean", doctor's human report, JSON flags that
explain themselves, and local help for serve and mcp (rfcs/0001 §CLI conventions).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from integration_kit import ECHO_VERSION, Daemon, load_model

from venom_proto import SyncClient
from venom_proto.model_cache import CACHE_KEY


def run(daemon: Daemon, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*daemon.command, *args], env=daemon.env, capture_output=True, text=True, timeout=30,
        check=False,
    )  # fmt: skip


def test_version_human_and_json(daemon: Daemon) -> None:
    done = run(daemon, "--version")
    assert (done.returncode, done.stdout, done.stderr) == (0, f"venom-echo {ECHO_VERSION}\n", "")
    for argv in (["--version", "--json"], ["--json", "--version"]):
        done = run(daemon, *argv)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == {
            "tool": "venom-echo",
            "version": ECHO_VERSION,
            "schema": load_model()[CACHE_KEY]["digest"],
        }
    # The digest the daemon advertises in hello (what doctor compares it with).
    with SyncClient(daemon.socket, client_name="t", client_version="0") as client:
        assert client.hello_result["schema"] == json.loads(done.stdout)["schema"]


def test_version_only_before_a_command(daemon: Daemon) -> None:
    """After a command --version is an option of that verb: echo has none, so it is unknown."""
    after = run(daemon, "echo", "--text", "hi", "--version")
    assert after.returncode == 2
    assert "unknown option --version" in after.stderr
    before = run(daemon, "--version", "echo")
    assert before.returncode == 2
    assert "--version goes alone, before any command" in before.stderr
    assert before.stdout == ""
    valued = run(daemon, "--version=1")
    assert valued.returncode == 2


def test_dash_h_is_help(daemon: Daemon) -> None:
    for path in ([], ["echo"], ["config", "get"]):
        short, long = run(daemon, *path, "-h"), run(daemon, *path, "--help")
        assert short.returncode == long.returncode == 0
        assert short.stdout == long.stdout
    assert "-h, --help" in run(daemon, "-h").stdout
    assert "--version" in run(daemon, "-h").stdout


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["ech"], "unknown command 'ech'; did you mean 'echo'?"),
        (["config", "gte"], "unknown command 'gte' for 'config'; did you mean 'get'?"),
        (["config.gett"], "unknown command 'config.gett'; did you mean 'config.get'?"),
        (["echo", "--txt", "hi"], "unknown option --txt; did you mean '--text'?"),
        (["echo", "--text", "hi", "--jsn"], "unknown option --jsn; did you mean '--json'?"),
    ],
)
def test_did_you_mean(daemon: Daemon, argv: list[str], expected: str) -> None:
    done = run(daemon, *argv)
    assert done.returncode == 2
    assert done.stderr.splitlines()[0] == f"venom-echo: {expected}"


def test_nothing_close_suggests_nothing(daemon: Daemon) -> None:
    done = run(daemon, "qqqqqq")
    assert done.returncode == 2
    assert "did you mean" not in done.stderr
    wrapped = run(daemon, "--json", "ech")
    # --json keeps the specified wrapper: code and data as before, the hint in the message.
    error = json.loads(wrapped.stdout)["error"]
    assert error["code"] == "invalid_params.usage"
    assert error["data"] == {"arg": "ech"}


def test_json_flag_explains_itself(daemon: Daemon) -> None:
    done = run(daemon, "echo", "types", "--tags", "1,2")
    assert done.returncode == 2
    first = done.stderr.splitlines()[0]
    assert first == (
        "venom-echo: --tags: takes one JSON value, an array (e.g. --tags '[1,2]'); got '1,2'"
    )
    assert "Extra data" not in done.stderr
    wrapped = json.loads(run(daemon, "--json", "echo", "types", "--tags", "1,2").stdout)
    assert wrapped["error"]["code"] == "invalid_params.type"
    assert wrapped["error"]["data"] == {"param": "tags"}
    nested = run(daemon, "echo", "types", "--nested", "name=x")
    assert "takes one JSON value, an object (e.g. --nested '{" in nested.stderr


@pytest.mark.parametrize(
    ("command", "words"),
    [
        ("serve", "in the foreground"),
        ("mcp", "MCP tools on stdin and stdout"),
        ("completion bash", "source <(venom-echo completion bash)"),
        ("man", "on a terminal it shows the page with man"),
        ("man install", "~/.local/share/man/man1"),
    ],
)
def test_local_help_describes_the_command(daemon: Daemon, command: str, words: str) -> None:
    done = run(daemon, *command.split(), "--help")
    assert done.returncode == 0
    assert "Wire name:" not in done.stdout
    assert "Grant:" not in done.stdout
    assert "Result:" not in done.stdout
    assert done.stdout.startswith(f"Usage: venom-echo {command} ")
    assert words in " ".join(done.stdout.split())


def test_doctor_human_report(idle_daemon: Daemon) -> None:
    """One line per check with status, name, message and hint; --json is the JSON report."""
    own_daemon = idle_daemon
    down = run(own_daemon, "doctor")
    assert down.returncode == 1
    lines = down.stdout.splitlines()
    report = json.loads(run(own_daemon, "doctor", "--json").stdout)
    assert len(lines) == len(report["checks"]) + 1
    for line, check in zip(lines, report["checks"], strict=False):
        status, name, rest = line.split(None, 2)
        assert (status, name) == (check["status"], check["name"])
        assert rest.startswith(check["message"])
        if "hint" in check:
            assert rest.endswith(f"; hint: {check['hint']}")
    assert lines[-1] == "venom-echo doctor: fail"
    assert down.stderr == ""
    own_daemon.start()
    up = run(own_daemon, "doctor")
    assert up.returncode == 0, up.stdout
    assert up.stdout.splitlines()[-1] == "venom-echo doctor: ok"
    assert all(line.split()[0] == "ok" for line in up.stdout.splitlines()[:-1])


def _venom_gen() -> str:
    exe = shutil.which("venom-gen", path=str(Path(sys.executable).parent))
    assert exe is not None
    return exe


def test_venom_gen_version_and_dash_h() -> None:
    from importlib.metadata import version

    done = subprocess.run([_venom_gen(), "--version"], capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout) == (0, f"venom-gen {version('venom-gen')}\n")
    done = subprocess.run(
        [_venom_gen(), "--version", "--json"], capture_output=True, text=True, check=False
    )
    assert json.loads(done.stdout) == {"tool": "venom-gen", "version": version("venom-gen")}
    short = subprocess.run(
        [_venom_gen(), "check", "-h"], capture_output=True, text=True, check=False
    )
    assert short.returncode == 0
    assert short.stdout.startswith("Usage: venom-gen check")
