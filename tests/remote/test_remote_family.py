"""``venom`` over ``ssh://`` through the real sshd of the remote suite (rfcs/0006)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

from integration_kit import Daemon
from remote_kit import Sshd

TIMEOUT = 30.0
VENOM = str(Path(sys.executable).with_name("venom"))


def venom(
    remote: tuple[Daemon, Sshd], *args: str, token: str | None = None
) -> subprocess.CompletedProcess[str]:
    daemon, sshd = remote
    env = {
        **daemon.env,
        **sshd.ssh_env,
        "VENOM_ECHO_TOKEN": daemon.token() if token is None else token,
        # Nothing local to fall back on: the runtime dir venom would read is empty.
        "XDG_RUNTIME_DIR": str(daemon.root / "elsewhere"),
    }
    return subprocess.run(
        [VENOM, *args], env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False
    )


def test_venom_calls_and_streams_over_ssh(remote: tuple[Daemon, Sshd]) -> None:
    daemon, sshd = remote
    url = sshd.url(daemon.socket)  # its path ends in venom-echo.sock: the remote tool
    out = venom(remote, "call", url, "echo", '{"text":"hi"}', "--json")
    assert (out.returncode, out.stdout) == (0, '{"text":"hi"}\n'), out.stderr
    streamed = venom(remote, "call", url, "echo.repeat", '{"text":"x","count":3}', "--json")
    assert streamed.returncode == 0, streamed.stderr
    assert [json.loads(line)["index"] for line in streamed.stdout.splitlines()] == [0, 1, 2]
    bad = venom(remote, "call", url, "echo", '{"txt":"hi"}', "--json")
    assert bad.returncode == 2
    assert json.loads(bad.stdout)["error"]["code"] == "invalid_params.missing"


def test_venom_describes_over_ssh_with_the_tool_named(remote: tuple[Daemon, Sshd]) -> None:
    """A URL without a path reaches the remote tool's default socket; --tool names the tool."""
    daemon, sshd = remote
    bare = f"ssh://127.0.0.1:{sshd.port}"
    out = venom(remote, "describe", bare, "echo", "--tool", "venom-echo")
    own = daemon.cli("echo", "--help")
    assert (out.returncode, out.stdout) == (0, own.stdout), out.stderr
    shown = json.loads(venom(remote, "describe", bare, "--tool", "venom-echo", "--json").stdout)
    assert shown["server"]["name"] == "venom-echo"
    unnamed = venom(remote, "describe", bare, "--json")
    assert unnamed.returncode == 2
    assert json.loads(unnamed.stdout)["error"]["code"] == "invalid_params.usage"


def test_venom_presents_the_tool_token_over_ssh(remote: tuple[Daemon, Sshd]) -> None:
    """No owner token file across ssh: <TOOL>_TOKEN is what hello.auth carries."""
    daemon, sshd = remote
    out = venom(remote, "call", sshd.url(daemon.socket), "ping", "--json", token="nope")
    assert out.returncode == 4, out.stdout + out.stderr
    assert json.loads(out.stdout)["error"]["code"] == "denied.auth"


def test_venom_ctrl_c_over_ssh_cancels_and_exits_8(remote: tuple[Daemon, Sshd]) -> None:
    """Ctrl-C during a remote stream: ssh runs in its own process group, so the cancel
    travels over the live link and venom exits 8."""
    daemon, sshd = remote
    env = {**daemon.env, **sshd.ssh_env, "VENOM_ECHO_TOKEN": daemon.token()}
    params = '{"text":"c","count":1000,"interval_ms":20}'
    proc = subprocess.Popen(
        [VENOM, "call", sshd.url(daemon.socket), "echo.repeat", params, "--json"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        assert json.loads(proc.stdout.readline())["index"] == 0
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 8, err
    assert json.loads(out.splitlines()[-1])["error"]["code"] == "cancelled"
