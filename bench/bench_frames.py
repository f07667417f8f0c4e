"""Binary frames: 64 KiB ECHO_BYTES frames with 8 in flight vs a plain Python byte echo.

Ours is the binary envelope (RFC-0002 5) on ``venom-echo serve`` and on venom-proto's demo
daemon (``packages/venom-proto/tests/demo_daemon.py``); the baseline is
``bench/baseline_bytes.py``, a process that ``recv_into``/``sendall``s raw bytes over a Unix
socket with no framing. The load client (its own process) sends the same 64 KiB chunks,
keeping 8 outstanding, in both cases.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from bench._util import (
    PYTHON,
    ROOT,
    Row,
    demo_argv,
    echo_argv,
    isolated_env,
    load_client,
    median,
    process_cpu,
    run_daemon,
    short_tmpdir,
)

__all__ = ("Sizes", "run")

FLOOR = 0.3


@dataclass(frozen=True)
class Sizes:
    """How much work a run does; the smoke test shrinks these."""

    rounds: int = 9
    frames: int = 8000
    chunk: int = 65536
    inflight: int = 8


def run(sizes: Sizes | None = None) -> list[Row]:
    """Row 4: payload MB/s (one way) for both of our daemons vs the raw byte echo."""
    sz = sizes or Sizes()
    with short_tmpdir() as tmp, contextlib.ExitStack() as stack:
        env = isolated_env(tmp)
        servers = {
            "venom-echo": ("frames", echo_argv),
            "venom_proto demo": ("frames", demo_argv),
            "baseline": ("rawbytes", lambda s: [PYTHON, str(ROOT / "bench/baseline_bytes.py"), s]),
        }
        daemons = {}
        for i, (name, (_, argv)) in enumerate(servers.items()):
            sock = str(tmp / f"{i}.sock")
            daemons[name] = stack.enter_context(run_daemon(name, argv(sock), sock, env))
        rates: dict[str, list[float]] = {name: [] for name in servers}
        cpu = dict.fromkeys(servers, 0.0)
        for _ in range(sz.rounds):
            for name, (mode, _) in servers.items():
                d = daemons[name]
                before = process_cpu(d.pid)
                args = (d.sock, sz.frames, sz.chunk, sz.inflight)
                rates[name].append(load_client(mode, *args, env=env)["mbps"])
                cpu[name] += process_cpu(d.pid) - before
    base = median(rates["baseline"])
    kib = sz.chunk // 1024
    # Daemon CPU milliseconds per 100 MB echoed: a figure the machine's other load barely moves.
    megabytes = sz.rounds * sz.frames * sz.chunk / 1e6
    per_100mb = {name: round(spent / megabytes * 1e5, 2) for name, spent in cpu.items()}
    cpu_rows = [
        Row(
            f"daemon CPU per 100 MB of frames ({name})",
            per_100mb[name],
            per_100mb["baseline"],
            "ms",
            "info",
            note="user+sys over all rounds; 10 ms clock ticks",
        )
        for name in ("venom-echo", "venom_proto demo")
    ]
    rate_rows = [
        Row(
            f"ECHO_BYTES {kib} KiB x {sz.inflight} in flight ({name})",
            round(median(rates[name]), 1),
            round(base, 1),
            "MB/s",
            "min",
            FLOOR,
            note="per-round ratio "
            + "..".join(f"{r:.3g}" for r in _range(rates[name], rates["baseline"])),
        )
        for name in ("venom-echo", "venom_proto demo")
    ]
    return rate_rows + cpu_rows


def _range(ours: list[float], base: list[float]) -> tuple[float, float]:
    ratios = [o / b for o, b in zip(ours, base, strict=True)]
    return min(ratios), max(ratios)
