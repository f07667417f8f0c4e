"""Load: many connections, deep pipelines with random cancels, many event subscribers."""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import Counter
from typing import Any

from soak_kit import FIGURES, TIMEOUT, EchoDaemon, LineConn, request_line, scale

CONNECTIONS = scale(1000, 1000)
CALLS_PER_CONNECTION = scale(2, 5)
PIPELINE_CLIENTS = scale(20, 100)
PIPELINE_DEPTH = scale(200, 1000)
SUBSCRIBERS = scale(20, 100)
ECHO_CLIENTS = 10
#: Events per echo client; 10 x 400 stays under the 4096-event ring, so no gap is legitimate.
ECHOES_EACH = scale(100, 400)


def run(coro: Any, timeout: float = 300.0) -> Any:
    async def bounded() -> Any:
        return await asyncio.wait_for(coro, timeout)

    return asyncio.run(bounded())


async def _connections(path: str) -> None:
    conns = await asyncio.gather(*(LineConn.open(path) for _ in range(CONNECTIONS)))

    async def calls(i: int, conn: LineConn) -> None:
        await conn.send(
            b"".join(
                request_line(j, "echo", {"text": f"c{i}.{j}"}) for j in range(CALLS_PER_CONNECTION)
            )
        )
        seen: Counter[int] = Counter()
        for _ in range(CALLS_PER_CONNECTION):
            reply = await conn.line()
            assert reply is not None, f"connection {i}: EOF"
            seen[reply["id"]] += 1
            assert reply["ok"] == {"text": f"c{i}.{reply['id']}"}, reply
        assert seen == Counter(range(CALLS_PER_CONNECTION)), seen
        await conn.close()

    await asyncio.gather(*(calls(i, c) for i, c in enumerate(conns)))


def test_concurrent_connections_each_answered_once(daemon: EchoDaemon) -> None:
    """RFC-0002 §4.2: every request on every one of many open connections gets one reply."""
    start = time.perf_counter()
    run(_connections(daemon.socket))
    took = time.perf_counter() - start
    FIGURES[f"{CONNECTIONS} concurrent connections x {CALLS_PER_CONNECTION} calls"] = (
        f"{took:.2f} s, all answered once"
    )


async def _pipeline_client(path: str, seed: int) -> Counter[str]:
    """Pipelines PIPELINE_DEPTH requests (1 in 10 a stream) and cancels random streams."""
    rng = random.Random(seed)
    conn = await LineConn.open(path)
    reply = await conn.call("hello", {"proto": [1], "caps": ["cancel"]}, id_="h")
    assert "ok" in reply, reply
    streams: list[int] = []
    cancels: dict[str, int] = {}
    out: list[bytes] = []
    for i in range(PIPELINE_DEPTH):
        if i % 10 == 0:
            streams.append(i)
            out.append(request_line(i, "echo.repeat", {"text": "s", "count": 20, "interval_ms": 2}))
        else:
            out.append(request_line(i, "echo", {"text": f"p{i}"}))
        if streams and rng.random() < 0.05:
            target = rng.choice(streams)
            cancels[f"c{i}"] = target
            out.append(request_line(f"c{i}", "cancel", {"id": target}))
    finals: Counter[Any] = Counter()
    results: dict[Any, dict[str, Any]] = {}
    order: dict[Any, int] = {}

    async def writer() -> None:
        for k in range(0, len(out), 50):
            await conn.send(b"".join(out[k : k + 50]))
            await asyncio.sleep(rng.random() * 0.003)

    task = asyncio.create_task(writer())
    expected = PIPELINE_DEPTH + len(cancels)
    n = 0
    while sum(finals.values()) < expected:
        reply = await conn.line()
        assert reply is not None, "EOF before every final reply"
        n += 1
        rid = reply["id"]
        if "item" in reply:
            assert isinstance(rid, int), reply
            assert rid in streams, reply
            assert finals[rid] == 0, f"item after the final reply: {reply}"
            continue
        finals[rid] += 1
        results[rid] = reply
        order[rid] = n
    await task
    assert all(count == 1 for count in finals.values()), "a request got two final replies"
    assert set(finals) == set(range(PIPELINE_DEPTH)) | set(cancels)
    tally: Counter[str] = Counter()
    for cid, target in cancels.items():
        answer = results[cid]
        final = results[target]
        if answer.get("ok", 0) is None:  # the cancel took effect: target ended cancelled first
            assert final["error"]["code"] == "cancelled", final
            assert order[target] < order[cid]
            tally["cancel took effect"] += 1
        else:
            assert answer["error"]["code"] == "not_found.request", answer
            tally["cancel too late"] += 1
    for rid in range(PIPELINE_DEPTH):
        final = results[rid]
        if rid in streams and "error" in final:
            assert final["error"]["code"] == "cancelled", final
            assert rid in cancels.values()
        elif rid in streams:
            assert final["ok"] == {"count": 20}, final
        else:
            assert final["ok"] == {"text": f"p{rid}"}, final
    await conn.close()
    return tally


async def _pipelines(path: str) -> Counter[str]:
    tallies = await asyncio.gather(*(_pipeline_client(path, s) for s in range(PIPELINE_CLIENTS)))
    return sum(tallies, Counter())


def test_pipelined_clients_with_random_cancels(daemon: EchoDaemon) -> None:
    """RFC-0002 §4.2, §4.4: one final reply per request and one answer per cancel, in order."""
    start = time.perf_counter()
    tally = run(_pipelines(daemon.socket))
    took = time.perf_counter() - start
    assert tally["cancel took effect"] > 0
    FIGURES[f"{PIPELINE_CLIENTS} clients x {PIPELINE_DEPTH} pipelined, random cancels"] = (
        f"{took:.2f} s; cancels effective {tally['cancel took effect']}, "
        f"too late {tally['cancel too late']}"
    )


async def _subscriber(path: str, total: int, ready: asyncio.Event) -> list[dict[str, Any]]:
    conn = await LineConn.open(path)
    params = {"types": ["echo.echoed"], "cursor": 0, "follow": True}
    await conn.send(request_line("sub", "events", params))
    ready.set()
    items: list[dict[str, Any]] = []
    while len(items) < total:
        reply = await conn.line(TIMEOUT)
        assert reply is not None, "EOF on a subscription"
        assert "item" in reply, reply
        items.append(reply["item"])
    await conn.close()
    return items


async def _echo_client(path: str, k: int) -> None:
    conn = await LineConn.open(path)
    await conn.send(
        b"".join(request_line(j, "echo", {"text": f"e{k}.{j}"}) for j in range(ECHOES_EACH))
    )
    for _ in range(ECHOES_EACH):
        reply = await conn.line()
        assert reply is not None
        assert "ok" in reply, reply
    await conn.close()


async def _events(path: str) -> list[list[dict[str, Any]]]:
    total = ECHO_CLIENTS * ECHOES_EACH
    ready = [asyncio.Event() for _ in range(SUBSCRIBERS)]
    subs = [asyncio.create_task(_subscriber(path, total, r)) for r in ready]
    await asyncio.gather(*(r.wait() for r in ready))
    await asyncio.gather(*(_echo_client(path, k) for k in range(ECHO_CLIENTS)))
    return list(await asyncio.gather(*subs))


def test_event_subscribers_see_every_event_once_in_order(daemon: EchoDaemon) -> None:
    """rfcs/0003-events.md §2, §3: every subscriber gets every event once, in seq order."""
    start = time.perf_counter()
    seen = run(_events(daemon.socket))
    took = time.perf_counter() - start
    expected = {f"e{k}.{j}" for k in range(ECHO_CLIENTS) for j in range(ECHOES_EACH)}
    for items in seen:
        seqs = [item["seq"] for item in items]
        assert all(item["type"] == "echo.echoed" for item in items), "gap or foreign event"
        assert seqs == sorted(set(seqs)), "out of order or duplicated"
        texts = Counter(json.loads(item["data"])["text"] for item in items)
        assert texts == Counter(expected), "an event missing or seen twice"
    FIGURES[f"{SUBSCRIBERS} subscribers x {len(expected)} events"] = (
        f"{took:.2f} s, each saw all once in seq order"
    )
