"""SIGTERM with streams in flight: every client hears the end before the socket goes away."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import struct
from typing import Any

from soak_kit import FIGURES, TIMEOUT, EchoDaemon, LineConn, request_line, scale

NDJSON_CLIENTS = scale(20, 100)
BINARY_CLIENTS = scale(5, 20)
STREAMS_EACH = 2
_HEADER = struct.Struct(">HII")
HELLO, HELLO_OK, CLOSE, CONTROL = 1, 2, 6, 0x10


def _stream(id_: int) -> bytes:
    return request_line(id_, "echo.repeat", {"text": "t", "count": 100000, "interval_ms": 20})


async def _ndjson_client(path: str, started: asyncio.Event, term: asyncio.Event) -> set[int]:
    """Two long streams; after SIGTERM, the ids that ended ``cancelled`` before EOF."""
    conn = await LineConn.open(path)
    await conn.send(b"".join(_stream(i) for i in range(STREAMS_EACH)))
    items: set[int] = set()
    while len(items) < STREAMS_EACH:
        reply = await conn.line()
        assert reply is not None
        assert "item" in reply, reply
        items.add(reply["id"])
    started.set()
    await term.wait()
    cancelled: set[int] = set()
    while (reply := await conn.line()) is not None:
        if "error" in reply:
            assert reply["error"]["code"] == "cancelled", reply
            cancelled.add(reply["id"])
        else:
            assert "item" in reply, reply
    return cancelled


class _Frames:
    def __init__(self, reader: asyncio.StreamReader) -> None:
        self.reader = reader

    async def next(self) -> tuple[int, int, bytes] | None:
        try:
            head = await asyncio.wait_for(self.reader.readexactly(10), TIMEOUT)
        except asyncio.IncompleteReadError as exc:
            partial = exc.partial
        else:
            type_, stream, length = _HEADER.unpack(head)
            payload = await asyncio.wait_for(self.reader.readexactly(length), TIMEOUT)
            return type_, stream, payload
        assert not partial, "the connection ended mid-frame"
        return None


def _frame(type_: int, payload: Any) -> bytes:
    data = json.dumps(payload).encode()
    return _HEADER.pack(type_, 0, len(data)) + data


async def _binary_client(path: str, started: asyncio.Event, term: asyncio.Event) -> list[str]:
    """A stream over CONTROL frames; after SIGTERM, what arrived in order before EOF."""
    reader, writer = await asyncio.open_unix_connection(path)
    frames = _Frames(reader)
    writer.write(b"\xf5" + _frame(HELLO, {"proto": [1]}))
    writer.write(_frame(CONTROL, json.loads(_stream(7))))
    await writer.drain()
    first = await frames.next()
    assert first is not None
    assert first[0] == HELLO_OK, first
    item = await frames.next()
    assert item is not None
    assert item[0] == CONTROL, item
    assert "item" in json.loads(item[2]), item
    started.set()
    await term.wait()
    seen: list[str] = []
    while (frame := await frames.next()) is not None:
        type_, stream, payload = frame
        if type_ == CLOSE:
            assert stream == 0
            seen.append("CLOSE")
        elif type_ == CONTROL and "error" in (reply := json.loads(payload)):
            seen.append(reply["error"]["code"])
    writer.close()
    return seen


async def _scenario(d: EchoDaemon) -> tuple[list[set[int]], list[list[str]]]:
    term = asyncio.Event()
    starts = [asyncio.Event() for _ in range(NDJSON_CLIENTS + BINARY_CLIENTS)]
    nd = [asyncio.create_task(_ndjson_client(d.socket, s, term)) for s in starts[:NDJSON_CLIENTS]]
    bi = [asyncio.create_task(_binary_client(d.socket, s, term)) for s in starts[NDJSON_CLIENTS:]]
    await asyncio.wait_for(asyncio.gather(*(s.wait() for s in starts)), TIMEOUT)
    d.signal(signal.SIGTERM)
    term.set()
    return list(await asyncio.gather(*nd)), list(await asyncio.gather(*bi))


def test_sigterm_ends_every_stream_before_closing(daemon: EchoDaemon) -> None:
    """RFC-0002 §2.5 step 7: in-flight calls end ``cancelled`` (NDJSON) / CLOSE (binary)."""
    ndjson, binary = asyncio.run(asyncio.wait_for(_scenario(daemon), 120))
    assert daemon.wait() == 0
    assert all(ids == set(range(STREAMS_EACH)) for ids in ndjson), ndjson
    assert all(seen == ["cancelled", "CLOSE"] for seen in binary), binary
    assert not os.path.exists(daemon.socket)
    assert not daemon.token_file.exists()
    FIGURES["SIGTERM with streams in flight"] = (
        f"{NDJSON_CLIENTS} NDJSON clients x {STREAMS_EACH} streams all got cancelled, "
        f"{BINARY_CLIENTS} binary clients got cancelled + CLOSE, before EOF"
    )
