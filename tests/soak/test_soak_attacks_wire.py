"""Attacks on the wire (issue 12 §2) against the real ``venom-echo serve``, with their figures.

Each attack runs while a prober on its own connection pings the daemon every 20 ms; a figure
records the daemon's descriptors and RSS before, at the worst moment and after, and the ping
latency during the attack (median and max). The daemon's stderr is a pipe this suite does not
read while the attacks run. Figures go to the soak summary and to docs/reliability.md.
"""

from __future__ import annotations

import json
import signal
import socket
import statistics
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from soak_kit import FIGURES, TIMEOUT, EchoDaemon, hello_line, request_line, scale

SLOW_CONNECTIONS = scale(100, 300)
PARTIAL_MIB = 1
KILLED_SUBSCRIBERS = scale(50, 200)
CLI_KILLS = scale(6, 20)
FLOOD = scale(1500, 3000)
SKILL_BYTES = 256 * 1024
#: venom-echo's own defaults (the daemon is started without options).
MESSAGE_TIMEOUT = 10.0
MAX_INFLIGHT = 1024
MAX_INPUT = 64 * 1024 * 1024


def _connect(path: str, timeout: float = TIMEOUT) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    sock.connect(path)
    return sock


_PENDING: dict[int, bytes] = {}  # socket fd -> bytes received past the last line taken


def _lines(sock: socket.socket, n: int) -> list[dict[str, Any]]:
    """The next ``n`` reply lines on ``sock`` (what arrives after them is kept for later)."""
    buf = _PENDING.pop(sock.fileno(), b"")
    while buf.count(b"\n") < n:
        chunk = sock.recv(1 << 20)
        assert chunk, f"closed before {n} lines: {buf[-200:]!r}"
        buf += chunk
    *lines, rest = buf.split(b"\n", n)
    if rest:
        _PENDING[sock.fileno()] = rest
    return [json.loads(line) for line in lines]


class Probe:
    """Pings the daemon every 20 ms on its own connection; keeps the round-trip times."""

    def __init__(self, path: str) -> None:
        self._sock = _connect(path, 5)
        self._sock.sendall(hello_line())
        _lines(self._sock, 1)
        self.latencies: list[float] = []
        self.failures = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        n = 0
        while not self._stop.wait(0.02):
            n += 1
            start = time.perf_counter()
            try:
                self._sock.sendall(request_line(n, "ping"))
                assert _lines(self._sock, 1) == [{"id": n, "ok": {}}]
            except (OSError, AssertionError):
                self.failures += 1
                return
            self.latencies.append(time.perf_counter() - start)

    def stop(self) -> str:
        deadline = time.monotonic() + 5
        while len(self.latencies) < 3 and not self.failures and time.monotonic() < deadline:
            time.sleep(0.01)
        self._stop.set()
        self._thread.join(10)
        self._sock.close()
        assert self.failures == 0, "the prober lost its connection"
        assert self.latencies, "no ping completed"
        med = statistics.median(self.latencies) * 1000
        return f"ping p50 {med:.2f} ms, max {max(self.latencies) * 1000:.1f} ms"


@contextmanager
def attack(daemon: EchoDaemon, name: str) -> Iterator[Callable[[], None]]:
    """Measure around an attack; the body calls ``peak()`` at its worst moment."""
    fds_before, rss_before = daemon.fd_count(), daemon.rss_kb()
    worst = {"fds": fds_before, "rss": rss_before}

    def peak() -> None:
        worst["fds"] = max(worst["fds"], daemon.fd_count())
        worst["rss"] = max(worst["rss"], daemon.rss_kb())

    probe = Probe(daemon.socket)
    try:
        yield peak
    finally:
        latency = probe.stop()
    deadline = time.monotonic() + 15
    while daemon.fd_count() > fds_before and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(1.5)  # the daemon trims its heap at most once a second
    fds_after, rss_after = daemon.fd_count(), daemon.rss_kb()
    FIGURES[name] = (
        f"fds {fds_before} -> {worst['fds']} -> {fds_after}, RSS {rss_before / 1024:.1f} -> "
        f"{worst['rss'] / 1024:.1f} -> {rss_after / 1024:.1f} MiB, {latency}"
    )
    assert fds_after <= fds_before, f"{name}: descriptors left behind"


def test_partial_messages_and_slow_loris(daemon: EchoDaemon) -> None:
    """A connection that sends `{` (or a preamble and half a frame), or a ~1 MiB partial
    line, and then nothing: closed after the message deadline with timeout.*; meanwhile the
    daemon-wide input budget bounds what all of them hold."""
    with attack(daemon, f"{SLOW_CONNECTIONS} partial messages (1 MiB each), then silence") as peak:
        socks = []
        for i in range(SLOW_CONNECTIONS):
            sock = _connect(daemon.socket)
            if i % 3 == 0:
                sock.sendall(b"{")
            elif i % 3 == 1:
                sock.sendall(b"\xf5" + struct.pack(">HII", 1, 0, 100) + b'{"pr')
            else:
                sock.sendall(b'{"x":"' + b"x" * (PARTIAL_MIB * 1024 * 1024 - 100))
            socks.append(sock)
        time.sleep(0.5)
        peak()
        assert daemon.rss_kb() < 60 * 1024 + MAX_INPUT // 1024  # not 300 x 1 MiB
        outcomes: dict[str, int] = {}
        for sock in socks:
            data = b""
            try:
                while chunk := sock.recv(65536):
                    data += chunk
            except OSError:
                pass
            code = _code(data)
            outcomes[code] = outcomes.get(code, 0) + 1
            sock.close()
        assert set(outcomes) <= {"timeout.message", "timeout.hello", "unavailable.overloaded"}
        FIGURES[f"{SLOW_CONNECTIONS} partial messages: outcomes"] = ", ".join(
            f"{code} {n}" for code, n in sorted(outcomes.items())
        )


def _code(data: bytes) -> str:
    if data[:1] == b"{":
        return str(json.loads(data.splitlines()[0])["error"]["code"])
    if data[:2] == b"\x00\x03":  # an ERROR frame
        return str(json.loads(data[10:])["code"])
    return f"closed ({len(data)} bytes)"


def test_killed_quiet_subscribers_leave_nothing(daemon: EchoDaemon) -> None:
    """Clients killed while they hold `events` subscriptions that never match: every
    descriptor and task comes back (EOF cancels the streams)."""
    code = (
        "import socket,sys,os\n"
        "s=socket.socket(socket.AF_UNIX);s.connect(sys.argv[1])\n"
        "s.sendall(sys.argv[2].encode())\n"
        "s.recv(1000)\n"  # the hello reply: the subscription is in
        "os.kill(os.getpid(), 9)\n"
    )
    subscribe = (
        hello_line() + request_line(1, "events", {"types": ["nomatch.*"], "follow": True})
    ).decode()
    with attack(daemon, f"{KILLED_SUBSCRIBERS} killed quiet subscribers") as peak:
        procs = [
            subprocess.Popen([sys.executable, "-c", code, daemon.socket, subscribe])
            for _ in range(KILLED_SUBSCRIBERS)
        ]
        peak()
        for proc in procs:
            proc.wait(TIMEOUT)


def test_killed_cli_subscribers_leave_nothing(daemon: EchoDaemon) -> None:
    """The real CLI following events, ended by SIGTERM and by SIGKILL: nothing is left."""
    cli = str(Path(sys.executable).parent / "venom-echo")
    argv = [cli, "events", "--types", '["nomatch.*"]', "--follow=true", "--json"]
    argv += ["--socket", daemon.socket]
    with attack(daemon, f"{CLI_KILLS} CLI subscribers killed (TERM and KILL)") as peak:
        base = daemon.fd_count()
        procs = [
            subprocess.Popen(
                argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=daemon.env
            )
            for _ in range(CLI_KILLS)
        ]
        deadline = time.monotonic() + TIMEOUT
        while daemon.fd_count() < base + CLI_KILLS and time.monotonic() < deadline:
            time.sleep(0.05)
        peak()
        for n, proc in enumerate(procs):
            proc.send_signal(signal.SIGTERM if n % 2 else signal.SIGKILL)
        for proc in procs:
            proc.wait(TIMEOUT)


def test_in_flight_flood_keeps_cancel_and_ping(daemon: EchoDaemon) -> None:
    """More than max_inflight calls pipelined: the excess is refused with
    unavailable.too_many_calls, and a cancel sent after them still arrives and works."""
    with attack(daemon, f"{FLOOD} pipelined streams on one connection") as peak:
        sock = _connect(daemon.socket)
        sock.sendall(hello_line("cancel"))
        _lines(sock, 1)
        params = {"text": "f", "count": 1000, "interval_ms": 1000}
        sock.sendall(b"".join(request_line(i, "echo.repeat", params) for i in range(FLOOD)))
        sock.sendall(request_line("c", "cancel", {"id": 0}) + request_line("p", "ping"))
        refused, seen = 0, set[Any]()
        while not {"c", "p"} <= seen:
            for reply in _lines(sock, 1):
                if reply.get("error", {}).get("code") == "unavailable.too_many_calls":
                    refused += 1
                if "item" not in reply:
                    seen.add(reply["id"])
        peak()
        assert refused == FLOOD - MAX_INFLIGHT
        sock.close()
    FIGURES[f"{FLOOD} pipelined streams: refused"] = f"{refused} (the bound is {MAX_INFLIGHT})"


def test_replies_that_repeat_the_input_fit_max_frame(daemon: EchoDaemon) -> None:
    """Unknown verb and param names of 4000 characters on a max_frame 4096 connection: the
    errors fit, the connection stays, nothing is lost."""
    with attack(daemon, "4000-character names on max_frame 4096") as peak:
        sock = _connect(daemon.socket)
        hello = {"proto": [1], "max_frame": 4096}
        sock.sendall(request_line("h", "hello", hello))
        _lines(sock, 1)
        name = "n" * 4000
        sock.sendall(request_line(1, name))
        sock.sendall(request_line(2, "echo", {"text": "t", name[:3900]: 1}))
        sock.sendall(request_line(3, "config.get", {"key": name[:3900]}))
        sock.sendall(request_line(4, "ping"))
        replies = _lines(sock, 4)
        peak()
        assert [r["id"] for r in replies] == [1, 2, 3, 4]
        assert replies[0]["error"]["code"] == "unsupported.verb"
        assert replies[1]["error"]["code"].startswith("invalid_params")
        assert "error" in replies[2]
        assert replies[3] == {"id": 4, "ok": {}}
        sock.close()


def test_unread_skill_replies_are_bounded(daemon: EchoDaemon) -> None:
    """256 KiB of pipelined `skill` requests never read: replies are built only as the peer
    takes them (the old server built ~70 MB first)."""
    with attack(daemon, "256 KiB of pipelined skill requests, unread") as peak:
        sock = _connect(daemon.socket)
        line = request_line(1, "skill")
        count = SKILL_BYTES // len(line)
        sock.setblocking(False)
        data = b"".join(request_line(i, "skill") for i in range(count))
        sent = 0
        deadline = time.monotonic() + 5
        while sent < len(data) and time.monotonic() < deadline:
            try:
                sent += sock.send(data[sent:])
            except BlockingIOError:
                time.sleep(0.01)
        time.sleep(1.0)
        peak()
        sock.close()


#: The daemon's RLIMIT_NOFILE in the cap test, so its default connection cap is 448.
FEW_FDS = 512
CAP = FEW_FDS - 64  # Server's default: the descriptor limit less 64 (D-W25)


def test_connection_flood_meets_the_cap() -> None:
    """Connections past max_connections get one error line and a close; the rest is served."""
    daemon = EchoDaemon(nofile=FEW_FDS)
    try:
        daemon.start()
        with attack(daemon, f"{CAP + 100} connections against the default cap ({CAP})") as peak:
            held, refused = [], 0
            for _ in range(CAP + 100):
                held.append(_connect(daemon.socket))
            time.sleep(0.5)
            peak()
            for sock in held:
                sock.settimeout(0.05)
                try:
                    data = sock.recv(1000)
                except TimeoutError:
                    continue
                if data and json.loads(data)["error"]["code"] == "unavailable.too_many_connections":
                    refused += 1
            for sock in held:
                sock.close()
        assert refused >= 100 - 1  # the prober holds one connection of the cap
        FIGURES[f"{CAP + 100} connections: refused"] = (
            f"{refused} with unavailable.too_many_connections"
        )
    finally:
        daemon.cleanup()
