"""MCP adapter latency: a tools/call round trip through venom-mcp vs direct socket calls.

Measured against venom_proto's demo daemon (verb ``echo``), one request at a time:
- ``mcp_call_ms``: tools/call over the adapter's stdio pipes (raw JSON-RPC lines);
- ``direct_call_ms``: the same verb on one open AsyncClient connection (what the adapter's
  shared upstream connection pays per call, so ``mcp_call_ms - direct_call_ms`` is the MCP
  layer itself);
- ``direct_connect_call_ms``: connect + hello + call + close per call (what a connection per
  call would cost; the adapter did that until it kept one connection open);
- ``startup_ms``: adapter spawn to its ``initialize`` reply.
Run ``python bench/bench_mcp.py``.
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

INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"},
    },
}


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def _start_adapter(sock: str) -> tuple[subprocess.Popen[bytes], float]:
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "venom_mcp", str(MODEL), "--socket", sock],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    proc.stdin.write(_line(INIT))
    proc.stdin.flush()
    proc.stdout.readline()
    startup = time.perf_counter() - t0
    proc.stdin.write(_line({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    proc.stdin.flush()
    return proc, startup


def _stop_adapter(proc: subprocess.Popen[bytes]) -> None:
    assert proc.stdin is not None
    proc.stdin.close()
    proc.wait(10)


def _mcp_latencies(sock: str) -> list[float]:
    proc, _ = _start_adapter(sock)
    assert proc.stdin is not None
    assert proc.stdout is not None
    out = []
    params = {"name": "echo", "arguments": {"text": "hello world"}}
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


def run() -> dict[str, float]:
    """Medians in milliseconds (see the module docstring)."""
    sys.path.insert(0, str(ROOT))
    from bench._util import daemon, demo_argv, short_tmpdir

    with short_tmpdir() as tmp:
        sock = str(tmp / "venom-echo.sock")
        with daemon(demo_argv(sock), sock):
            mcp = _mcp_latencies(sock)
            kept, fresh = anyio.run(_direct_latencies, sock)
            starts = []
            for _ in range(STARTS):
                proc, startup = _start_adapter(sock)
                _stop_adapter(proc)
                starts.append(startup)

    def ms(samples: list[float]) -> float:
        return round(statistics.median(samples) * 1000, 3)

    return {
        "mcp_call_ms": ms(mcp),
        "direct_call_ms": ms(kept),
        "direct_connect_call_ms": ms(fresh),
        "startup_ms": ms(starts),
    }


if __name__ == "__main__":
    os.chdir(ROOT)
    print(json.dumps(run(), indent=2))
