"""Shared pieces of the benchmarks: result rows, daemons in subprocesses, the load client.

Every subprocess gets a timeout, every daemon is stopped in a ``finally``, and every temporary
directory is removed, so an interrupted or failing bench leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from venom_gen.testing import DaemonProcess

__all__ = (
    "PYTHON",
    "ROOT",
    "Daemon",
    "Row",
    "daemon",
    "echo_argv",
    "format_table",
    "isolated_env",
    "load_client",
    "median",
    "pinned",
    "process_cpu",
    "run_daemon",
    "short_tmpdir",
)

ROOT = Path(__file__).resolve().parents[1]
#: The interpreter running the bench: the workspace venv's python under nox and `uv run`.
PYTHON = sys.executable
VENV_BIN = Path(sys.executable).parent
#: The bound on a daemon's start and on its stop, in seconds.
DAEMON_TIMEOUT = 15.0


def _cpu_sides() -> tuple[set[int], set[int]] | None:
    """(client CPUs, server CPUs): the first usable CPU for load clients, the last for servers.

    Left to itself, the scheduler sometimes runs a client and the daemon it waits on on the
    same core and sometimes on different ones, and a sequential round trip then lands at
    ~16 or ~58 us by placement alone (seen on 2 cores). Pinning gives every daemon, ours and
    the baselines alike, one core and the load client the other. VENOM_BENCH_PIN=0 disables it.
    """
    usable = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    if len(usable) < 2 or os.environ.get("VENOM_BENCH_PIN", "1") == "0":
        return None
    return {usable[0]}, {usable[-1]}


_SIDES = _cpu_sides()


def pinned(side: Literal["client", "server"]) -> Any:
    """A ``preexec_fn`` that pins a child process to its side's CPU (None when not pinning)."""
    if _SIDES is None:
        return None
    cpus = _SIDES[0] if side == "client" else _SIDES[1]
    return lambda: os.sched_setaffinity(0, cpus)


#: How a row's ratio is judged against its floor.
#: ``min``: ours/baseline >= floor (rates); ``max``: ours/baseline <= floor (times);
#: ``added``: ours - baseline <= floor (an absolute budget, e.g. milliseconds of latency);
#: ``info``: orientation figure, never judged.
Check = Literal["min", "max", "added", "info"]


@dataclass(frozen=True)
class Row:
    """One benchmark line: our figure, the baseline measured in the same run, and the floor."""

    name: str
    ours: float
    baseline: float
    unit: str
    check: Check
    floor: float | None = None
    note: str = ""

    @property
    def ratio(self) -> float:
        return self.ours / self.baseline if self.baseline else float("nan")

    @property
    def verdict(self) -> str:
        """``PASS``/``MISS`` against the floor, ``-`` for orientation rows."""
        if self.check == "info" or self.floor is None:
            return "-"
        if self.check == "min":
            ok = self.ratio >= self.floor
        elif self.check == "max":
            ok = self.ratio <= self.floor
        else:
            ok = self.ours - self.baseline <= self.floor
        return "PASS" if ok else "MISS"

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "ours": self.ours,
            "baseline": self.baseline,
            "unit": self.unit,
            "ratio": None if math.isnan(self.ratio) else round(self.ratio, 4),
            "check": self.check,
            "floor": self.floor,
            "verdict": self.verdict,
            "note": self.note,
        }


def median(samples: Sequence[float]) -> float:
    return statistics.median(samples)


def percentile(samples: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) by nearest rank."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@contextlib.contextmanager
def short_tmpdir() -> Iterator[Path]:
    """A private directory with a short path (sun_path holds 107 bytes)."""
    with tempfile.TemporaryDirectory(prefix="vb", dir="/tmp") as d:
        os.chmod(d, 0o700)
        yield Path(d)


def isolated_env(tmp: Path) -> dict[str, str]:
    """The environment for daemons and clients: runtime and config dirs inside ``tmp``.

    Bytecode caching is switched on even where the caller set PYTHONDONTWRITEBYTECODE: an
    installed product has its .pyc files, and without them every process start would compile
    our modules from source (the first run writes the usual, git-ignored ``__pycache__``).
    """
    env = dict(os.environ)
    env.update(
        XDG_RUNTIME_DIR=str(tmp),
        XDG_CONFIG_HOME=str(tmp / "config"),
        PYTHONPATH=str(ROOT),
        VENOM_ECHO_LOG="warning",
    )
    env.pop("VENOM_ECHO_SOCKET", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("PYTHONPYCACHEPREFIX", None)
    env.pop("VENOM_STARTUP_IMAGE", None)  # the CLI as installed: with its start-up image
    return env


@dataclass(frozen=True)
class Daemon:
    """A running daemon: its name in the tables, its socket and its process id."""

    name: str
    sock: str
    pid: int


@contextlib.contextmanager
def run_daemon(name: str, argv: Sequence[str], sock: str, env: dict[str, str]) -> Iterator[Daemon]:
    """Run a daemon subprocess serving at ``sock`` for the duration of the block: the test
    kit's `DaemonProcess`, ready once ``sock`` accepts (a baseline writes no owner token)."""
    with DaemonProcess(
        tool=_tool_name(name),
        argv=argv,
        socket=sock,
        env=env,
        owner_token=False,
        preexec_fn=pinned("server"),
        timeout=DAEMON_TIMEOUT,
    ) as running:
        yield Daemon(name, sock, running.pid)


def _tool_name(name: str) -> str:
    """``name`` in a table as a tool name (RFC-0002 §2.3), which the test kit names a daemon by:
    ``venom_proto demo`` -> ``venom-proto-demo``."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:32] or "daemon"


@contextlib.contextmanager
def daemon(argv: Sequence[str], sock: str, env: dict[str, str] | None = None) -> Iterator[None]:
    """``run_daemon`` with the inherited environment (the interface bench_mcp.py uses)."""
    with run_daemon("daemon", argv, sock, {**os.environ, **(env or {})}):
        yield


def process_cpu(pid: int) -> float:
    """User+sys CPU seconds a live process has used so far (Linux ``/proc``)."""
    with open(f"/proc/{pid}/stat", "rb") as f:
        # Fields after the parenthesised command name; utime and stime are fields 14 and 15.
        fields = f.read().rsplit(b")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def echo_argv(sock: str) -> list[str]:
    """The product daemon, started through its console script like a user would."""
    return [str(VENV_BIN / "venom-echo"), "serve", "--socket", sock]


#: The bare server as a daemon (no schema, registry or product): venom-proto's test fixture.
DEMO_DAEMON = ROOT / "packages" / "venom-proto" / "tests" / "demo_daemon.py"


def demo_argv(sock: str) -> list[str]:
    return [PYTHON, str(DEMO_DAEMON), "--socket", sock]


def baseline_argv(sock: str) -> list[str]:
    return [PYTHON, str(ROOT / "bench" / "baseline_server.py"), sock]


def load_client(mode: str, *args: object, env: dict[str, str], timeout: float = 120) -> Any:
    """Run ``bench/load_client.py MODE ARGS`` in its own process; return its JSON answer.

    A separate process keeps the load generator's work off the bench's own interpreter, so
    on a 2-core machine the daemon and the client each get a core.
    """
    out = subprocess.run(
        [PYTHON, str(ROOT / "bench" / "load_client.py"), mode, *map(str, args)],
        env=env,
        preexec_fn=pinned("client"),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if out.returncode != 0:
        raise RuntimeError(f"load client {mode} failed: {out.stderr.strip()[-2000:]}")
    return json.loads(out.stdout)


def _fmt(value: float) -> str:
    if math.isnan(value):
        return "-"
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.3g}"


def format_table(rows: list[Row]) -> str:
    """A fixed-width table: name, ours, baseline, unit, ratio, floor, verdict."""
    head = ("benchmark", "ours", "baseline", "unit", "ratio", "floor", "")
    lines = [head]
    for r in rows:
        floor = "-" if r.floor is None else ("+" if r.check == "added" else "") + f"{r.floor:g}"
        base = _fmt(r.baseline) if r.baseline else "-"
        if r.check == "added":
            ratio = f"+{r.ours - r.baseline:.3g}"
        else:
            ratio = _fmt(r.ratio) if r.baseline else "-"
        lines.append((r.name, _fmt(r.ours), base, r.unit, ratio, floor, r.verdict))
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    return "\n".join(
        "  ".join(
            cell.ljust(w) if i == 0 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(line, widths, strict=True))
        ).rstrip()
        for line in lines
    )
