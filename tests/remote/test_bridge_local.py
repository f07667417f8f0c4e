"""``venom-echo bridge`` run directly: a refused hello never reaches the socket (rfcs/0006 §2.1)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest
from integration_kit import Daemon, hello_params, request, venom_echo_command
from remote_kit import Sshd

from venom_gen.testing import PrivateDirs
from venom_proto.sync_client import SyncClient

TIMEOUT = 20.0


def test_a_refused_hello_never_connects_to_the_socket() -> None:
    """The bridge answers denied.auth without opening the daemon's socket at all."""
    dirs = PrivateDirs("vb")
    path = str(dirs.runtime / "venom-echo.sock")
    listener = socket.socket(socket.AF_UNIX)
    try:
        listener.bind(path)
        listener.listen(8)
        listener.setblocking(False)
        for token in (None, "f" * 64, "vt1_" + "0" * 12 + "_" + "0" * 64):
            params: dict[str, object] = {"proto": [1], "client": {"name": "t", "version": "0"}}
            if token is not None:
                params["auth"] = {"token": token}
            hello = json.dumps({"id": 1, "verb": "hello", "params": params}).encode() + b"\n"
            env = dirs.env("venom-echo")
            out = subprocess.run(
                [venom_echo_command(), "bridge", "--socket", path],
                input=hello,
                capture_output=True,
                timeout=TIMEOUT,
                env=env,
                check=False,
            )
            assert out.returncode == 4
            assert json.loads(out.stdout)["error"]["code"] == "denied.auth"
            try:
                listener.accept()
            except BlockingIOError:
                pass
            else:
                raise AssertionError("the bridge connected to the socket before refusing")
    finally:
        listener.close()
        dirs.remove()


def test_no_hello_in_time_or_too_large_is_refused() -> None:
    """A hello larger than 64 KiB is refused with reason too_large, without a newline seen."""
    out = subprocess.run(
        [venom_echo_command(), "bridge", "--socket", "/nonexistent/x.sock"],
        input=b"{" + b" " * (70 * 1024),
        capture_output=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert out.returncode == 4
    assert json.loads(out.stdout)["error"]["data"]["reason"] == "too_large"


def _bridges(socket_path: str) -> set[int]:
    """Pids of running ``venom-echo bridge --socket SOCKET_PATH`` processes: this test's own,
    by its private socket, never another test run's on the same machine."""
    found = set()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        ours = os.fsencode(socket_path) in argv
        if ours and any(a.endswith(b"venom-echo") for a in argv[:2]) and b"bridge" in argv:
            found.add(int(pid))
    return found


def test_a_gone_client_ends_the_bridge_even_on_a_quiet_stream(
    remote: tuple[Daemon, Sshd],
) -> None:
    """The client goes away during an endless, quiet ``events`` stream: the bridge exits."""
    daemon, _ = remote
    hello = {"id": 1, "verb": "hello", "params": hello_params(token=daemon.token())}
    follow = request(2, "events", {"follow": True})
    proc = subprocess.Popen(
        [venom_echo_command(), "bridge", "--socket", daemon.socket],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=daemon.env,
    )
    try:
        assert proc.stdin is not None
        assert proc.stdout is not None
        proc.stdin.write(json.dumps(hello).encode() + b"\n" + follow + b"\n")
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["ok"]["proto"] == 1
        proc.stdin.close()  # half-close: the stream goes on
        time.sleep(0.3)
        assert proc.poll() is None
        proc.stdout.close()  # the client is gone altogether
        assert proc.wait(timeout=5) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_ssh_killed_leaves_no_bridge_behind(
    remote: tuple[Daemon, Sshd], monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGKILL to the client's ssh during a quiet stream: the remote bridge exits too."""
    daemon, sshd = remote
    monkeypatch.setenv("VENOM_SSH_COMMAND", sshd.ssh_env["VENOM_SSH_COMMAND"])
    before = _bridges(daemon.socket)
    client = SyncClient(
        sshd.url(daemon.socket), client_name="t", client_version="0", auth={"token": daemon.token()}
    )
    try:
        client.stream("events", {"follow": True})
        new = _bridges(daemon.socket) - before
        assert len(new) == 1
        ssh = client._ssh  # the test reaches in for the child's pid only
        assert ssh is not None
        os.kill(ssh.pid, signal.SIGKILL)
        deadline = time.monotonic() + 5
        while new & _bridges(daemon.socket) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not new & _bridges(daemon.socket)
    finally:
        client.close()


def test_a_silent_client_is_refused_at_the_hello_deadline() -> None:
    """No first message within the bound: denied.auth with reason timeout, exit 4."""
    script = (
        "import sys; from venom_gen.local import bridge; from venom_echo.product import PRODUCT; "
        "bridge.HELLO_TIMEOUT = 0.3; "
        "sys.exit(bridge.run_bridge(PRODUCT, ['--socket', '/nonexistent/x.sock']))"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()  # stdin stays open and silent
        assert proc.wait(timeout=TIMEOUT) == 4
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stdin is not None:
            proc.stdin.close()
    error = json.loads(line)["error"]
    assert (error["code"], error["data"]["reason"]) == ("denied.auth", "timeout")
