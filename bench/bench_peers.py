"""Peer benchmarks: venom-echo against what a user would pick instead, on this machine.

Peers, each serving the same ``{"text": "hello world"}`` echo on a Unix socket: gRPC (grpcio,
``grpc.aio`` server, ``unix:`` address), python-varlink (threading server), JSON-RPC 2.0 on a
plain asyncio streams server, and socat's C ``EXEC:cat`` line echo as the floor. The MCP path
compares ``venom-echo mcp`` with the MCP SDK's own ``MCPServer``, both driven by the SDK client.
Needs the ``peers`` dependency group (grpcio, grpcio-tools, varlink) and socat on PATH.

Every load client runs in its own process; each round measures every peer once, in rotated
order, and rows report medians over the rounds. Run ``python -m bench.bench_peers``.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import shutil
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bench._util import (
    PYTHON,
    ROOT,
    VENV_BIN,
    Row,
    echo_argv,
    isolated_env,
    pinned,
    run_daemon,
    short_tmpdir,
)
from bench.peers import oneshot

__all__ = ("PEERS", "Sizes", "run")

HERE = ROOT / "bench" / "peers"
TIMEOUT = 120.0
PEERS = ("venom", "grpc", "varlink", "jsonrpc", "socat")


@dataclass(frozen=True)
class Sizes:
    """How much work a run does; a smoke test shrinks these."""

    rounds: int = 5
    sequential: int = 2000
    pipelined: int = 50_000
    clients: int = 100
    each: int = 500
    # gRPC's Python client manages ~5,000 calls/s, so it gets fewer calls (rates stay rates).
    grpc_pipelined: int = 10_000
    grpc_window: int = 100  # calls in flight on the one gRPC channel
    grpc_each: int = 100
    grpc_many_window: int = 10  # per channel; grpc.aio's client cancels calls at ~2000 in flight
    oneshot_runs: int = 15
    mcp_calls: int = 300
    mcp_concurrent: int = 200
    mcp_oneshot_runs: int = 6


def run_json(
    argv: Sequence[str], env: dict[str, str], timeout: float = TIMEOUT, *, pin: bool = True
) -> dict[str, float]:
    """Run a client process to completion and parse the one JSON object it prints.

    ``pin``: on the client CPU (bench/_util.pinned). The MCP rows leave it off: there the
    client spawns the server, and both would share one core.
    """
    out = subprocess.run(
        list(argv),
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        preexec_fn=pinned("client") if pin else None,
    )
    if out.returncode != 0:
        raise RuntimeError(f"{argv[:4]} failed: {out.stderr.strip()[-2000:]}")
    result: dict[str, float] = json.loads(out.stdout)
    return result


def wall_time(
    argv: Sequence[str], env: dict[str, str], stdin: bytes = b"", *, pin: bool = True
) -> float:
    """Seconds from spawn to exit of one process, which must print ``hi``."""
    t0 = time.perf_counter()
    out = subprocess.run(
        list(argv),
        env=env,
        input=stdin,
        capture_output=True,
        timeout=30,
        check=False,
        preexec_fn=pinned("client") if pin else None,
    )
    elapsed = time.perf_counter() - t0
    if out.returncode != 0 or b"hi" not in out.stdout:
        raise RuntimeError(f"{argv} failed ({out.returncode}): {out.stdout!r} {out.stderr!r}")
    return elapsed


def make_stubs(out: Path, env: dict[str, str]) -> None:
    """Generate echo_pb2*.py from echo.proto with grpcio-tools (never committed)."""
    out.mkdir()
    argv = [PYTHON, "-m", "grpc_tools.protoc", f"-I{HERE}", f"--python_out={out}"]
    argv += [f"--grpc_python_out={out}", str(HERE / "echo.proto")]
    subprocess.run(argv, env=env, check=True, timeout=60, capture_output=True)


def server_argv(peer: str, sock: str, stubs: Path) -> list[str]:
    if peer == "venom":
        return echo_argv(sock)
    if peer == "grpc":
        return [PYTHON, str(HERE / "grpc_peer.py"), str(stubs), "serve", sock]
    if peer == "socat":
        return ["socat", f"UNIX-LISTEN:{sock},fork,backlog=128", "EXEC:cat"]
    return [PYTHON, str(HERE / f"{peer}_server.py"), sock]


def load_argv(peer: str, mode: str, sock: str, stubs: Path, sz: Sizes) -> list[str]:
    """The client process for one measurement; grpc needs its own library, the rest raw bytes."""
    if peer == "grpc":
        numbers = {
            "sequential": [sz.sequential],
            "pipeline": [sz.grpc_pipelined, sz.grpc_window],
            "many": [sz.clients, sz.grpc_each, sz.grpc_many_window],
        }[mode]
        return [PYTHON, str(HERE / "grpc_peer.py"), str(stubs), mode, sock, *map(str, numbers)]
    numbers = {
        "sequential": [sz.sequential],
        "pipeline": [sz.pipelined],
        "many": [sz.clients, sz.each],
    }[mode]
    return [PYTHON, str(HERE / "wire_load.py"), peer, mode, sock, *map(str, numbers)]


def oneshot_argv(peer: str, sock: str, tmp: Path, stubs: Path) -> list[str]:
    if peer == "venom":
        return [str(VENV_BIN / "venom-echo"), "echo", "--text", "hi", "--socket", sock]
    if peer == "socat":
        return ["socat", "-", f"UNIX-CONNECT:{sock}"]
    script = (stubs if peer == "grpc" else tmp) / f"oneshot_{peer}.py"
    script.write_text(getattr(oneshot, peer.upper()))
    return [PYTHON, str(script), sock]


def rotated(names: Sequence[str], index: int) -> list[str]:
    """The round's order: rotate so no peer always runs right after another's burst."""
    k = index % len(names)
    return [*names[k:], *names[:k]]


Samples = dict[str, list[dict[str, float]]]


def rounds(names: Sequence[str], count: int, measure: Callable[[str], dict[str, float]]) -> Samples:
    out: Samples = {n: [] for n in names}
    for index in range(count):
        for name in rotated(names, index):
            out[name].append(measure(name))
    return out


def socket_peers(tmp: Path, env: dict[str, str], sz: Sizes, peers: Sequence[str]) -> Samples:
    """Sequential, pipelined and 100-client figures plus one-shot wall times, per peer."""
    stubs = tmp / "stubs"
    make_stubs(stubs, env)
    socks = {p: str(tmp / f"{p}.sock") for p in peers}
    with contextlib.ExitStack() as stack:
        for p in peers:
            stack.enter_context(run_daemon(p, server_argv(p, socks[p], stubs), socks[p], env))
        samples: Samples = {p: [] for p in peers}
        for mode in ("sequential", "pipeline", "many"):

            def measure(p: str, mode: str = mode) -> dict[str, float]:
                return run_json(load_argv(p, mode, socks[p], stubs, sz), env)

            got = rounds(peers, sz.rounds, measure)
            for p in peers:
                samples[p] += [{f"{mode}_{k}": v for k, v in s.items()} for s in got[p]]
        # The same sequential loop through each stack's own client library (gRPC's is above).
        library = [p for p in ("venom", "varlink") if p in peers]
        script = str(HERE / "library_clients.py")
        got = rounds(
            library,
            sz.rounds,
            lambda p: run_json([PYTHON, script, p, socks[p], str(sz.sequential)], env),
        )
        for p in library:
            samples[p] += [{f"library_{k}": v for k, v in s.items()} for s in got[p]]
        programs = {p: oneshot_argv(p, socks[p], tmp, stubs) for p in peers}
        programs["python -c pass"] = [PYTHON, "-c", "print('hi')"]
        stdin = {"socat": b"hi\n"}
        for name, argv in programs.items():  # warm the page cache and .pyc files
            wall_time(argv, env, stdin.get(name, b""))
        shots = rounds(
            list(programs),
            sz.oneshot_runs,
            lambda p: {"oneshot_s": wall_time(programs[p], env, stdin.get(p, b""))},
        )
    for p, runs in shots.items():
        samples.setdefault(p, []).extend(runs)
    return samples


def mcp_peers(tmp: Path, env: dict[str, str], sz: Sizes) -> Samples:
    """``venom-echo mcp`` (over the daemon) vs the SDK's MCPServer, both via the SDK client."""
    sock = str(tmp / "mcp-venom.sock")
    servers = {
        "venom": [str(VENV_BIN / "venom-echo"), "mcp", "--socket", sock],
        "mcp": [PYTHON, str(HERE / "mcp_server.py")],
    }
    client = [PYTHON, str(HERE / "mcp_client.py"), str(sz.mcp_calls), str(sz.mcp_concurrent)]
    script = tmp / "oneshot_mcp.py"
    script.write_text(oneshot.MCP)
    with run_daemon("venom", echo_argv(sock), sock, env):
        got = rounds(
            list(servers),
            sz.rounds,
            lambda p: run_json([*client, "--", *servers[p]], env, pin=False),
        )
        for argv in servers.values():
            wall_time([PYTHON, str(script), *argv], env, pin=False)
        shots = rounds(
            list(servers),
            sz.mcp_oneshot_runs,
            lambda p: {"oneshot_s": wall_time([PYTHON, str(script), *servers[p]], env, pin=False)},
        )
    return {p: [*got[p], *shots[p]] for p in servers}


def run(sizes: Sizes | None = None) -> list[Row]:
    """The peer table (see docs/peer-benchmarks.md)."""
    from bench.peers.rows import mcp_rows, socket_rows

    sz = sizes or Sizes()
    peers = [p for p in PEERS if p != "socat" or shutil.which("socat")]
    with short_tmpdir() as tmp:
        env = isolated_env(tmp)
        wire = socket_peers(tmp, env, sz, peers)
        mcp = mcp_peers(tmp, env, sz)
    return socket_rows(wire) + mcp_rows(mcp)


def main() -> None:
    """Print the table and save ``bench/peers/results.json`` (with the machine's load)."""
    from bench._util import format_table

    load_before, started = os.getloadavg()[0], time.monotonic()
    rows = run()
    print(format_table(rows))
    for r in rows:
        if r.note:
            print(f"  {r.name}: {r.note}")
    report = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "python": platform.python_version(),
        "machine": f"{platform.machine()}, {os.cpu_count()} cpus",
        "loadavg_1m": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "seconds": round(time.monotonic() - started, 1),
        "rows": [r.to_json() for r in rows],
    }
    print(f"load average before/after: {report['loadavg_1m']}, {report['seconds']} s")
    (ROOT / "bench" / "peers" / "results.json").write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
