"""Faults: kill -9 under load and restart, racing serves, killed clients, SIGTERM mid-stream."""

from __future__ import annotations

import os
import select
import signal
import socket
import stat
import threading
import time
from pathlib import Path

import pytest
from soak_kit import FIGURES, TIMEOUT, EchoDaemon, request_line, scale

from venom_proto import VenomError
from venom_proto.sync_client import SyncClient

RESTART_ROUNDS = scale(2, 10)
SERVE_RACES = scale(5, 50)
CLIENT_KILLS = scale(100, 1000)
KILL_BATCH = 50
LOAD_THREADS = 8
STREAM = request_line(1, "echo.repeat", {"text": "k", "count": 100000, "interval_ms": 10})


def _load_thread(path: str, stop: threading.Event, errors: list[str]) -> None:
    """Calls echo until the daemon goes away; records the code it failed with."""
    try:
        with SyncClient(path, client_name="soak", client_version="0", timeout=TIMEOUT) as c:
            while not stop.is_set():
                assert c.call("echo", {"text": "x"}) == {"text": "x"}
    except VenomError as exc:
        errors.append(exc.code)
    else:
        errors.append("stopped")


def _files(root: Path) -> set[str]:
    return {p.name for p in root.iterdir() if p.name != "cfg"}


def _check_disk(d: EchoDaemon) -> None:
    """Socket, lock and token of a running daemon are consistent: its pid, fresh, 0600."""
    assert stat.S_ISSOCK(os.lstat(d.socket).st_mode)
    assert d.lock.read_text().strip() == str(d.pid)
    assert len(d.token) == 64
    assert stat.S_IMODE(d.token_file.stat().st_mode) == 0o600
    assert _files(d.root) == {"s.sock", "s.lock", "s.token"}, _files(d.root)


def test_kill9_under_load_then_restart(daemon: EchoDaemon) -> None:
    """RFC-0002 §2.5: a killed daemon's clients get unavailable.*; a restart serves at once."""
    ready_times = []
    for _ in range(RESTART_ROUNDS):
        _check_disk(daemon)
        old_token = daemon.token
        stop, errors = threading.Event(), list[str]()
        threads = [
            threading.Thread(target=_load_thread, args=(daemon.socket, stop, errors))
            for _ in range(LOAD_THREADS)
        ]
        for t in threads:
            t.start()
        time.sleep(0.3)
        daemon.signal(signal.SIGKILL)
        daemon.wait()
        for t in threads:
            t.join(TIMEOUT)
        stop.set()
        assert not any(t.is_alive() for t in threads), "a client hung after kill -9"
        assert len(errors) == LOAD_THREADS
        assert all(code.startswith("unavailable.") for code in errors), errors
        with pytest.raises(VenomError) as info:
            SyncClient(daemon.socket, client_name="soak", client_version="0", timeout=5)
        assert info.value.code == "unavailable.not_running", info.value.code
        daemon.proc = daemon.spawn()
        ready_times.append(daemon.wait_ready())
        assert daemon.token_at_connect, "RFC-0005 §3: token written before accepting connections"
        with SyncClient(daemon.socket, client_name="soak", client_version="0", timeout=5) as c:
            assert c.call("echo", {"text": "back"}) == {"text": "back"}
        _check_disk(daemon)
        assert daemon.token != old_token, "the restart kept the revoked token"
    FIGURES[f"kill -9 under load, restart ({RESTART_ROUNDS} rounds)"] = (
        f"clients got unavailable.*; serving again after max {max(ready_times) * 1000:.0f} ms"
    )


def _listeners(path: str) -> int:
    """Listening sockets bound to ``path`` (flag __SO_ACCEPTCON in /proc/net/unix)."""
    count = 0
    for line in Path("/proc/net/unix").read_text().splitlines()[1:]:
        fields = line.split()
        if len(fields) >= 8 and fields[7] == path and int(fields[3], 16) & 0x10000:
            count += 1
    return count


def test_simultaneous_serves_leave_exactly_one_listener() -> None:
    """RFC-0002 §2.5: of two racing serves one listens, the other exits already_running (5)."""
    d = EchoDaemon()
    try:
        for _ in range(SERVE_RACES):
            a, b = d.spawn(), d.spawn()
            deadline = time.monotonic() + TIMEOUT
            while a.running and b.running and time.monotonic() < deadline:
                time.sleep(0.01)
            loser, winner = (a, b) if not a.running else (b, a)
            assert loser.wait(TIMEOUT) == 5, loser.log
            d.proc = winner
            d.wait_ready()
            assert winner.running
            assert _listeners(d.socket) == 1
            assert d.lock.read_text().strip() == str(winner.pid)
            assert "already_running" in loser.log
            loser.stop()
            d.stop()
            assert _listeners(d.socket) == 0
    finally:
        d.cleanup()
    FIGURES[f"{SERVE_RACES} rounds of two simultaneous serves"] = "exactly one listener each"


def _forked_client(path: str, signal_fd: int) -> None:
    """Child: start a long stream, report its first item, then wait to be killed."""
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(TIMEOUT)
            s.connect(path)
            s.sendall(STREAM)
            buf = b""
            while b"\n" not in buf:
                buf += s.recv(4096)
            os.write(signal_fd, b"1" if b'"item"' in buf else b"0")
            time.sleep(TIMEOUT)
    finally:
        os._exit(0)


def _kill_batch(path: str, n: int) -> None:
    r, w = os.pipe()
    pids = []
    try:
        for _ in range(n):
            pid = os.fork()
            if pid == 0:
                os.close(r)
                _forked_client(path, w)
            pids.append(pid)
        got = b""
        deadline = time.monotonic() + TIMEOUT
        while len(got) < n and time.monotonic() < deadline:
            if select.select([r], [], [], 1)[0]:
                got += os.read(r, n)
        assert got == b"1" * n, f"{len(got)} of {n} clients saw their stream start: {got!r}"
    finally:
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        for pid in pids:
            os.waitpid(pid, 0)
        os.close(r)
        os.close(w)


def _settle(probe: EchoDaemon, baseline: int) -> int:
    deadline = time.monotonic() + 10
    while (fds := probe.fd_count()) > baseline and time.monotonic() < deadline:
        time.sleep(0.05)
    return fds


def test_killed_clients_leak_no_handler_fd_or_memory(daemon: EchoDaemon) -> None:
    """RFC-0002 §4.3: a vanished client's calls are cancelled; fds, tasks and memory come back."""
    idle_fds = daemon.fd_count()
    _kill_batch(daemon.socket, 5)  # warm-up: first-use allocations are not a leak
    fds_before, rss_before = _settle(daemon, idle_fds), daemon.rss_kb()
    for done in range(0, CLIENT_KILLS, KILL_BATCH):
        _kill_batch(daemon.socket, min(KILL_BATCH, CLIENT_KILLS - done))
    fds_after = _settle(daemon, fds_before)
    time.sleep(0.2)
    cpu = daemon.cpu_seconds()
    time.sleep(1.0)
    idle_cpu = daemon.cpu_seconds() - cpu  # streaming handlers left running would burn CPU
    rss_after = daemon.rss_kb()
    FIGURES[f"{CLIENT_KILLS} clients killed mid-stream"] = (
        f"daemon fds {fds_before} -> {fds_after}, RSS {rss_before / 1024:.1f} -> "
        f"{rss_after / 1024:.1f} MiB, CPU over the next 1 s {idle_cpu:.2f} s"
    )
    assert fds_after == fds_before
    assert idle_cpu < 0.1, "handlers of dead clients are still running"
    assert rss_after - rss_before < 8 * 1024
