"""NDJSON echo: pipelined throughput, sequential round trips and 100 concurrent clients.

Three daemons run side by side: ``venom-echo serve`` (the product: hello, grants, params and
result validation, events), venom-proto's demo daemon (the bare server with one echo verb,
``packages/venom-proto/tests/demo_daemon.py``) and ``bench/baseline_server.py`` (asyncio
Protocol + orjson, no checks at all). Each round measures every daemon once, in turn, with the
load client in its own process; a row reports the median over the rounds, so a burst of load
elsewhere hits all three alike.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass

from bench._util import (
    Daemon,
    Row,
    baseline_argv,
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


@dataclass(frozen=True)
class Sizes:
    """How much work a run does; the smoke test shrinks these."""

    rounds: int = 9
    pipelined: int = 100_000
    sequential: int = 3000
    clients: int = 100
    each: int = 1000


OURS = (("venom-echo", echo_argv), ("venom_proto demo", demo_argv))


def _rounds(
    daemons: list[Daemon], rounds: int, measure: Callable[[Daemon], dict[str, float]]
) -> dict[str, list[dict[str, float]]]:
    """``measure`` each daemon once per round, alternating; results by daemon name."""
    out: dict[str, list[dict[str, float]]] = {d.name: [] for d in daemons}
    for index in range(rounds):
        # Rotate the order so no daemon always runs right after another's burst.
        for d in daemons[index % len(daemons) :] + daemons[: index % len(daemons)]:
            out[d.name].append(measure(d))
    return out


def _with_cpu(
    measure: Callable[[Daemon], dict[str, float]],
) -> Callable[[Daemon], dict[str, float]]:
    """``measure`` plus the CPU seconds the daemon spent during it (key ``cpu_s``)."""

    def measured(d: Daemon) -> dict[str, float]:
        before = process_cpu(d.pid)
        result = measure(d)
        return {**result, "cpu_s": process_cpu(d.pid) - before}

    return measured


def _cpu_us(samples: list[dict[str, float]], requests: int) -> float:
    """Daemon CPU microseconds per request, over all rounds (clock ticks are 10 ms)."""
    return round(sum(s["cpu_s"] for s in samples) / (requests * len(samples)) * 1e6, 2)


def _med(samples: list[dict[str, float]], key: str) -> float:
    return median([s[key] for s in samples])


def _spread(ours: list[dict[str, float]], base: list[dict[str, float]], key: str) -> str:
    """The range of the per-round ratios, to show how steady the median ratio is."""
    ratios = [o[key] / b[key] for o, b in zip(ours, base, strict=True)]
    return f"per-round ratio {min(ratios):.3g}..{max(ratios):.3g} over {len(ratios)} rounds"


def run(sizes: Sizes | None = None) -> list[Row]:
    """Rows 1-3 of docs/benchmarks.md for both of our daemons."""
    sz = sizes or Sizes()
    with short_tmpdir() as tmp, contextlib.ExitStack() as stack:
        env = isolated_env(tmp)
        daemons = []
        for i, (name, argv) in enumerate((*OURS, ("baseline", baseline_argv))):
            sock = str(tmp / f"{i}.sock")
            daemons.append(stack.enter_context(run_daemon(name, argv(sock), sock, env)))
        piped = _rounds(
            daemons,
            sz.rounds,
            _with_cpu(lambda d: load_client("pipeline", d.sock, sz.pipelined, env=env)),
        )
        # One client takes turns between the daemons, request by request (see load_client).
        socks = ",".join(d.sock for d in daemons)
        seq: dict[str, list[dict[str, float]]] = {d.name: [] for d in daemons}
        for _ in range(sz.rounds):
            turns = load_client("interleaved", socks, sz.sequential, env=env)
            for d in daemons:
                seq[d.name].append(turns[d.sock])
        crowd = _rounds(
            daemons,
            sz.rounds,
            _with_cpu(lambda d: load_client("many", d.sock, sz.clients, sz.each, env=env)),
        )
    base_rate = _med(piped["baseline"], "rate")
    base_med = _med(seq["baseline"], "median_s") * 1e6
    base_p99 = _med(seq["baseline"], "p99_s") * 1e6
    base_crowd = _med(crowd["baseline"], "rate")
    rows = []
    for name, _ in OURS:
        rows.append(
            Row(
                f"pipelined echo, 1 conn x {sz.pipelined} ({name})",
                round(_med(piped[name], "rate")),
                round(base_rate),
                "req/s",
                "min",
                0.5,
                note=_spread(piped[name], piped["baseline"], "rate"),
            )
        )
    for name, _ in OURS:
        rows.append(
            Row(
                f"sequential round trip median ({name})",
                round(_med(seq[name], "median_s") * 1e6, 1),
                round(base_med, 1),
                "us",
                "max",
                1.3,
                note=_spread(seq[name], seq["baseline"], "median_s"),
            )
        )
        rows.append(
            Row(
                f"sequential round trip p99 ({name})",
                round(_med(seq[name], "p99_s") * 1e6, 1),
                round(base_p99, 1),
                "us",
                "info",
                note="p99 vs the baseline's p99",
            )
        )
    for name, _ in OURS:
        rows.append(
            Row(
                f"{sz.clients} clients x {sz.each} pipelined ({name})",
                round(_med(crowd[name], "rate")),
                round(base_crowd),
                "req/s",
                "min",
                0.5,
                note=_spread(crowd[name], crowd["baseline"], "rate"),
            )
        )
    for name, _ in OURS:
        rows.append(
            Row(
                f"daemon CPU per pipelined request ({name})",
                _cpu_us(piped[name], sz.pipelined),
                _cpu_us(piped["baseline"], sz.pipelined),
                "us",
                "info",
                note="the daemon's user+sys time over all rounds / requests; load-independent",
            )
        )
        rows.append(
            Row(
                f"daemon CPU per request, {sz.clients} clients ({name})",
                _cpu_us(crowd[name], sz.clients * sz.each),
                _cpu_us(crowd["baseline"], sz.clients * sz.each),
                "us",
                "info",
            )
        )
    return rows
