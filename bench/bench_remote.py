"""``python -m bench.bench_remote``: the same client on the local socket and through ssh + bridge.

One run starts venom-echo and a private OpenSSH server on 127.0.0.1 (the test harness of
tests/remote), then measures, for the local socket (the baseline) and for
``ssh://127.0.0.1:PORT/<socket>`` (ssh -> sshd -> ``venom-echo bridge`` -> the socket):

- connect: connect plus hello, median of a few;
- sequential round trip: one ``ping`` at a time on one connection, median per call;
- pipelined throughput: N ``echo`` requests written in one go, replies read as they come.

It prints a table with the ratios (remote / local) and exits 0; figures are noisy on a shared
machine, the ratios less so (both sides run in the same minute).
"""

from __future__ import annotations

import os
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

from venom_proto.ssh import SshChild, parse_ssh_url
from venom_proto.stdjson import std_dumps

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "remote"))
sys.path.insert(0, str(ROOT / "tests" / "integration"))

from remote_kit import running_remote  # noqa: E402

SEQUENTIAL = 2000
PIPELINED = 50_000
CONNECTS = 5


def _hello(token: str) -> bytes:
    params = {"proto": [1], "client": {"name": "bench", "version": "0"}, "auth": {"token": token}}
    return std_dumps({"id": 0, "verb": "hello", "params": params}) + b"\n"


class _Link:
    """A connected byte pipe with hello done: a Unix socket or an ssh child's socketpair."""

    def __init__(self, url: str, token: str) -> None:
        import socket

        self._ssh: SshChild | None = None
        if url.startswith("ssh://"):
            self._ssh = SshChild(parse_ssh_url(url), "venom-echo", connect_timeout=10)
            self.sock = self._ssh.sock
        else:
            self.sock = socket.socket(socket.AF_UNIX)
            self.sock.connect(url)
        self.sock.settimeout(30)
        self.surplus = 0
        self.sock.sendall(_hello(token))
        self.lines(1)

    def lines(self, n: int) -> None:
        """Read until ``n`` more reply lines arrived (replies are counted, not parsed)."""
        while self.surplus < n:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise ConnectionError("closed")
            self.surplus += chunk.count(b"\n")
        self.surplus -= n

    def close(self) -> None:
        if self._ssh is not None:
            self._ssh.close()
        else:
            self.sock.close()


def _connect_ms(url: str, token: str) -> float:
    times = []
    for _ in range(CONNECTS):
        start = time.perf_counter()
        link = _Link(url, token)
        times.append((time.perf_counter() - start) * 1e3)
        link.close()
    return statistics.median(times)


def _sequential_us(url: str, token: str) -> float:
    link = _Link(url, token)
    try:
        request = b'{"id":1,"verb":"ping"}\n'
        for _ in range(50):  # warm up
            link.sock.sendall(request)
            link.lines(1)
        start = time.perf_counter()
        for _ in range(SEQUENTIAL):
            link.sock.sendall(request)
            link.lines(1)
        return (time.perf_counter() - start) / SEQUENTIAL * 1e6
    finally:
        link.close()


def _pipelined_per_s(url: str, token: str) -> float:
    link = _Link(url, token)
    try:
        batch = b"".join(
            b'{"id":%d,"verb":"echo","params":{"text":"x"}}\n' % i for i in range(1, PIPELINED + 1)
        )
        start = time.perf_counter()
        writer = threading.Thread(target=link.sock.sendall, args=(batch,))
        writer.start()
        link.lines(PIPELINED)
        writer.join()
        return PIPELINED / (time.perf_counter() - start)
    finally:
        link.close()


def run() -> dict[str, Any]:
    saved = os.environ.get("VENOM_SSH_COMMAND")
    try:
        with running_remote() as (daemon, sshd):
            os.environ["VENOM_SSH_COMMAND"] = sshd.ssh_env["VENOM_SSH_COMMAND"]
            token = daemon.token()
            local, remote = daemon.socket, sshd.url(daemon.socket)
            results: dict[str, Any] = {}
            for name, measure in (
                ("connect_ms", _connect_ms),
                ("sequential_us", _sequential_us),
                ("pipelined_per_s", _pipelined_per_s),
            ):
                results[name] = {"local": measure(local, token), "ssh": measure(remote, token)}
            return results
    finally:
        if saved is None:
            os.environ.pop("VENOM_SSH_COMMAND", None)
        else:
            os.environ["VENOM_SSH_COMMAND"] = saved


def main() -> int:
    results = run()
    print(f"{'measure':<28}{'local socket':>16}{'ssh + bridge':>16}{'ratio':>10}")
    labels = {
        "connect_ms": "connect + hello (ms)",
        "sequential_us": "sequential ping (us/call)",
        "pipelined_per_s": "pipelined echo (req/s)",
    }
    for key, label in labels.items():
        local, ssh = results[key]["local"], results[key]["ssh"]
        print(f"{label:<28}{local:>16,.1f}{ssh:>16,.1f}{ssh / local:>10.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
