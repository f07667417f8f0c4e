"""The MCP load client: ``python mcp_client.py N CONCURRENT -- SERVER_ARGV...``, own process.

Drives any MCP stdio server through the MCP SDK's own ``Client`` (the one a user would use):
spawn + initialize (``connect_s``), then N sequential ``tools/call echo`` (``median_s``,
``p99_s``), then CONCURRENT calls in flight at once on the same session (``rate``, the MCP
analogue of pipelining). Prints one JSON object. Every call must echo the text back.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

TEXT = "hello world"
DEADLINE = 100.0


def _check(result: Any) -> None:
    if result.is_error or TEXT not in json.dumps(result.structured_content):
        raise RuntimeError(f"bad tools/call result: {result!r}")


async def measure(n: int, concurrent: int, argv: list[str]) -> dict[str, float]:
    params = StdioServerParameters(command=argv[0], args=argv[1:])
    t0 = time.perf_counter()
    with anyio.fail_after(DEADLINE):
        async with Client(params) as client:
            connect = time.perf_counter() - t0
            _check(await client.call_tool("echo", {"text": TEXT}))  # warm-up, untimed
            samples = []
            for _ in range(n):
                t1 = time.perf_counter()
                result = await client.call_tool("echo", {"text": TEXT})
                samples.append(time.perf_counter() - t1)
                _check(result)

            async def one() -> None:
                _check(await client.call_tool("echo", {"text": TEXT}))

            t2 = time.perf_counter()
            async with anyio.create_task_group() as tg:
                for _ in range(concurrent):
                    tg.start_soon(one)
            elapsed = time.perf_counter() - t2
    samples.sort()
    return {
        "connect_s": connect,
        "median_s": samples[n // 2],
        "p99_s": samples[min(n - 1, int(n * 0.99))],
        "rate": concurrent / elapsed,
    }


def main(argv: list[str]) -> int:
    n, concurrent, sep, *server = argv
    if sep != "--" or not server:
        raise SystemExit("usage: mcp_client.py N CONCURRENT -- SERVER_ARGV...")
    print(json.dumps(anyio.run(measure, int(n), int(concurrent), server)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
