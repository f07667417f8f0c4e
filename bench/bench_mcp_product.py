"""Start-up of the product's MCP server: ``venom-echo mcp`` spawn to its ``initialize`` reply.

bench_mcp.py (venom-mcp's own bench) times ``python -m venom_mcp`` on the demo daemon; this
times the path a user configures in an MCP client: the console script, against
``venom-echo serve``.
"""

from __future__ import annotations

import json
import subprocess
import threading
import time

from bench._util import (
    VENV_BIN,
    Row,
    echo_argv,
    isolated_env,
    median,
    run_daemon,
    short_tmpdir,
)

__all__ = ("run",)

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
TIMEOUT = 20.0


def _startup(argv: list[str], env: dict[str, str]) -> float:
    """Seconds from spawn to the initialize reply line; the adapter is then shut down."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    # A hung adapter is killed, which ends the blocking readline with EOF.
    watchdog = threading.Timer(TIMEOUT, proc.kill)
    watchdog.start()
    try:
        assert proc.stdin is not None
        assert proc.stdout is not None
        proc.stdin.write(json.dumps(INIT).encode() + b"\n")
        proc.stdin.flush()
        reply = proc.stdout.readline()
        elapsed = time.perf_counter() - t0
        if b'"result"' not in reply:
            raise RuntimeError(f"no initialize result from {argv}: {reply[:300]!r}")
        return elapsed
    finally:
        watchdog.cancel()
        if proc.stdin is not None:
            proc.stdin.close()
        try:
            proc.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(TIMEOUT)


def run(starts: int = 5) -> list[Row]:
    """One orientation row: median start-up of ``venom-echo mcp`` in milliseconds."""
    with short_tmpdir() as tmp:
        env = isolated_env(tmp)
        sock = str(tmp / "echo.sock")
        argv = [str(VENV_BIN / "venom-echo"), "mcp", "--socket", sock]
        with run_daemon("venom-echo", echo_argv(sock), sock, env):
            if starts > 1:  # warm the .pyc files (skipped by the one-start smoke test)
                _startup(argv, env)
            samples = [_startup(argv, env) for _ in range(starts)]
    return [
        Row(
            "venom-echo mcp start-up to initialize reply",
            round(median(samples) * 1000, 1),
            0.0,
            "ms",
            "info",
        )
    ]
