"""Attacks on the surfaces in front of the daemon: the MCP adapter's stdin and the generated CLI.

Real processes throughout: ``venom-echo mcp`` (against a real ``venom-echo serve``) fed hostile
stdin over a pipe, and the ``venom-echo`` CLI run with hostile argv or against a daemon that
accepts and never answers. Figures go to the run summary and docs/reliability.md.

- One stdin line of 100 MB (16 MB in CI) is refused (-32600) without being held: the adapter's
  peak RSS grows by a few MiB, not by several times the line.
- A flood of lines just over the line limit, and a flood of requests with unusable ids, are
  each answered one for one with peak RSS bounded by the stdin queue's byte bound.
- Random argv bytes never end in a traceback: every run exits with an RFC-0002 status.
- ``ping`` against a mute daemon ends within the connect bound.
"""

from __future__ import annotations

import json
import random
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from soak_kit import FIGURES, TIMEOUT, EchoDaemon, scale

from venom_gen.testing import PrivateDirs
from venom_mcp.adapter import MAX_LINE

_BIN = Path(sys.executable).parent
MIB = 1024 * 1024
SOAK = {"name": "soak", "version": "0"}
CLIENT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": SOAK}
INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": CLIENT}


def _status_kb(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


class Adapter:
    """``venom-echo mcp`` on pipes; replies are read by a thread into a list."""

    def __init__(self, daemon: EchoDaemon) -> None:
        argv = [str(_BIN / "venom-echo"), "mcp", "--socket", daemon.socket]
        self.proc = subprocess.Popen(
            argv,
            env=daemon.env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.replies: list[dict[str, Any]] = []
        self._cond = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self._cond:
                self.replies.append(json.loads(line))
                self._cond.notify_all()

    def write(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.write(json.dumps(message).encode() + b"\n")

    def wait_for(self, count: int, timeout: float = TIMEOUT) -> list[dict[str, Any]]:
        with self._cond:
            ok = self._cond.wait_for(lambda: len(self.replies) >= count, timeout)
            assert ok, f"{len(self.replies)} of {count} replies"
            return list(self.replies)

    def peak_kb(self) -> int:
        return _status_kb(self.proc.pid, "VmHWM")

    def rss_kb(self) -> int:
        return _status_kb(self.proc.pid, "VmRSS")

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        code = self.proc.wait(TIMEOUT)
        self._reader.join(TIMEOUT)
        return code


@pytest.fixture
def adapter(daemon: EchoDaemon) -> Iterator[Adapter]:
    a = Adapter(daemon)
    try:
        a.send(INITIALIZE)
        assert "result" in a.wait_for(1)[0]
        a.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        a.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": "warm"}}})  # fmt: skip
        a.wait_for(2)
        yield a
    finally:
        if a.proc.poll() is None:
            a.proc.kill()
            a.proc.wait(TIMEOUT)


def _invalid(reply: dict[str, Any]) -> bool:
    return reply.get("id") is None and reply.get("error", {}).get("code") == -32600


def test_a_huge_stdin_line_is_refused_without_being_held(adapter: Adapter) -> None:
    size = scale(16, 100) * MIB
    before = adapter.peak_kb()
    chunk = b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments"'
    chunk += b':{"text":"' + b"x" * (MIB - len(chunk))
    start = time.monotonic()
    for _ in range(size // MIB):
        adapter.write(chunk)
    adapter.write(b'"}}}\n')
    adapter.send({"jsonrpc": "2.0", "id": 3, "method": "ping"})
    replies = adapter.wait_for(4)
    took = time.monotonic() - start
    peak = adapter.peak_kb()
    assert _invalid(replies[2]), replies[2]
    assert replies[3] == {"jsonrpc": "2.0", "id": 3, "result": {}}
    growth = (peak - before) / 1024
    FIGURES[f"MCP: one {size // MIB} MB stdin line"] = (
        f"refused -32600 in {took:.2f} s; peak RSS {before / 1024:.1f} -> {peak / 1024:.1f} MiB"
        f" (+{growth:.1f} MiB)"
    )
    assert growth < 32, growth  # was +460 MiB for 100 MB: the line was parsed whole
    assert adapter.close() == 0


def test_a_flood_of_over_long_lines_is_answered_in_bounded_memory(adapter: Adapter) -> None:
    lines = scale(24, 128)
    before = adapter.peak_kb()
    line = b'{"pad":"' + b"y" * (MAX_LINE - 8) + b'"}\n'  # MAX_LINE + 2 bytes before "\n"
    start = time.monotonic()

    def flood() -> None:
        for _ in range(lines):
            adapter.write(line)

    writer = threading.Thread(target=flood)
    writer.start()
    replies = adapter.wait_for(2 + lines, timeout=TIMEOUT * 4)
    writer.join(TIMEOUT)
    took = time.monotonic() - start
    peak = adapter.peak_kb()
    assert all(_invalid(r) for r in replies[2:])
    FIGURES[f"MCP: {lines} lines of MAX_LINE+2 bytes"] = (
        f"{lines * len(line) / MIB / took:,.0f} MiB/s refused; peak RSS +"
        f"{(peak - before) / 1024:.1f} MiB"
    )
    assert (peak - before) / 1024 < 64
    assert adapter.close() == 0


def test_a_flood_of_unusable_ids_is_answered_one_for_one(adapter: Adapter) -> None:
    count = scale(2000, 50000)
    ids = ['{"a":1}', "[1]", "1.5", "true", "null", "1e3"]
    batch = b"".join(
        b'{"jsonrpc":"2.0","id":%s,"method":"ping"}\n' % ids[n % len(ids)].encode()
        for n in range(count)
    )
    before = adapter.peak_kb()
    start = time.monotonic()
    writer = threading.Thread(target=adapter.write, args=(batch,))
    writer.start()
    replies = adapter.wait_for(2 + count, timeout=TIMEOUT * 4)
    writer.join(TIMEOUT)
    took = time.monotonic() - start
    assert all(_invalid(r) for r in replies[2:])
    FIGURES[f"MCP: {count:,} requests with unusable ids"] = (
        f"all answered -32600 at {count / took:,.0f}/s; peak RSS +"
        f"{(adapter.peak_kb() - before) / 1024:.1f} MiB"
    )
    assert adapter.close() == 0


def test_random_argv_never_ends_in_a_traceback(daemon: EchoDaemon) -> None:
    runs = scale(40, 400)
    rng = random.Random(13)
    words = [b"echo", b"--text", b"--json", b"--socket", b"ping", b"--", b"=", b"-", b"config"]
    env = {**daemon.env, "VENOM_ECHO_SOCKET": daemon.socket}
    statuses: dict[int, int] = {}
    start = time.monotonic()
    for _ in range(runs):
        argv = [b"echo", b"--text"] if rng.random() < 0.3 else []  # some runs can succeed
        for _ in range(rng.randint(0, 5)):
            if rng.random() < 0.5:
                argv.append(
                    rng.choice(words) + bytes(rng.choices(range(1, 256), k=rng.randint(0, 3)))
                )
            else:
                argv.append(bytes(rng.choices(range(1, 256), k=rng.randint(1, 8))))
        res = subprocess.run(
            [str(_BIN / "venom-echo"), *argv], env=env, capture_output=True, timeout=TIMEOUT
        )
        assert b"Traceback" not in res.stderr, (argv, res.stderr)
        assert res.returncode in range(12), (argv, res.returncode, res.stderr)
        if b"--json" in argv and b"--" not in argv[: argv.index(b"--json")]:
            for line in res.stdout.splitlines():
                json.loads(line.decode("utf-8"))
        statuses[res.returncode] = statuses.get(res.returncode, 0) + 1
    FIGURES[f"CLI: {runs} runs of random argv bytes"] = (
        f"no traceback; exit statuses {dict(sorted(statuses.items()))} "
        f"({(time.monotonic() - start) / runs * 1000:.0f} ms/run)"
    )


def test_ping_against_a_mute_daemon_ends_within_the_bound() -> None:
    # A private (0700) directory: the client checks an overridden socket's directory too (§2.4).
    dirs = PrivateDirs("vkm")
    path = str(dirs.runtime / "m.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)  # connections complete in the backlog; nothing ever answers
    try:
        env = {
            **dirs.env("venom-echo"),
            "VENOM_ECHO_SOCKET": path,
            "VENOM_ECHO_CONNECT_TIMEOUT": "1",
        }
        start = time.monotonic()
        res = subprocess.run(
            [str(_BIN / "venom-echo"), "ping", "--json"], env=env, capture_output=True,
            timeout=TIMEOUT,
        )  # fmt: skip
        took = time.monotonic() - start
        assert res.returncode == 6
        assert json.loads(res.stdout)["error"]["code"] == "unavailable.unresponsive"
        FIGURES["CLI: ping against a mute daemon (bound 1 s)"] = f"exit 6 after {took:.2f} s"
        assert took < 1 + 5
    finally:
        listener.close()
        dirs.remove()
