"""Helpers of the conformance suite: the target, daemons on private runtime dirs, raw I/O."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

TIMEOUT = 10.0
NOT_APPLICABLE = "not applicable: "


def not_applicable(reason: str) -> None:
    """End a check the target gives no ground for; the summary counts it, with the reason."""
    pytest.skip(NOT_APPLICABLE + reason)


class StartError(Exception):
    """The daemon under test did not start (it exited, or never listened)."""


class Target:
    """How to start the daemon under test and run its CLI."""

    def __init__(
        self,
        tool: str,
        daemon: Sequence[str],
        cli: Sequence[str],
        auth: dict[str, Any] | None = None,
        *,
        guessed: bool = False,
    ) -> None:
        self.tool = tool
        self.guessed = guessed  # derived from a program name, so the daemon's socket may correct it
        self.daemon = list(daemon)
        self.cli = list(cli)
        self.auth = auth

    @property
    def socket_env(self) -> str:
        return self.tool.upper().replace("-", "_") + "_SOCKET"


class Resources:
    """Every process and directory the suite starts, so each is gone when the run ends."""

    def __init__(self) -> None:
        self.procs: list[subprocess.Popen[bytes]] = []
        self.dirs: list[Path] = []

    def mkdtemp(self, prefix: str) -> Path:
        # Short, under /tmp: a socket path must fit sun_path (RFC-0002 §2.3).
        path = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
        self.dirs.append(path)
        return path

    def release(self, path: Path) -> None:
        shutil.rmtree(path, ignore_errors=True)
        if path in self.dirs:
            self.dirs.remove(path)

    def popen(self, argv: Sequence[str], **kwargs: Any) -> subprocess.Popen[bytes]:
        proc: subprocess.Popen[bytes] = subprocess.Popen(list(argv), **kwargs)
        self.procs.append(proc)
        return proc

    def cleanup(self) -> None:
        while self.procs:
            reap(self.procs.pop())
        while self.dirs:
            shutil.rmtree(self.dirs.pop(), ignore_errors=True)


#: The one tracker of this run (conftest cleans it at session end and at exit).
RESOURCES = Resources()


def reap(proc: subprocess.Popen[bytes], sig: int = signal.SIGTERM) -> int:
    """Stop ``proc`` (``sig``, then SIGKILL after TIMEOUT) and close its pipes."""
    try:
        if proc.poll() is None:
            proc.send_signal(sig)
        try:
            return proc.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            return proc.wait()
    finally:
        for pipe in (proc.stdout, proc.stderr, proc.stdin):
            if pipe is not None:
                pipe.close()


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
            "XDG_DATA_HOME": str(root / "data"),
            "XDG_STATE_HOME": str(root / "state"),
            "HOME": str(root / "home"),
        }
        self.env.pop(target.socket_env, None)
        self.socket = str(self.runtime / "venom" / f"{target.tool}.sock")
        self.proc: subprocess.Popen[bytes] | None = None
        self.procs: list[subprocess.Popen[bytes]] = []

    def start(
        self, *extra: str, wait: bool = True, env: dict[str, str] | None = None
    ) -> subprocess.Popen[bytes]:
        """Run the daemon; ``wait`` makes it *the* daemon and waits until it listens."""
        self.runtime.mkdir(mode=0o700, parents=True, exist_ok=True)
        proc = RESOURCES.popen(
            [*self.target.daemon, *extra],
            env={**self.env, **(env or {})},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.procs.append(proc)
        if wait:
            self.proc = proc
            self.wait_ready()
        return proc

    def wait_ready(self, path: str | None = None) -> None:
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            if self.proc is not None and self.proc.poll() is not None:
                err = self.proc.stderr.read().decode(errors="replace") if self.proc.stderr else ""
                raise StartError(f"the daemon exited with status {self.proc.returncode}: {err}")
            if path is None and self.target.guessed:
                self._adopt_socket()
            try:
                with socket.socket(socket.AF_UNIX) as s:
                    s.connect(path or self.socket)
                return
            except OSError:
                time.sleep(0.02)
        raise StartError(f"the daemon did not listen on {path or self.socket} within {TIMEOUT}s")

    def _adopt_socket(self) -> None:
        """A guessed tool name is corrected by the one socket the daemon created (RFC-0002 §2.3
        names it after the tool)."""
        found = sorted((self.runtime / "venom").glob("*.sock"))
        if len(found) == 1 and str(found[0]) != self.socket:
            self.target.tool = found[0].name.removesuffix(".sock")
            self.target.guessed = False
            self.socket = str(found[0])

    def stop(self, sig: int = signal.SIGTERM) -> int:
        """Stop the daemon (``sig``) and every other process this object started."""
        status = 0
        proc, self.proc = self.proc, None
        if proc is not None:
            status = reap(proc, sig)
        for other in self.procs:
            reap(other)
        self.procs.clear()
        return status

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

    def owner_hello(self, rid: Any = 0, **params: Any) -> bytes:
        """A hello presenting the caller's credentials: ``--auth``, else the owner token file
        rfcs/0005 puts beside the socket (a daemon without one treats the suite as unknown)."""
        auth = self.target.auth
        if auth is None:
            try:
                token = Path(self.socket.removesuffix(".sock") + ".token").read_text().strip()
            except OSError:
                token = ""
            auth = {"token": token} if token else None
        return hello_line(rid, **params, **({} if auth is None else {"auth": auth}))

    def connect(self, path: str | None = None) -> Conn:
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(TIMEOUT)
        s.connect(path or self.socket)
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

    def send_json(self, *messages: Any) -> None:
        self.send_lines(*(json.dumps(m, separators=(",", ":")).encode() for m in messages))

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

    def until_id(self, rid: Any, timeout: float = TIMEOUT) -> list[Any]:
        """Every message up to and including the first final reply (ok or error) for ``rid``."""
        out: list[Any] = []
        while True:
            got = self.lines(1, timeout)
            assert got, f"connection closed before the final reply for {rid!r}: {out!r}"
            msg = json.loads(got[0])
            out.append(msg)
            if msg.get("id") == rid and ("ok" in msg or "error" in msg):
                return out

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


_MESSAGE = re.compile(rb'"message":"(?:[^"\\]|\\.)*"')


def mask_messages(data: bytes | str) -> bytes:
    """``data`` with every error message's text replaced: RFC-0002 §7.1 makes the text no
    contract, so traces are compared byte for byte around it."""
    raw = data.encode() if isinstance(data, str) else data
    return _MESSAGE.sub(b'"message":"~"', raw)


def request_line(rid: Any, verb: str, params: dict[str, Any]) -> bytes:
    return json.dumps({"id": rid, "verb": verb, "params": params}, separators=(",", ":")).encode()


def hello_line(rid: Any = 0, **params: Any) -> bytes:
    return request_line(rid, "hello", {"proto": [1], **params})


def call(d: Daemon, verb: str, params: dict[str, Any] | None = None, rid: Any = 1) -> Any:
    """One request on a new connection (implicit hello); the reply object."""
    with d.connect() as c:
        c.send_json({"id": rid, "verb": verb, **({} if params is None else {"params": params})})
        return c.until_id(rid)[-1]
