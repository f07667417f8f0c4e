"""The load generator, run in its own process: ``python bench/load_client.py MODE SOCK ARGS``.

Stdlib only (it must not share code, or an interpreter, with the server under test); it
prints one JSON object. Modes:

- ``pipeline SOCK N``: one connection, N echo requests sent without waiting -> ``rate``;
- ``sequential SOCK N``: one request at a time -> ``median_s``, ``p99_s``;
- ``interleaved SOCK,SOCK,... N``: ``sequential`` on each, taking turns -> one result per SOCK;
- ``many SOCK CLIENTS EACH``: CLIENTS connections each pipelining EACH requests -> ``rate``;
- ``frames SOCK N CHUNK INFLIGHT``: binary envelope, N ECHO_BYTES frames of CHUNK bytes with
  INFLIGHT outstanding -> ``mbps`` (payload MB/s one way);
- ``rawbytes SOCK N CHUNK INFLIGHT``: the same pattern over a plain byte-echo socket.
"""

from __future__ import annotations

import json
import selectors
import socket
import struct
import sys
import threading
import time
from typing import Any

HELLO = b'{"id":0,"verb":"hello","params":{"proto":[1]}}\n'
ECHO_BYTES = 0x0100
HEADER = struct.Struct(">HII")  # type, stream, length (RFC-0002 5.1)
DEADLINE = 100.0  # seconds; the parent's subprocess timeout is the hard stop


def request(i: int) -> bytes:
    return b'{"id":%d,"verb":"echo","params":{"text":"hello world"}}\n' % i


def connect(path: str) -> socket.socket:
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(DEADLINE)
    s.connect(path)
    return s


def read_lines(s: socket.socket, n: int) -> None:
    seen = 0
    while seen < n:
        chunk = s.recv(1 << 16)
        if not chunk:
            raise ConnectionError("daemon closed the connection")
        if b'"error"' in chunk:
            raise RuntimeError(f"daemon answered an error: {chunk[:300]!r}")
        seen += chunk.count(b"\n")


def ndjson_connect(path: str) -> socket.socket:
    s = connect(path)
    s.sendall(HELLO)
    read_lines(s, 1)
    return s


def pipeline(path: str, n: int) -> dict[str, float]:
    payload = b"".join(request(i) for i in range(n))
    with ndjson_connect(path) as s:
        # A sender thread, so neither side blocks on a full socket buffer.
        sender = threading.Thread(target=s.sendall, args=(payload,))
        t0 = time.perf_counter()
        sender.start()
        read_lines(s, n)
        elapsed = time.perf_counter() - t0
        sender.join()
    return {"rate": n / elapsed}


def sequential(path: str, n: int) -> dict[str, float]:
    samples = []
    with ndjson_connect(path) as s:
        for i in range(n):
            req = request(i)
            t0 = time.perf_counter()
            s.sendall(req)
            read_lines(s, 1)
            samples.append(time.perf_counter() - t0)
    samples.sort()
    return {"median_s": samples[n // 2], "p99_s": samples[min(n - 1, int(n * 0.99))]}


def interleaved(paths: str, n: int) -> dict[str, dict[str, float]]:
    """``sequential`` on several daemons at once, one request to each in turn.

    Neighbouring samples of different daemons are microseconds apart, so a burst of load from
    elsewhere on the machine hits all of them alike; ``paths`` is comma-separated.
    """
    socks = [ndjson_connect(p) for p in paths.split(",")]
    samples: list[list[float]] = [[] for _ in socks]
    for i in range(n):
        req = request(i)
        for s, out in zip(socks, samples, strict=True):
            t0 = time.perf_counter()
            s.sendall(req)
            read_lines(s, 1)
            out.append(time.perf_counter() - t0)
    result = {}
    for path, s, out in zip(paths.split(","), socks, samples, strict=True):
        s.close()
        out.sort()
        result[path] = {"median_s": out[n // 2], "p99_s": out[min(n - 1, int(n * 0.99))]}
    return result


class _Conn:
    """One of ``many``'s connections: bytes still to send, replies still expected."""

    __slots__ = ("left", "out")

    def __init__(self, out: memoryview, left: int) -> None:
        self.out = out
        self.left = left


def many(path: str, clients: int, each: int) -> dict[str, float]:
    socks = [ndjson_connect(path) for _ in range(clients)]
    payload = b"".join(request(i) for i in range(each))
    sel = selectors.DefaultSelector()
    for s in socks:
        s.setblocking(False)
        sel.register(
            s, selectors.EVENT_READ | selectors.EVENT_WRITE, _Conn(memoryview(payload), each)
        )
    pending = clients
    t0 = time.perf_counter()
    while pending:
        if time.perf_counter() - t0 > DEADLINE:
            raise TimeoutError("many: replies did not arrive in time")
        for key, events in sel.select(1.0):
            peer, conn = key.fileobj, key.data
            assert isinstance(peer, socket.socket)
            if events & selectors.EVENT_WRITE and conn.out:
                conn.out = conn.out[peer.send(conn.out) :]
                if not conn.out:
                    sel.modify(peer, selectors.EVENT_READ, conn)
            if events & selectors.EVENT_READ:
                chunk = peer.recv(1 << 16)
                if not chunk:
                    raise ConnectionError("daemon closed a connection")
                conn.left -= chunk.count(b"\n")
                if conn.left == 0:
                    sel.unregister(peer)
                    pending -= 1
    elapsed = time.perf_counter() - t0
    for s in socks:
        s.close()
    return {"rate": clients * each / elapsed}


def _stream(s: socket.socket, n: int, message: bytes, inflight: int, receive: object) -> float:
    """Send ``message`` n times keeping ``inflight`` outstanding; return the elapsed time."""
    slots = threading.Semaphore(inflight)

    def send() -> None:
        for _ in range(n):
            if not slots.acquire(timeout=DEADLINE):
                return
            s.sendall(message)

    sender = threading.Thread(target=send, daemon=True)
    t0 = time.perf_counter()
    sender.start()
    assert callable(receive)
    receive(slots)
    elapsed = time.perf_counter() - t0
    sender.join(DEADLINE)
    return elapsed


def frames(path: str, n: int, chunk: int, inflight: int) -> dict[str, float]:
    s = connect(path)
    hello = json.dumps(
        {"proto": [1], "client": {"name": "bench", "version": "0"}, "caps": ["venom-echo.bytes"]}
    ).encode()
    s.sendall(b"\xf5" + HEADER.pack(1, 0, len(hello)) + hello)
    type_, _, length = HEADER.unpack(recv_exact(s, HEADER.size))
    reply = recv_exact(s, length)
    if type_ != 2 or b"venom-echo.bytes" not in reply:
        raise RuntimeError(f"binary hello refused: type {type_}, {reply[:300]!r}")
    message = HEADER.pack(ECHO_BYTES, 1, chunk) + b"x" * chunk

    def receive(slots: threading.Semaphore) -> None:
        got = 0
        while got < n:
            type_, _, length = HEADER.unpack(recv_exact(s, HEADER.size))
            body = recv_exact(s, length)
            if type_ != ECHO_BYTES or length != chunk:
                raise RuntimeError(f"unexpected frame type {type_:#x}: {body[:300]!r}")
            got += 1
            slots.release()

    elapsed = _stream(s, n, message, inflight, receive)
    s.close()
    return {"mbps": n * chunk / elapsed / 1e6}


def recv_exact(s: socket.socket, size: int) -> bytes:
    buf = bytearray(size)
    view = memoryview(buf)
    got = 0
    while got < size:
        k = s.recv_into(view[got:])
        if not k:
            raise ConnectionError("peer closed the connection")
        got += k
    return bytes(buf)


def rawbytes(path: str, n: int, chunk: int, inflight: int) -> dict[str, float]:
    s = connect(path)

    def receive(slots: threading.Semaphore) -> None:
        buf = bytearray(1 << 20)
        total = 0
        for _ in iter(int, 1):
            if total >= n * chunk:
                return
            k = s.recv_into(buf)
            if not k:
                raise ConnectionError("echo closed the connection")
            before = total // chunk
            total += k
            for _ in range(total // chunk - before):
                slots.release()

    elapsed = _stream(s, n, b"x" * chunk, inflight, receive)
    s.close()
    return {"mbps": n * chunk / elapsed / 1e6}


MODES = {
    "pipeline": pipeline,
    "sequential": sequential,
    "interleaved": interleaved,
    "many": many,
    "frames": frames,
    "rawbytes": rawbytes,
}


def main(argv: list[str]) -> int:
    mode, path, *numbers = argv
    measure: Any = MODES[mode]
    print(json.dumps(measure(path, *map(int, numbers))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
