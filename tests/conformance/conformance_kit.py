"""Helpers of the conformance suite: the target, daemons on private runtime dirs, raw I/O."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

TIMEOUT = 10.0


class Target:
    """How to start the daemon under test and run its CLI."""

    def __init__(self, tool: str, daemon: Sequence[str], cli: Sequence[str]) -> None:
        self.tool = tool
        self.daemon = list(daemon)
        self.cli = list(cli)


class Daemon:
    """One daemon process on a private runtime directory."""

    def __init__(self, target: Target, root: Path) -> None:
        self.target = target
        self.root = root
        self.runtime = root / "run"
        self.env = {
            **os.environ,
            "XDG_RUNTIME_DIR": str(self.runtime),
            "XDG_CONFIG_HOME": str(root / "config"),
            "HOME": str(root / "home"),
        }
        self.env.pop(target.tool.upper().replace("-", "_") + "_SOCKET", None)
        self.socket = str(self.runtime / "venom" / f"{target.tool}.sock")
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, *extra: str, wait: bool = True) -> subprocess.Popen[bytes]:
        self.runtime.mkdir(mode=0o700, parents=True, exist_ok=True)
        proc = subprocess.Popen(
            [*self.target.daemon, *extra],
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        if wait:
            self.proc = proc
            self.wait_ready()
        return proc

    def wait_ready(self) -> None:
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            if self.proc is not None and self.proc.poll() is not None:
                err = self.proc.stderr.read().decode() if self.proc.stderr else ""
                raise RuntimeError(f"daemon exited with {self.proc.returncode}: {err}")
            try:
                with socket.socket(socket.AF_UNIX) as s:
                    s.connect(self.socket)
                return
            except OSError:
                time.sleep(0.02)
        raise TimeoutError("daemon did not start listening")

    def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.proc is None:
            return 0
        proc, self.proc = self.proc, None
        if proc.poll() is None:
            proc.send_signal(sig)
        try:
            return proc.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise

    def cli(
        self, *args: str, env: dict[str, str] | None = None, timeout: float = TIMEOUT
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*self.target.cli, *args],
            env={**self.env, **(env or {})},
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )

    def connect(self) -> Conn:
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(TIMEOUT)
        s.connect(self.socket)
        return Conn(s)


class Conn:
    """A client socket with a line buffer, so no reply that arrived early is ever dropped."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buf = b""

    def __enter__(self) -> Conn:
        return self

    def __exit__(self, *exc: object) -> None:
        self.sock.close()

    def sendall(self, data: bytes) -> None:
        self.sock.sendall(data)

    def send_lines(self, *lines: bytes) -> None:
        self.sock.sendall(b"".join(line + b"\n" for line in lines))

    def lines(self, n: int, timeout: float = TIMEOUT) -> list[bytes]:
        """Exactly ``n`` lines (fewer only if the peer closes)."""
        self.sock.settimeout(timeout)
        while self.buf.count(b"\n") < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                break
            self.buf += chunk
        out: list[bytes] = []
        while len(out) < n and (i := self.buf.find(b"\n")) >= 0:
            out.append(self.buf[:i])
            self.buf = self.buf[i + 1 :]
        return out

    def json_lines(self, n: int) -> list[Any]:
        return [json.loads(line) for line in self.lines(n)]

    def read(self, n: int, timeout: float = TIMEOUT) -> bytes:
        """Exactly ``n`` raw bytes (fewer only if the peer closes)."""
        self.sock.settimeout(timeout)
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                break
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def until_closed(self, timeout: float = TIMEOUT) -> bytes:
        self.sock.settimeout(timeout)
        while chunk := self.sock.recv(65536):
            self.buf += chunk
        out, self.buf = self.buf, b""
        return out


def exchange(d: Daemon, *lines: bytes, expect: int | None = None) -> list[bytes]:
    """Send NDJSON lines on a new connection; return the first ``expect`` reply lines."""
    with d.connect() as c:
        c.send_lines(*lines)
        return c.lines(len(lines) if expect is None else expect)
