"""systemd socket activation and sd_notify, for real: Debian's ``systemd-socket-activate``
binds the socket and starts the real ``venom-echo serve`` on the first connection; a datagram
socket the test binds stands in for ``NOTIFY_SOCKET`` (rfcs/0002 D-W40..D-W42).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from integration_kit import TIMEOUT, TOOL, venom_echo_command
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from venom_gen.testing import PrivateDirs

ACTIVATE = shutil.which("systemd-socket-activate")
pytestmark = pytest.mark.skipif(ACTIVATE is None, reason="systemd-socket-activate not installed")


class Activated:
    """``systemd-socket-activate -l SOCKET venom-echo serve`` on a private runtime directory."""

    def __init__(
        self,
        root: Path,
        *,
        notify: str | None = None,
        listen: str | None = None,
        journal: bool = False,
    ) -> None:
        self.root = root
        runtime = root / "run"
        (runtime / "venom").mkdir(mode=0o700, parents=True)
        runtime.chmod(0o700)
        self.socket = str(runtime / "venom" / f"{TOOL}.sock")
        self.listen = listen or self.socket
        # Like systemd, systemd-socket-activate gives the daemon only the variables named.
        passed = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "XDG_RUNTIME_DIR": str(runtime),
            "XDG_CONFIG_HOME": str(root / "config"),
            "HOME": str(root / "home"),
        }
        if notify is not None:
            passed["NOTIFY_SOCKET"] = notify
        self.err = root / "serve.err"
        self.err.touch()
        if journal:  # stderr is the file: as systemd names the journal stream it passes
            st = self.err.stat()
            passed["JOURNAL_STREAM"] = f"{st.st_dev}:{st.st_ino}"
        self.env = {**os.environ, **passed}
        for name in ("VENOM_ECHO_SOCKET", "VENOM_ECHO_CONFIG", "JOURNAL_STREAM"):
            self.env.pop(name, None)
        assert ACTIVATE is not None
        setenv = [f"--setenv={name}={value}" for name, value in passed.items()]
        with self.err.open("ab") as log:
            self.proc = subprocess.Popen(
                [ACTIVATE, "-l", self.listen, *setenv, venom_echo_command(), "serve"],
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=log,
            )
        deadline = time.monotonic() + TIMEOUT
        while not os.path.exists(self.listen):
            assert time.monotonic() < deadline, "systemd-socket-activate did not bind"
            time.sleep(0.01)

    def cli(self, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [venom_echo_command(), *args],
            env={**self.env, **env},
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            stdin=subprocess.DEVNULL,
            check=False,
        )

    def log(self) -> str:
        return self.err.read_text(errors="replace")

    def wait(self) -> int:
        return self.proc.wait(TIMEOUT)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(TIMEOUT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(TIMEOUT)


@contextlib.contextmanager
def activated(**kwargs: Any) -> Iterator[Activated]:
    dirs = PrivateDirs("va")  # the test kit's run/, config/ and home/, as systemd would pass
    daemon = None
    try:
        daemon = Activated(dirs.root, **kwargs)
        yield daemon
    finally:
        if daemon is not None:
            daemon.close()
        dirs.remove()


@contextlib.contextmanager
def notify_listener(address: str | bytes) -> Iterator[socket.socket]:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.settimeout(TIMEOUT)
    try:
        sock.bind(address)
        yield sock
    finally:
        sock.close()


def messages(sock: socket.socket, until: str) -> list[str]:
    """Notification datagrams, each split into its assignments, until one carries ``until``."""
    seen: list[str] = []
    while until not in seen:
        seen.extend(sock.recv(4096).decode().split("\n"))
    return seen


@pytest.mark.covers("cli", "echo")
def test_first_call_starts_the_daemon_and_notify_reports_ready_and_stopping() -> None:
    notify_path = tempfile.mktemp(prefix="vn", dir="/tmp")
    with notify_listener(notify_path) as notify, activated(notify=notify_path) as daemon:
        os.chmod(daemon.socket, 0o600)  # what SocketMode=0600 does in the .socket unit
        # No daemon runs yet: the connection itself starts it, and the call is answered.
        assert daemon.proc.poll() is None
        result = daemon.cli("echo", "--text", "first call", "--json")
        assert (result.returncode, result.stdout) == (0, '{"text":"first call"}\n'), (
            result,
            daemon.log(),
        )
        ready = messages(notify, "READY=1")
        assert any(m.startswith("STATUS=serving on " + daemon.socket) for m in ready), ready
        assert f"listening on {daemon.socket}" in daemon.log()
        # The lock of RFC-0002 2.5 is held by the activated daemon as by any other.
        lock = Path(daemon.socket).with_suffix(".lock")
        with lock.open("rb") as held, pytest.raises(BlockingIOError):
            fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        daemon.proc.send_signal(signal.SIGTERM)
        assert "STOPPING=1" in messages(notify, "STOPPING=1")
        assert daemon.wait() == 0
        # The manager owns the socket: it stays for the next activation; the token goes.
        assert os.path.exists(daemon.socket)
        assert not Path(daemon.socket).with_suffix(".token").exists()
    os.unlink(notify_path)


def test_abstract_notify_socket() -> None:
    name = f"venom-test-notify-{os.getpid()}"
    with notify_listener(b"\0" + name.encode()) as notify, activated(notify="@" + name) as daemon:
        os.chmod(daemon.socket, 0o600)
        assert daemon.cli("echo", "--text", "x").returncode == 0
        assert "READY=1" in messages(notify, "READY=1")


def test_a_passed_socket_with_a_wide_mode_is_refused() -> None:
    with activated() as daemon:  # systemd-socket-activate binds with mode 0666 & ~umask
        mode = os.stat(daemon.socket).st_mode & 0o777
        assert mode != 0o600
        assert daemon.cli("echo", "--text", "x").returncode != 0
        assert daemon.wait() == 4  # denied.insecure_path
        log = daemon.log()
        assert "denied.insecure_path" in log, log
        assert "SocketMode=0600" in log, log
        assert "Traceback" not in log


def test_a_passed_socket_at_another_path_is_refused() -> None:
    elsewhere = PrivateDirs("vo")  # private, as a client wants
    other = str(elsewhere.runtime / "other.sock")
    try:
        with activated(listen=other) as daemon:
            os.chmod(other, 0o600)
            assert daemon.cli("echo", "--text", "x", VENOM_ECHO_SOCKET=other).returncode != 0
            assert daemon.wait() == 1  # failed.activation
            log = daemon.log()
            assert "failed.activation" in log, log
            assert "ListenStream=" in log, log
    finally:
        elsewhere.remove()


def test_the_lock_still_applies_to_an_activated_daemon() -> None:
    with activated() as daemon:
        os.chmod(daemon.socket, 0o600)
        lock = Path(daemon.socket).with_suffix(".lock")
        with lock.open("wb") as held:
            fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
            assert daemon.cli("echo", "--text", "x").returncode != 0
            assert daemon.wait() == 5  # conflict.already_running
        assert "conflict.already_running" in daemon.log()


def test_under_the_journal_log_lines_carry_priorities_not_timestamps() -> None:
    with activated(journal=True) as daemon:
        os.chmod(daemon.socket, 0o600)
        assert daemon.cli("echo", "--text", "x").returncode == 0
        daemon.proc.send_signal(signal.SIGTERM)
        assert daemon.wait() == 0
        ours = [line for line in daemon.log().splitlines() if "venom-echo:" in line]
        assert ours[0].startswith(f"<6>venom-echo: listening on {daemon.socket}"), ours
        assert ours[-1] == "<6>venom-echo: stopped", ours


def test_without_the_journal_log_lines_keep_their_timestamps() -> None:
    with activated() as daemon:
        os.chmod(daemon.socket, 0o600)
        assert daemon.cli("echo", "--text", "x").returncode == 0
        line = next(x for x in daemon.log().splitlines() if "listening on" in x)
        assert line[:4].isdigit(), line
        assert " INFO venom-echo: " in line, line


@pytest.mark.covers("cli", "shutdown")
def test_an_owner_only_first_call_starts_the_daemon_and_succeeds() -> None:
    """The token is written by the daemon this very call starts: the CLI finds it after hello
    and calls as the owner (rfcs/0001 §12)."""
    with activated() as daemon:
        os.chmod(daemon.socket, 0o600)
        assert not Path(daemon.socket).with_suffix(".token").exists()
        done = daemon.cli("shutdown")
        assert done.returncode == 0, (done.stderr, daemon.log())
        assert daemon.wait() == 0


async def _mcp_first_call(params: StdioServerParameters) -> Any:
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        return await session.call_tool("shutdown", {})


@pytest.mark.covers("mcp", "shutdown")
def test_an_mcp_first_call_that_starts_the_daemon_holds_the_owners_grants() -> None:
    with activated() as daemon:
        os.chmod(daemon.socket, 0o600)
        params = StdioServerParameters(command=venom_echo_command(), args=["mcp"], env=daemon.env)
        result = anyio.run(_mcp_first_call, params)
        assert not result.is_error, (result.content, daemon.log())
        assert daemon.wait() == 0
