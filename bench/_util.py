"""Shared pieces of the benchmarks: daemons in subprocesses, load clients, result rows."""

from __future__ import annotations

import contextlib
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ("Row", "daemon", "median_ms", "pipelined_rate", "sequential_latencies", "wait_socket")


@dataclass(frozen=True)
class Row:
    """One benchmark line: our figure, the baseline measured in the same run, and the floor."""

    name: str
    ours: float
    baseline: float
    unit: str
    higher_is_better: bool
    floor: float  # the floor on ours/baseline (or baseline/ours when lower is better)

    @property
    def ratio(self) -> float:
        return self.ours / self.baseline if self.baseline else float("nan")

    @property
    def ok(self) -> bool:
        if self.higher_is_better:
            return self.ratio >= self.floor
        return self.ratio <= self.floor


def wait_socket(path: str, timeout: float = 10.0) -> None:
    """Block until something accepts connections at ``path``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX) as s:
            s.connect(path)
            return
        time.sleep(0.02)
    raise TimeoutError(f"nothing listening at {path}")


@contextlib.contextmanager
def daemon(argv: Sequence[str], sock: str, env: dict[str, str] | None = None) -> Iterator[None]:
    """Run a daemon subprocess serving at ``sock`` for the duration of the block."""
    proc = subprocess.Popen(
        list(argv),
        env={**os.environ, **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_socket(sock)
        yield
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextlib.contextmanager
def short_tmpdir() -> Iterator[Path]:
    """A private directory with a short path (sun_path holds 107 bytes)."""
    with tempfile.TemporaryDirectory(prefix="vb", dir="/tmp") as d:
        os.chmod(d, 0o700)
        yield Path(d)


def _connect(path: str, hello: bytes | None) -> socket.socket:
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    if hello:
        s.sendall(hello)
        _read_lines(s, 1)
    return s


def _read_lines(s: socket.socket, n: int) -> None:
    seen = 0
    while seen < n:
        chunk = s.recv(1 << 20)
        if not chunk:
            raise ConnectionError("daemon closed the connection")
        seen += chunk.count(b"\n")


HELLO = b'{"id":0,"verb":"hello","params":{"proto":[1]}}\n'


def request(i: int) -> bytes:
    return b'{"id":%d,"verb":"echo","params":{"text":"hello world"}}\n' % i


def pipelined_rate(path: str, n: int = 100_000, hello: bytes | None = HELLO) -> float:
    """Requests per second for one connection sending ``n`` requests without waiting."""
    payload = b"".join(request(i) for i in range(n))
    with _connect(path, hello) as s:
        import threading

        t0 = time.perf_counter()
        sender = threading.Thread(target=s.sendall, args=(payload,))
        sender.start()
        _read_lines(s, n)
        elapsed = time.perf_counter() - t0
        sender.join()
    return n / elapsed


def sequential_latencies(path: str, n: int = 3000, hello: bytes | None = HELLO) -> list[float]:
    """Round-trip times in seconds, one request at a time on one connection."""
    out = []
    with _connect(path, hello) as s:
        for i in range(n):
            req = request(i)
            t0 = time.perf_counter()
            s.sendall(req)
            _read_lines(s, 1)
            out.append(time.perf_counter() - t0)
    return out


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def many_clients_rate(path: str, clients: int = 100, each: int = 1000) -> float:
    """Aggregate requests per second over ``clients`` connections, each pipelining ``each``."""
    code = (
        "import sys,socket,time\n"
        "sys.path.insert(0, %r)\n"
        "from bench._util import _connect, _read_lines, request, HELLO\n"
        "p, c, e = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])\n"
        "socks = [_connect(p, HELLO) for _ in range(c)]\n"
        "payload = b''.join(request(i) for i in range(e))\n"
        "t0 = time.perf_counter()\n"
        "for s in socks: s.sendall(payload)\n"
        "for s in socks: _read_lines(s, e)\n"
        "print(c * e / (time.perf_counter() - t0))\n"
    ) % str(Path(__file__).resolve().parents[1])
    out = subprocess.run(
        [sys.executable, "-c", code, path, str(clients), str(each)],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    return float(out.stdout.strip())
