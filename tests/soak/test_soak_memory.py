"""Resident memory of the daemon over a long run of requests stays flat."""

from __future__ import annotations

import asyncio
import time

from soak_kit import FIGURES, EchoDaemon, request_line, scale

TOTAL = scale(100_000, 1_000_000)
WARM = 10_000
CONNECTIONS = 4
BATCH = 500
#: Allowed RSS growth from the 10k mark to the end: flat, give or take allocator noise.
GROWTH_LIMIT_KB = 8 * 1024


async def _load(path: str, total: int, marks: dict[int, int], daemon: EchoDaemon) -> None:
    batch = b"".join(request_line(i, "echo", {"text": f"m{i}"}) for i in range(BATCH))
    done = 0

    async def worker() -> None:
        nonlocal done
        reader, writer = await asyncio.open_unix_connection(path, limit=1 << 22)
        try:
            while done < total:
                writer.write(batch)
                await writer.drain()
                got = 0
                while got < BATCH:
                    chunk = await asyncio.wait_for(reader.read(1 << 16), 30)
                    assert chunk, "EOF under load"
                    assert b'"error"' not in chunk, chunk[:200]
                    got += chunk.count(b"\n")
                assert got == BATCH, "more replies than requests"
                done += BATCH
                if not marks and done >= WARM:
                    marks[done] = daemon.rss_kb()
        finally:
            writer.close()

    await asyncio.wait_for(asyncio.gather(*(worker() for _ in range(CONNECTIONS))), 900)


def test_rss_stays_flat_over_many_requests(daemon: EchoDaemon) -> None:
    """Memory does not grow with the number of requests served (no per-request leak)."""
    marks: dict[int, int] = {}
    start = time.perf_counter()
    asyncio.run(_load(daemon.socket, TOTAL, marks, daemon))
    took = time.perf_counter() - start
    ((warm_count, warm_rss),) = marks.items()
    end_rss = daemon.rss_kb()
    FIGURES[f"RSS after {warm_count:,} requests"] = f"{warm_rss / 1024:.1f} MiB"
    FIGURES[f"RSS after {TOTAL:,} requests"] = (
        f"{end_rss / 1024:.1f} MiB ({TOTAL / took:,.0f} req/s over {CONNECTIONS} pipelines)"
    )
    assert end_rss - warm_rss < GROWTH_LIMIT_KB, (warm_rss, end_rss)
