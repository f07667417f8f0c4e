"""A stdio-to-HTTP bridge for a stdio MCP server, so HTTP-only clients can test it (test code).

The official conformance suite speaks Streamable HTTP only; ``<tool> mcp`` speaks stdio only.
The bridge serves ``POST /mcp`` in JSON-response mode (no SSE streams): an ``initialize``
starts a fresh server process and names it by a new ``Mcp-Session-Id``; later requests carrying
that id go to it, a stateless (2026-07-28) request without one goes to a shared process, and
``DELETE`` ends a session. Requests are relayed line for line and answered with the reply of the
same id; the server's notifications are dropped (no stream to carry them). It is never shipped:
the adapter stays a stdio server (RFC-0004 §5).
"""

from __future__ import annotations

import json
import socket
import threading
import time
import uuid
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import anyio
import uvicorn
from anyio.abc import Process
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

__all__ = ("StdioServer", "bridge_app", "serve_bridge")

WAIT = 30.0  # seconds: the bound on one relayed request
SESSION = "mcp-session-id"
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"


class StdioServer:
    """One stdio MCP server process: requests by id, replies matched by id."""

    def __init__(self, command: Sequence[str], env: Mapping[str, str]) -> None:
        self._command = list(command)
        self._env = dict(env)
        self._process: Process | None = None
        self._waiting: dict[Any, anyio.abc.ObjectSendStream[dict[str, Any]]] = {}
        self._lock = anyio.Lock()

    async def start(self, tg: anyio.abc.TaskGroup) -> None:
        self._process = await anyio.open_process(self._command, env=self._env, stderr=None)
        tg.start_soon(self._read)

    async def _read(self) -> None:
        assert self._process is not None
        assert self._process.stdout is not None
        buffer = b""
        async for chunk in self._process.stdout:
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                message = json.loads(line)
                waiter = self._waiting.pop(json.dumps(message.get("id")), None)
                if "method" not in message and waiter is not None:
                    await waiter.send(message)

    async def send(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """Write ``message``; for a request, its reply (None for anything else)."""
        assert self._process is not None
        assert self._process.stdin is not None
        is_request = "method" in message and "id" in message
        send, receive = anyio.create_memory_object_stream[dict[str, Any]](1)
        if is_request:
            self._waiting[json.dumps(message["id"])] = send
        async with self._lock:
            await self._process.stdin.send(json.dumps(message).encode() + b"\n")
        if not is_request:
            return None
        with anyio.fail_after(WAIT):
            return await receive.receive()

    async def close(self) -> None:
        if self._process is not None:
            if self._process.stdin is not None:
                await self._process.stdin.aclose()
            with anyio.move_on_after(5):
                await self._process.wait()
            if self._process.returncode is None:
                self._process.kill()


def bridge_app(command: Sequence[str], env: Mapping[str, str]) -> Starlette:
    """The bridge as an ASGI app serving ``/mcp`` for the server started by ``command``."""
    sessions: dict[str, StdioServer] = {}
    group: dict[str, anyio.abc.TaskGroup] = {}

    async def start_server() -> StdioServer:
        server = StdioServer(command, env)
        await server.start(group["tg"])
        return server

    async def post(request: Request) -> Response:
        try:
            message = json.loads(await request.body())
        except ValueError:
            return JSONResponse({"jsonrpc": "2.0", "id": None, "error": {
                "code": -32700, "message": "Parse error"}}, status_code=400)  # fmt: skip
        if not isinstance(message, dict):
            return JSONResponse({"jsonrpc": "2.0", "id": None, "error": {
                "code": -32600, "message": "Invalid Request"}}, status_code=400)  # fmt: skip
        headers: dict[str, str] = {}
        session = request.headers.get(SESSION)
        meta = (message.get("params") or {}).get("_meta") or {}
        if message.get("method") == "initialize":
            session = uuid.uuid4().hex
            sessions[session] = await start_server()
            headers["Mcp-Session-Id"] = session
        elif session is None and isinstance(meta, dict) and VERSION_KEY in meta:
            session = ""  # the shared stateless server
            if session not in sessions:
                sessions[session] = await start_server()
        if session is None or session not in sessions:
            return Response(status_code=404 if session else 400)
        reply = await sessions[session].send(message)
        if reply is None:
            return Response(status_code=202, headers=headers)
        return JSONResponse(reply, headers=headers)

    async def delete(request: Request) -> Response:
        server = sessions.pop(request.headers.get(SESSION, ""), None)
        if server is None:
            return Response(status_code=404)
        await server.close()
        return Response(status_code=200)

    async def get(request: Request) -> Response:
        return Response(status_code=405, headers={"Allow": "POST, DELETE"})  # no SSE stream

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with anyio.create_task_group() as tg:
            group["tg"] = tg
            yield
            for server in sessions.values():
                await server.close()
            tg.cancel_scope.cancel()

    routes = [
        Route("/mcp", post, methods=["POST"]),
        Route("/mcp", delete, methods=["DELETE"]),
        Route("/mcp", get, methods=["GET"]),
    ]
    return Starlette(routes=routes, lifespan=lifespan)


@contextmanager
def serve_bridge(command: Sequence[str], env: Mapping[str, str]) -> Iterator[str]:
    """Run the bridge on a free loopback port in a thread; yields its ``/mcp`` URL."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    config = uvicorn.Config(bridge_app(command, env), log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + WAIT
        while not server.started:
            if time.monotonic() > deadline or not thread.is_alive():
                raise RuntimeError("the bridge did not start")
            time.sleep(0.02)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.should_exit = True
        thread.join(WAIT)
        listener.close()
