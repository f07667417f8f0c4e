"""MCP adapter latency: a tools/call round trip through venom-mcp vs direct socket calls.

Measured against venom_proto's demo daemon (verb ``echo``), one request at a time:
- ``mcp_call_ms``: tools/call over the adapter's stdio pipes (raw JSON-RPC lines);
- ``direct_call_ms``: the same verb on one open AsyncClient connection (what the adapter's
  shared upstream connection pays per call, so ``mcp_call_ms - direct_call_ms`` is the MCP
  layer itself);
- ``direct_connect_call_ms``: connect + hello + call + close per call (what a connection per
  call would cost; the adapter did that until it kept one connection open);
- ``startup_ms``: adapter spawn to its ``initialize`` reply;
- ``revisions``: ``mcp_call_ms`` at each MCP revision the adapter is held to (2026-07-28 with
  its per-request ``_meta`` envelope and no ``initialize``), and with a ``progressToken``.
Run ``python bench/bench_mcp.py``; ``--before DIR`` also runs the adapter whose ``venom_mcp``
package is in ``DIR`` (say ``git archive`` of an older commit), interleaved with this one, and
prints both per revision (issue 26: none worse than before).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parents[1]
MODEL = ROOT / "packages" / "venom-mcp" / "tests" / "fixtures" / "model.json"
CALLS = 300
STARTS = 5

INIT: dict[str, Any] = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"},
    },
}
REVISIONS = ("2025-06-18", "2025-11-25", "2026-07-28")
STATELESS = "2026-07-28"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": STATELESS,
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def _start_adapter(
    sock: str, revision: str = "2025-06-18", source: Path | None = None
) -> tuple[subprocess.Popen[bytes], float]:
    """The adapter, initialized at ``revision`` (none for the stateless one); ``source`` is a
    directory whose ``venom_mcp`` is imported instead of the installed one."""
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(source), env.get("PYTHONPATH")]))
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "venom_mcp", str(MODEL), "--socket", sock],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    if revision == STATELESS:
        opening = {"jsonrpc": "2.0", "id": 0, "method": "server/discover"}
        opening["params"] = {"_meta": ENVELOPE}
    else:
        opening = {**INIT, "params": {**INIT["params"], "protocolVersion": revision}}
    proc.stdin.write(_line(opening))
    proc.stdin.flush()
    proc.stdout.readline()
    startup = time.perf_counter() - t0
    if revision != STATELESS:
        proc.stdin.write(_line({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        proc.stdin.flush()
    return proc, startup


def _stop_adapter(proc: subprocess.Popen[bytes]) -> None:
    assert proc.stdin is not None
    proc.stdin.close()
    proc.wait(10)


def _mcp_latencies(
    sock: str,
    revision: str = "2025-06-18",
    *,
    progress: bool = False,
    source: Path | None = None,
) -> list[float]:
    proc, _ = _start_adapter(sock, revision, source)
    assert proc.stdin is not None
    assert proc.stdout is not None
    out = []
    params: dict[str, Any] = {"name": "echo", "arguments": {"text": "hello world"}}
    meta: dict[str, Any] = {**(ENVELOPE if revision == STATELESS else {})}
    if progress:
        meta["progressToken"] = "bench"
    if meta:
        params["_meta"] = meta
    for i in range(1, CALLS + 1):
        msg = _line({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": params})
        t0 = time.perf_counter()
        proc.stdin.write(msg)
        proc.stdin.flush()
        reply = json.loads(proc.stdout.readline())
        out.append(time.perf_counter() - t0)
        assert reply["result"]["isError"] is False, reply
    _stop_adapter(proc)
    return out


async def _direct_latencies(sock: str) -> tuple[list[float], list[float]]:
    from venom_proto.client import AsyncClient

    def client() -> AsyncClient:
        return AsyncClient(sock, client_name="bench", client_version="0")

    params = {"text": "hello world", "style": "plain"}
    kept = []
    async with client() as c:
        for _ in range(CALLS):
            t0 = time.perf_counter()
            await c.call("echo", params)
            kept.append(time.perf_counter() - t0)
    fresh = []
    for _ in range(CALLS):
        t0 = time.perf_counter()
        async with client() as c:
            await c.call("echo", params)
        fresh.append(time.perf_counter() - t0)
    return kept, fresh


def _ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 3)


def run() -> dict[str, Any]:
    """Medians in milliseconds (see the module docstring)."""
    sys.path.insert(0, str(ROOT))
    from bench._util import daemon, demo_argv, short_tmpdir

    with short_tmpdir() as tmp:
        sock = str(tmp / "venom-echo.sock")
        with daemon(demo_argv(sock), sock):
            mcp = _mcp_latencies(sock)
            revisions = {
                **{r: _ms(_mcp_latencies(sock, r)) for r in REVISIONS},
                **{f"{r} progress": _ms(_mcp_latencies(sock, r, progress=True)) for r in REVISIONS},
            }
            kept, fresh = anyio.run(_direct_latencies, sock)
            starts = []
            for _ in range(STARTS):
                proc, startup = _start_adapter(sock)
                _stop_adapter(proc)
                starts.append(startup)

    return {
        "mcp_call_ms": _ms(mcp),
        "direct_call_ms": _ms(kept),
        "direct_connect_call_ms": _ms(fresh),
        "startup_ms": _ms(starts),
        "revisions": revisions,
    }


def compare(before: Path, rounds: int = 3) -> dict[str, dict[str, float]]:
    """Median ``tools/call`` ms per revision for the adapter in ``before`` and this one, the
    two taking turns ``rounds`` times against one daemon, plus the direct call."""
    sys.path.insert(0, str(ROOT))
    from bench._util import daemon, demo_argv, short_tmpdir

    samples: dict[str, dict[str, list[float]]] = {"before": {}, "after": {}}
    with short_tmpdir() as tmp:
        sock = str(tmp / "venom-echo.sock")
        with daemon(demo_argv(sock), sock):
            direct: list[float] = []
            for turn in range(rounds):
                for r in REVISIONS:
                    # Each revision's pair back to back, the order swapped every round, so a
                    # drift in the machine's load falls on both alike.
                    pair = [("before", before), ("after", None)]
                    for name, source in pair[:: 1 if turn % 2 == 0 else -1]:
                        got = _mcp_latencies(sock, r, source=source)
                        samples[name].setdefault(r, []).extend(got)
                direct += anyio.run(_direct_latencies, sock)[0]
    table = {name: {r: _ms(v) for r, v in runs.items()} for name, runs in samples.items()}
    table["direct"] = {r: _ms(direct) for r in REVISIONS}
    return table


if __name__ == "__main__":
    os.chdir(ROOT)
    if len(sys.argv) == 3 and sys.argv[1] == "--before":
        print(json.dumps(compare(Path(sys.argv[2]).resolve()), indent=2))
    else:
        print(json.dumps(run(), indent=2))
