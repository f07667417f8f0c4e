"""Harness of the load and fault suite: the real ``venom-echo serve`` daemon and raw clients.

``SOAK_SCALE=full`` runs every scenario at the size issue 8 names (the nox ``soak`` session);
anything else (the default, ``ci``) runs the same scenarios smaller, to fit CI. Figures measured
by the tests are collected in `FIGURES` and printed in the terminal summary.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

from venom_gen.testing import DaemonProcess, PrivateDirs

__all__ = (
    "FD_LIMIT",
    "FIGURES",
    "FULL",
    "TIMEOUT",
    "EchoDaemon",
    "LineConn",
    "hello_line",
    "raise_fd_limit",
    "request_line",
    "scale",
)

FULL = os.environ.get("SOAK_SCALE", "ci") == "full"
TIMEOUT = 30.0
FD_LIMIT = 8192
#: name -> value; printed at the end of the run (see conftest.py).
FIGURES: dict[str, Any] = {}
_BIN = Path(sys.executable).parent


def scale(ci: int, full: int) -> int:
    """The size of a scenario: ``full`` under ``SOAK_SCALE=full``, else ``ci``."""
    return full if FULL else ci


def raise_fd_limit(limit: int = FD_LIMIT) -> None:
    """Raise RLIMIT_NOFILE's soft limit to ``limit`` (capped by the hard limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = limit if hard == resource.RLIM_INFINITY else min(limit, hard)
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def request_line(id_: int | str, verb: str, params: dict[str, Any] | None = None) -> bytes:
    return json.dumps({"id": id_, "verb": verb, "params": params or {}}).encode() + b"\n"


def hello_line(*caps: str, token: str | None = None, id_: int | str = "h") -> bytes:
    params: dict[str, Any] = {"proto": [1], "client": {"name": "soak", "version": "0"}}
    params["caps"] = list(caps)
    if token is not None:
        params["auth"] = {"token": token}
    return request_line(id_, "hello", params)


class EchoDaemon:
    """One ``venom-echo serve --socket PATH`` in the test kit's `PrivateDirs` (short, 0700).

    Each start is a `DaemonProcess` of the kit on these directories (`spawn` makes one without
    waiting, so several can race on one socket); the daemon's own fd limit is set in the
    child, and the socket, lock and token sit alone in ``root`` (the runtime directory), so
    the tests can assert the exact files beside the socket.
    """

    def __init__(self, nofile: int | None = None) -> None:
        """``nofile`` sets the daemon's RLIMIT_NOFILE soft limit (default: raised to FD_LIMIT)."""
        self.nofile = nofile
        self.dirs = PrivateDirs("vk")
        self.root = self.dirs.runtime
        self.socket = str(self.root / "s.sock")
        self.lock = self.root / "s.lock"
        self.token_file = self.root / "s.token"
        # Made (or mounted over) by the tests that need it, so not the kit's precreated config/.
        self.config_home = self.root / "cfg"
        self.env = self.dirs.env("venom-echo")
        self.env["XDG_CONFIG_HOME"] = str(self.config_home)
        #: The daemon this object serves with (set by `start`, or by a test after `spawn`).
        self.proc: DaemonProcess | None = None

    @property
    def argv(self) -> list[str]:
        return [str(_BIN / "venom-echo"), "serve", "--socket", self.socket]

    def spawn(self) -> DaemonProcess:
        """Start a daemon process without waiting; it inherits the raised fd limit."""
        process = DaemonProcess(
            tool="venom-echo",
            argv=self.argv,
            socket=self.socket,
            dirs=self.dirs,
            env=self.env,
            preexec_fn=raise_fd_limit if self.nofile is None else self._set_fd_limit,
            timeout=TIMEOUT,
        )
        process.env = dict(self.env)  # with this object's XDG_CONFIG_HOME, not the kit's
        return process.spawn()

    def _set_fd_limit(self) -> None:
        _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        assert self.nofile is not None
        resource.setrlimit(resource.RLIMIT_NOFILE, (self.nofile, hard))

    def start(self) -> EchoDaemon:
        self.proc = self.spawn()
        self.wait_ready()
        return self

    def wait_ready(self) -> float:
        """Seconds until the socket accepts a connection with the token beside it; raises
        `DaemonStartError` if the daemon dies or stalls."""
        assert self.proc is not None
        start = time.monotonic()
        self.proc.wait_ready(poll=0.005)
        return time.monotonic() - start

    @property
    def token_at_connect(self) -> bool | None:
        """Whether the token file existed when the socket first accepted a connection."""
        return None if self.proc is None else self.proc.token_at_first_connect

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    @property
    def token(self) -> str:
        return self.token_file.read_text().strip()

    def status(self, field: str) -> int:
        """A ``kB`` or count field of /proc/PID/status, e.g. ``VmRSS``."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
        raise KeyError(field)

    def rss_kb(self) -> int:
        return self.status("VmRSS")

    def fd_count(self) -> int:
        return len(os.listdir(f"/proc/{self.pid}/fd"))

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def signal(self, sig: int) -> None:
        assert self.proc is not None
        self.proc.send_signal(sig)

    def wait(self, timeout: float = TIMEOUT) -> int:
        assert self.proc is not None
        return self.proc.wait(timeout)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after TIMEOUT; idempotent."""
        proc, self.proc = self.proc, None
        if proc is not None:
            proc.stop()

    def cleanup(self) -> None:
        self.stop()
        self.dirs.remove()


class LineConn:
    """An asyncio NDJSON connection: pre-encoded writes, bounded line reads."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    @classmethod
    async def open(cls, path: str, timeout: float = TIMEOUT) -> LineConn:
        reader, writer = await asyncio.wait_for(
            asyncio.open_unix_connection(path, limit=4 * 1024 * 1024), timeout
        )
        return cls(reader, writer)

    async def send(self, data: bytes) -> None:
        self.writer.write(data)
        await self.writer.drain()

    async def line(self, timeout: float = TIMEOUT) -> dict[str, Any] | None:
        """The next reply as an object, None at EOF."""
        raw = await asyncio.wait_for(self.reader.readline(), timeout)
        return json.loads(raw) if raw else None

    async def call(self, verb: str, params: dict[str, Any], id_: int | str = 1) -> Any:
        """One request and its final reply (items are skipped)."""
        await self.send(request_line(id_, verb, params))
        while True:
            reply = await self.line()
            assert reply is not None, f"EOF before the reply to {verb}"
            if reply.get("id") == id_ and "item" not in reply:
                return reply

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(OSError, TimeoutError):
            await asyncio.wait_for(self.writer.wait_closed(), 5)
