"""The raw-socket load client for every message-per-delimiter peer, in its own process.

``python wire_load.py KIND MODE SOCK ARGS`` prints one JSON object. KIND picks the bytes:
``venom`` (NDJSON, hello first), ``jsonrpc`` (JSON-RPC 2.0 lines), ``varlink`` (NUL-terminated
varlink calls) or ``socat`` (any line comes back verbatim). Every request is pre-encoded, so the
same stdlib machinery drives every peer and only the server differs. Modes, as in
bench/load_client.py:

- ``sequential SOCK N``: one request at a time -> ``median_s``, ``p99_s``;
- ``pipeline SOCK N``: one connection, N requests sent without waiting -> ``rate``;
- ``many SOCK CLIENTS EACH``: CLIENTS connections each pipelining EACH requests -> ``rate``.
"""

from __future__ import annotations

import json
import selectors
import socket
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

DEADLINE = 100.0  # seconds; the parent's subprocess timeout is the hard stop
#: Bytes per recv. Not 1 MiB: CPython allocates the full size per call, and above malloc's mmap
#: threshold that is an mmap + munmap per reply, which added ~15 us to every round trip.
RECV = 65536


@dataclass(frozen=True)
class Kind:
    """How one peer frames a call: the request for id ``i``, its terminator, an opening hello."""

    request: Callable[[int], bytes]
    end: bytes
    hello: bytes = b""


KINDS = {
    "venom": Kind(
        lambda i: b'{"id":%d,"verb":"echo","params":{"text":"hello world"}}\n' % i,
        b"\n",
        b'{"id":0,"verb":"hello","params":{"proto":[1]}}\n',
    ),
    "jsonrpc": Kind(
        lambda i: (
            b'{"jsonrpc":"2.0","id":%d,"method":"echo","params":{"text":"hello world"}}\n' % i
        ),
        b"\n",
    ),
    "varlink": Kind(
        lambda i: b'{"method":"org.example.echo.Echo","parameters":{"text":"hello world"}}\0',
        b"\0",
    ),
    "socat": Kind(lambda i: b'{"id":%d,"params":{"text":"hello world"}}\n' % i, b"\n"),
}


def _check(chunk: bytes) -> None:
    if b'"error"' in chunk:
        raise RuntimeError(f"peer answered an error: {chunk[:300]!r}")


def read_replies(s: socket.socket, kind: Kind, n: int) -> None:
    seen = 0
    while seen < n:
        chunk = s.recv(RECV)
        if not chunk:
            raise ConnectionError("peer closed the connection")
        _check(chunk)
        seen += chunk.count(kind.end)


def open_conn(path: str, kind: Kind) -> socket.socket:
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(DEADLINE)
    deadline = time.monotonic() + 10
    while True:
        try:
            s.connect(path)
            break
        except BlockingIOError:
            # A full listen backlog (socketserver's holds 5): retry, as a client would.
            if time.monotonic() > deadline:
                raise
            time.sleep(0.001)
    if kind.hello:
        s.sendall(kind.hello)
        read_replies(s, kind, 1)
    return s


def sequential(kind: Kind, path: str, n: int) -> dict[str, float]:
    samples = []
    with open_conn(path, kind) as s:
        for i in range(n):
            req = kind.request(i)
            t0 = time.perf_counter()
            s.sendall(req)
            read_replies(s, kind, 1)
            samples.append(time.perf_counter() - t0)
    samples.sort()
    return {"median_s": samples[n // 2], "p99_s": samples[min(n - 1, int(n * 0.99))]}


def pipeline(kind: Kind, path: str, n: int) -> dict[str, float]:
    payload = b"".join(kind.request(i) for i in range(n))
    with open_conn(path, kind) as s:
        # A sender thread, so neither side blocks on a full socket buffer.
        sender = threading.Thread(target=s.sendall, args=(payload,))
        t0 = time.perf_counter()
        sender.start()
        read_replies(s, kind, n)
        elapsed = time.perf_counter() - t0
        sender.join()
    return {"rate": n / elapsed}


class _Conn:
    __slots__ = ("left", "out")

    def __init__(self, out: memoryview, left: int) -> None:
        self.out = out
        self.left = left


def many(kind: Kind, path: str, clients: int, each: int) -> dict[str, float]:
    socks = [open_conn(path, kind) for _ in range(clients)]
    payload = b"".join(kind.request(i) for i in range(each))
    sel = selectors.DefaultSelector()
    for s in socks:
        s.setblocking(False)
        events = selectors.EVENT_READ | selectors.EVENT_WRITE
        sel.register(s, events, _Conn(memoryview(payload), each))
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
                chunk = peer.recv(RECV)
                if not chunk:
                    raise ConnectionError("peer closed a connection")
                _check(chunk)
                conn.left -= chunk.count(kind.end)
                if conn.left == 0:
                    sel.unregister(peer)
                    pending -= 1
    elapsed = time.perf_counter() - t0
    for s in socks:
        s.close()
    return {"rate": clients * each / elapsed}


MODES: dict[str, Callable[..., dict[str, float]]] = {
    "sequential": sequential,
    "pipeline": pipeline,
    "many": many,
}


def main(argv: list[str]) -> int:
    kind, mode, path, *numbers = argv
    print(json.dumps(MODES[mode](KINDS[kind], path, *map(int, numbers))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
