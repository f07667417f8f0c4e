"""Concurrency, streaming and cancellation over a real socket (RFC-0002 4.3, 4.4, 4.5)."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from typing import Any

import orjson
import pytest


@pytest.fixture
def peer(serve: Any, peers: Any, sock_path: str, hello_cancel: dict[str, Any]) -> Any:
    serve()
    p = peers(sock_path)
    assert "ok" in p.call(hello_cancel)
    return p


def _lines(*objs: Any) -> bytes:
    return b"".join(orjson.dumps(o) + b"\n" for o in objs)


def test_pipelined_async_calls_finish_out_of_order(peer: Any) -> None:
    """RFC-0002 §4.3: pipelined requests may complete out of order; ids match them up."""
    peer.send(
        _lines(
            {"id": 1, "verb": "sleep", "params": {"ms": 300}},
            {"id": 2, "verb": "sleep", "params": {"ms": 50}},
            {"id": 3, "verb": "echo", "params": {"text": "now"}},
        )
    )
    assert [peer.reply() for _ in range(3)] == [
        {"id": 3, "ok": {"text": "now"}},
        {"id": 2, "ok": {"slept": 50}},
        {"id": 1, "ok": {"slept": 300}},
    ]


def test_async_calls_run_concurrently(peer: Any) -> None:
    """RFC-0002 §4.3: ten 200 ms calls on one connection take about 200 ms, not 2 s."""
    start = time.monotonic()
    peer.send(_lines(*({"id": i, "verb": "sleep", "params": {"ms": 200}} for i in range(10))))
    assert sorted(peer.reply()["id"] for _ in range(10)) == list(range(10))
    assert time.monotonic() - start < 1.5


def test_stream_then_cancel_byte_for_byte(peer: Any) -> None:
    """RFC-0002 §4.4: the streaming and cancel exchange, byte for byte."""
    peer.send(b'{"id":7,"verb":"events","params":{"types":["pane.*"]}}\n')
    assert peer.line() == (
        b'{"id":7,"item":{"seq":41,"type":"pane.created","data":{"pane":"p3"}}}\n'
    )
    assert peer.line() == (
        b'{"id":7,"item":{"seq":42,"type":"pane.exited","data":{"pane":"p3","status":0}}}\n'
    )
    peer.send(b'{"id":8,"verb":"cancel","params":{"id":7}}\n')
    assert peer.line() == b'{"id":7,"error":{"code":"cancelled","message":"cancelled by client"}}\n'
    assert peer.line() == b'{"id":8,"ok":null}\n'
    # The id is free again and the connection is healthy.
    assert peer.call({"id": 7, "verb": "ping"}) == {"id": 7, "ok": {}}


def test_stream_items_precede_the_final_response(peer: Any) -> None:
    """RFC-0002 §4.3: items in order, then exactly one final response."""
    peer.request({"id": "s", "verb": "count", "params": {"n": 500}})
    replies = [peer.reply() for _ in range(501)]
    assert replies[:-1] == [{"id": "s", "item": i} for i in range(500)]
    assert replies[-1] == {"id": "s", "ok": {"count": 500}}
    assert peer.call({"id": 1, "verb": "ping"}) == {"id": 1, "ok": {}}


def test_cancel_unknown_or_finished_request(peer: Any) -> None:
    """RFC-0002 §4.5: cancelling an id that is not in flight returns not_found.request."""
    assert peer.call({"id": 1, "verb": "echo", "params": {"text": "done"}})["ok"]
    for target in (1, "never"):
        reply = peer.call({"id": 2, "verb": "cancel", "params": {"id": target}})
        assert reply["error"]["code"] == "not_found.request"
        assert reply["error"]["data"] == {"id": target}


def test_cancel_param_errors(peer: Any) -> None:
    """RFC-0002 §4.5: cancel takes {"id": <request id>}."""
    assert peer.call({"id": 1, "verb": "cancel"})["error"]["code"] == "invalid_params.missing"
    reply = peer.call({"id": 1, "verb": "cancel", "params": {"id": [1]}})
    assert reply["error"]["code"] == "invalid_params.type"


def test_cancel_is_per_connection(peer: Any, peers: Any, sock_path: str, hello_cancel: Any) -> None:
    """RFC-0002 §4.5 (agent-contract impact): cancel reaches only the caller's own requests."""
    peer.request({"id": 1, "verb": "sleep", "params": {"ms": 300}})
    other = peers(sock_path)
    other.call(hello_cancel)
    reply = other.call({"id": 2, "verb": "cancel", "params": {"id": 1}})
    assert reply["error"]["code"] == "not_found.request"
    assert peer.reply() == {"id": 1, "ok": {"slept": 300}}


def test_duplicate_inflight_id(peer: Any) -> None:
    """RFC-0002 §4.6: a duplicate in-flight id is refused; the original request is unaffected."""
    peer.send(
        _lines(
            {"id": 5, "verb": "sleep", "params": {"ms": 200}},
            {"id": 5, "verb": "echo", "params": {"text": "dup"}},
        )
    )
    dup = peer.reply()
    assert dup["id"] == 5
    assert dup["error"]["code"] == "protocol.duplicate_id"
    assert peer.reply() == {"id": 5, "ok": {"slept": 200}}


def test_int_and_string_ids_are_distinct(peer: Any) -> None:
    """RFC-0002 §4.2: the id is echoed unchanged; 1 and "1" are different ids."""
    peer.send(
        _lines(
            {"id": 1, "verb": "sleep", "params": {"ms": 100}},
            {"id": "1", "verb": "sleep", "params": {"ms": 10}},
        )
    )
    assert [peer.reply()["id"] for _ in range(2)] == ["1", 1]


def test_inflight_bound_refuses_calls_but_reads_ping_and_cancel(
    serve: Any, peers: Any, sock_path: str
) -> None:
    """Issue 12 §2: past max_inflight new calls are refused, cancel and ping still read."""
    serve(max_inflight=4)
    p = peers(sock_path)
    p.call({"id": "h", "verb": "hello", "params": {"proto": [1], "caps": ["cancel"]}})
    p.send(_lines(*({"id": i, "verb": "sleep", "params": {"ms": 300}} for i in range(40))))
    p.send(_lines({"id": "p", "verb": "ping"}, {"id": "c", "verb": "cancel", "params": {"id": 0}}))
    got = [p.reply() for _ in range(36 + 3)]
    refused = [
        r["id"] for r in got if r.get("error", {}).get("code") == "unavailable.too_many_calls"
    ]
    assert refused == list(range(4, 40))
    assert {"id": "p", "ok": {}} in got
    assert {"id": "c", "ok": None} in got
    assert {"id": 0, "error": {"code": "cancelled", "message": "cancelled by client"}} in got
    assert sorted(p.reply()["id"] for _ in range(3)) == [1, 2, 3]


def test_half_close_answers_in_flight_then_closes(peer: Any) -> None:
    """RFC-0002 §4.3: a client that shuts its write side still gets every response."""
    peer.request({"id": 1, "verb": "sleep", "params": {"ms": 100}})
    peer.sock.shutdown(socket.SHUT_WR)
    assert peer.rest() == b'{"id":1,"ok":{"slept":100}}\n'


def test_slow_reader_is_paused_not_dropped_and_others_served(
    serve: Any, peers: Any, sock_path: str
) -> None:
    """RFC-0002 §4.3, issue 12 §2: a pipelining client that does not read stops being read;
    its unsent replies stay bounded (not 40 x 200 kB), other connections carry on, and it
    gets every reply, in order, once it reads."""
    server = serve(max_write_buffer=1024 * 1024).server
    slow = peers(sock_path)
    slow.send(_lines(*({"id": i, "verb": "big", "params": {"size": 200_000}} for i in range(40))))
    fast = peers(sock_path)
    for i in range(20):
        assert fast.call({"id": i, "verb": "ping"}) == {"id": i, "ok": {}}
    time.sleep(0.2)
    assert server.connection_count == 2
    daemon = server._daemon
    assert daemon is not None
    assert daemon.memory.output_total < 1024 * 1024
    assert [slow.reply()["id"] for _ in range(40)] == list(range(40))


def test_task_output_past_the_write_limit_drops_the_connection(
    serve: Any, peers: Any, sock_path: str
) -> None:
    """RFC-0002 §4.3: output written by tasks past max_write_buffer drops the slow reader."""
    server = serve(max_write_buffer=1024 * 1024).server
    slow = peers(sock_path)
    fast = peers(sock_path)
    assert fast.call({"id": 1, "verb": "ping"}) == {"id": 1, "ok": {}}
    slow.send(_lines(*({"id": i, "verb": "abig", "params": {"size": 200_000}} for i in range(40))))
    deadline = time.monotonic() + 5
    while server.connection_count > 1 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.connection_count == 1  # only the fast one is left
    received = 0
    try:
        while chunk := slow.sock.recv(1 << 20):
            received += len(chunk)
    except ConnectionResetError:
        pass
    assert received < 40 * 200_000  # the backlog was dropped, not delivered
    assert fast.call({"id": 99, "verb": "ping"}) == {"id": 99, "ok": {}}


def test_500_concurrent_connections(serve: Any, sock_path: str) -> None:
    """RFC-0002 §3, §4.3: connections are independent; 500 at once each make calls."""
    serve()

    async def one(n: int) -> list[Any]:
        reader, writer = await asyncio.open_unix_connection(sock_path)
        writer.write(
            _lines(
                {"id": 0, "verb": "hello", "params": {"proto": [1]}},
                {"id": 1, "verb": "echo", "params": {"text": f"c{n}"}},
                {"id": 2, "verb": "sleep", "params": {"ms": 20}},
            )
        )
        await writer.drain()
        replies = [orjson.loads(await reader.readline()) for _ in range(3)]
        writer.close()
        await writer.wait_closed()
        return replies

    async def main() -> list[list[Any]]:
        return await asyncio.wait_for(asyncio.gather(*(one(n) for n in range(500))), 20)

    results = asyncio.run(main())
    for n, (hello, echo, sleep) in enumerate(results):
        assert hello["ok"]["proto"] == 1
        assert echo == {"id": 1, "ok": {"text": f"c{n}"}}
        assert sleep == {"id": 2, "ok": {"slept": 20}}


def test_large_result_is_not_a_slow_reader(serve: Any, peers: Any, sock_path: str) -> None:
    """RFC-0002 §4.3: one result near max_frame is delivered even above max_write_buffer."""
    serve(max_write_buffer=64 * 1024)
    peer = peers(sock_path)
    reply = peer.call({"id": 1, "verb": "big", "params": {"size": 1_000_000}})
    assert reply == {"id": 1, "ok": "x" * 1_000_000}


def test_client_gone_mid_stream_cancels_the_handler(serve: Any, sock_path: str) -> None:
    """RFC-0002 §4.4: a stream ends when its connection closes: the handler task is cancelled."""
    from venom_proto import Call, Server, VerbHandler

    started = threading.Event()
    cancelled = threading.Event()

    async def forever(call: Call, params: dict[str, Any]) -> Any:
        try:
            while True:
                await call.emit({"tick": 1})
                started.set()
                await asyncio.sleep(0.01)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    thread = serve(Server("test-tool", "1", {"forever": VerbHandler(forever, streams=True)}))
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(5)
        s.connect(sock_path)
        s.sendall(b'{"id":1,"verb":"forever"}\n')
        assert started.wait(5)
        assert s.recv(100).startswith(b'{"id":1,"item":')
    assert cancelled.wait(5), "the handler kept running after its client went away"
    deadline = time.monotonic() + 5
    while thread.server.connection_count and time.monotonic() < deadline:
        time.sleep(0.01)
    assert thread.server.connection_count == 0


def test_a_call_a_handler_keeps_is_never_reused(serve: Any, peers: Any, sock_path: str) -> None:
    """Pipelined sync calls may share one Call object, but never one a handler held on to."""
    from venom_proto import Call, Server, VerbHandler

    kept: list[tuple[Call, Any, str]] = []

    def keep(call: Call, params: dict[str, Any]) -> Any:
        kept.append((call, call.id, call.verb))
        return {}

    def plain(call: Call, params: dict[str, Any]) -> Any:
        return {"id": call.id}

    serve(Server("test-tool", "1.0.0", {"keep": VerbHandler(keep), "plain": VerbHandler(plain)}))
    peer = peers(sock_path)
    requests: list[dict[str, Any]] = [
        {"id": i, "verb": "keep" if i % 3 == 0 else "plain", "params": {}} for i in range(300)
    ]
    peer.send(_lines(*requests))
    replies = [peer.reply() for _ in requests]
    assert [r["id"] for r in replies] == list(range(300))
    assert all(r["ok"] == {"id": r["id"]} for r in replies if r["id"] % 3)
    # Every kept Call still describes its own request, and no two requests shared one.
    assert [(call.id, call.verb) for call, _, _ in kept] == [(i, v) for _, i, v in kept]
    assert len({id(call) for call, _, _ in kept}) == len(kept) == 100
