"""Helpers of the conformance suite: the target, daemons on private runtime dirs, raw I/O."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from venom_gen.testing import DaemonProcess, DaemonStartError, PrivateDirs

TIMEOUT = 10.0
NOT_APPLICABLE = "not applicable: "


def not_applicable(reason: str) -> None:
    """End a check the target gives no ground for; the summary counts it, with the reason."""
    pytest.skip(NOT_APPLICABLE + reason)


#: The daemon under test did not start (it exited, or never listened); the message has its log.
StartError = DaemonStartError


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
        self.daemons: list[DaemonProcess] = []
        self.dirs: list[PrivateDirs] = []

    def private_dirs(self, prefix: str) -> PrivateDirs:
        # The test kit's: short, so a socket path fits sun_path (RFC-0002 §2.3).
        dirs = PrivateDirs(prefix)
        self.dirs.append(dirs)
        return dirs

    def release(self, dirs: PrivateDirs) -> None:
        dirs.remove()
        if dirs in self.dirs:
            self.dirs.remove(dirs)

    def popen(self, argv: Sequence[str], **kwargs: Any) -> subprocess.Popen[bytes]:
        """A CLI process, reaped at the end of the run."""
        proc: subprocess.Popen[bytes] = subprocess.Popen(list(argv), **kwargs)
        self.procs.append(proc)
        return proc

    def cleanup(self) -> None:
        while self.daemons:
            reap(self.daemons.pop())
        while self.procs:
            proc = self.procs.pop()
            if proc.poll() is None:
                proc.kill()
            proc.wait(TIMEOUT)
            for pipe in (proc.stdout, proc.stderr, proc.stdin):
                if pipe is not None:
                    pipe.close()
        while self.dirs:
            self.dirs.pop().remove()


#: The one tracker of this run (conftest cleans it at session end and at exit).
RESOURCES = Resources()


def reap(process: DaemonProcess, sig: int = signal.SIGTERM) -> int:
    """Stop ``process`` (``sig``, then SIGKILL after TIMEOUT); its status."""
    try:
        return process.stop(sig)
    except subprocess.TimeoutExpired:
        return -signal.SIGKILL  # the kit killed and reaped it; the run goes on


class _Process(DaemonProcess):
    """One start of the daemon under test; a guessed tool name is corrected by the one socket
    the daemon creates (RFC-0002 §2.3 names it after the tool)."""

    def __init__(self, owner: Daemon, argv: Sequence[str], env: dict[str, str]) -> None:
        target = owner.target
        super().__init__(
            tool=target.tool,
            argv=argv,
            command=target.cli,
            dirs=owner.dirs,
            socket=owner.socket,
            owner_token=False,  # a target without rfcs/0005's token is still served
            timeout=TIMEOUT,
        )
        self.env = env
        self.owner = owner
        self.adopt = False

    def ready(self) -> bool:
        if self.adopt and self.owner.target.guessed:
            self.owner.adopt_socket()
            self.socket = self.owner.socket
        return super().ready()


class Daemon:
    """The daemon under test on private directories (the test kit's); each start is a
    `DaemonProcess` of the kit."""

    def __init__(self, target: Target, dirs: PrivateDirs) -> None:
        self.target = target
        self.dirs = dirs
        self.root = dirs.root
        self.runtime = dirs.runtime
        base = dict(os.environ)
        base.pop(target.socket_env, None)
        self.env = dirs.env(target.tool, base)
        self.socket = str(self.runtime / "venom" / f"{target.tool}.sock")
        self.proc: DaemonProcess | None = None
        self.procs: list[DaemonProcess] = []

    def start(
        self, *extra: str, wait: bool = True, env: dict[str, str] | None = None
    ) -> DaemonProcess:
        """Run the daemon; ``wait`` makes it *the* daemon and waits until it listens."""
        process = _Process(self, [*self.target.daemon, *extra], {**self.env, **(env or {})})
        RESOURCES.daemons.append(process)
        self.procs.append(process)
        process.spawn()
        if wait:
            self.proc = process
            self.wait_ready()
        return process

    def wait_ready(self, path: str | None = None) -> None:
        """Wait until *the* daemon listens at ``path`` (default: `socket`, corrected from a
        guessed tool name); `StartError` if it exits first or does not listen in time."""
        assert self.proc is not None
        if isinstance(self.proc, _Process):
            self.proc.adopt = path is None
        self.proc.socket = path or self.socket
        self.proc.wait_ready(poll=0.02)

    def adopt_socket(self) -> None:
        """A guessed tool name is corrected by the one socket the daemon created."""
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


#: The uid a foreign peer runs as (``nobody`` on most systems).
FOREIGN_UID = 65534

#: The foreign peer: connect (``connected``), send a ping, report what came back: the bytes,
#: or ``closed`` when the daemon closed first (EPIPE, ECONNRESET), as RFC-0002 §2.4 allows.
FOREIGN_PEER = (
    "import socket,sys\n"
    "s=socket.socket(socket.AF_UNIX);s.settimeout(5);s.connect(sys.argv[1])\n"
    "print('connected',flush=True)\n"
    "try:\n"
    ' s.sendall(b\'{"id":1,"verb":"ping"}\\n\');print(repr(s.recv(100)))\n'
    "except (BrokenPipeError,ConnectionResetError):\n print('closed')\n"
)


def foreign_runner(uid: int, interpreters: Sequence[str] | None = None) -> list[str] | None:
    """A command prefix that runs Python code as ``uid``, proven by running it; None if there
    is none (not root, no setpriv, or no interpreter that uid may execute). The interpreter
    runs isolated (``-I``): nothing of this environment (PYTHONPATH, a sitecustomize) is read.

    The candidates are resolved to real paths (a shim under /root that runs ``python3`` is not
    executable by another user), the running interpreter's first.
    """
    setpriv = shutil.which("setpriv")
    if os.getuid() != 0 or setpriv is None:
        return None
    if interpreters is None:
        interpreters = [sys.executable, *filter(None, [shutil.which("python3")])]
    for candidate in dict.fromkeys(os.path.realpath(c) for c in interpreters):
        runner = [setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", candidate, "-I"]
        try:
            probe = subprocess.run(
                [*runner, "-c", "import os,socket;print(os.getuid())"],
                capture_output=True, text=True, timeout=TIMEOUT, cwd="/",
            )  # fmt: skip
        except (OSError, subprocess.TimeoutExpired):
            continue
        if probe.returncode == 0 and probe.stdout.strip() == str(uid):
            return runner
    return None


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
