"""The gRPC peer: ``python grpc_peer.py STUBDIR MODE SOCK [N ...]``, one process per role.

STUBDIR holds ``echo_pb2*.py`` generated at run time from ``echo.proto`` (see ``stubs.py``).
Modes:

- ``serve SOCK``: a ``grpc.aio`` server with one unary ``Echo`` on ``unix:SOCK``;
- ``serve-threads SOCK``: the same with the sync ``grpc.server`` and a thread pool (the
  helloworld shape), for orientation;
- ``sequential SOCK N``: one channel, N blocking unary calls -> ``median_s``, ``p99_s``;
- ``pipeline SOCK N WINDOW``: one channel, N unary calls with WINDOW in flight (HTTP/2
  multiplexing, the gRPC way to pipeline) -> ``rate``;
- ``many SOCK CLIENTS EACH WINDOW``: CLIENTS channels, each making EACH calls the same way ->
  ``rate``.

grpc ships no type information, so it is imported as ``Any``.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import sys
import time
from concurrent import futures
from typing import Any

DEADLINE = 100.0
TEXT = "hello world"


def _modules(stubdir: str) -> tuple[Any, Any, Any]:
    sys.path.insert(0, stubdir)
    grpc = importlib.import_module("grpc")
    return grpc, importlib.import_module("echo_pb2"), importlib.import_module("echo_pb2_grpc")


def _servicer(pb2: Any, pb2_grpc: Any, *, aio: bool) -> Any:
    """The servicer; `Echo` is spelled as the .proto names the method."""
    if aio:

        class AsyncEcho(pb2_grpc.EchoServicer):  # type: ignore[misc]
            async def Echo(self, request: Any, context: Any) -> Any:
                return pb2.EchoReply(text=request.text)

        return AsyncEcho()

    class Echo(pb2_grpc.EchoServicer):  # type: ignore[misc]
        def Echo(self, request: Any, context: Any) -> Any:
            return pb2.EchoReply(text=request.text)

    return Echo()


async def serve_aio(stubdir: str, sock: str) -> None:
    grpc, pb2, pb2_grpc = _modules(stubdir)
    server = grpc.aio.server()
    pb2_grpc.add_EchoServicer_to_server(_servicer(pb2, pb2_grpc, aio=True), server)
    server.add_insecure_port(f"unix:{sock}")
    await server.start()
    await server.wait_for_termination()


def serve_threads(stubdir: str, sock: str) -> None:
    grpc, pb2, pb2_grpc = _modules(stubdir)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=10))
    pb2_grpc.add_EchoServicer_to_server(_servicer(pb2, pb2_grpc, aio=False), server)
    server.add_insecure_port(f"unix:{sock}")
    server.start()
    server.wait_for_termination()


def sequential(stubdir: str, sock: str, n: int) -> dict[str, float]:
    grpc, pb2, pb2_grpc = _modules(stubdir)
    samples = []
    with grpc.insecure_channel(f"unix:{sock}") as channel:
        stub = pb2_grpc.EchoStub(channel)
        request = pb2.EchoRequest(text=TEXT)
        stub.Echo(request, timeout=DEADLINE)  # connect outside the timed loop, as the others do
        for _ in range(n):
            t0 = time.perf_counter()
            reply = stub.Echo(request, timeout=DEADLINE)
            samples.append(time.perf_counter() - t0)
            if reply.text != TEXT:
                raise RuntimeError(f"wrong echo {reply.text!r}")
    samples.sort()
    return {"median_s": samples[n // 2], "p99_s": samples[min(n - 1, int(n * 0.99))]}


async def _drive(stub: Any, request: Any, n: int, window: int) -> None:
    """N calls on one channel with at most ``window`` outstanding."""
    sent = 0
    while sent < n:
        batch = min(window, n - sent)
        replies = await asyncio.gather(*(stub.Echo(request) for _ in range(batch)))
        if any(r.text != TEXT for r in replies):
            raise RuntimeError("wrong echo")
        sent += batch


async def _many(stubdir: str, sock: str, clients: int, each: int, window: int) -> float:
    grpc, pb2, pb2_grpc = _modules(stubdir)
    request = pb2.EchoRequest(text=TEXT)
    # A local subchannel pool gives each channel its own connection, like separate clients.
    options = [("grpc.use_local_subchannel_pool", 1)]
    channels = [grpc.aio.insecure_channel(f"unix:{sock}", options=options) for _ in range(clients)]
    try:
        stubs = [pb2_grpc.EchoStub(c) for c in channels]
        await asyncio.gather(*(s.Echo(request) for s in stubs))  # connect every channel first
        t0 = time.perf_counter()
        await asyncio.wait_for(
            asyncio.gather(*(_drive(s, request, each, window) for s in stubs)), DEADLINE
        )
        return time.perf_counter() - t0
    finally:
        for c in channels:
            await c.close()


def main(argv: list[str]) -> int:
    stubdir, mode, sock, *rest = argv
    numbers = [int(x) for x in rest]
    if mode == "serve":
        asyncio.run(serve_aio(stubdir, sock))
        return 0
    if mode == "serve-threads":
        serve_threads(stubdir, sock)
        return 0
    if mode == "sequential":
        out = sequential(stubdir, sock, numbers[0])
    elif mode == "pipeline":
        n, window = numbers
        out = {"rate": n / asyncio.run(_many(stubdir, sock, 1, n, window))}
    elif mode == "many":
        clients, each, window = numbers
        out = {"rate": clients * each / asyncio.run(_many(stubdir, sock, clients, each, window))}
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
