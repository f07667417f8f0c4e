"""A test daemon on venom_proto's real server, serving the fixture model's verbs.

``python mcp_test_daemon.py --socket PATH [--no-cancel]`` prints ``READY`` on stdout once the
socket listens. ``cancels`` reports the verbs of requests ended by an RFC-0002 ``cancel``
request (not by a disconnect), so tests can tell that the adapter really sent one: the server
listens on a socket beside PATH, and PATH is a byte-for-byte relay to it that reads the
requests passing through (`Relay`).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import sys
from typing import Any

import anyio

from venom_proto import Call, Server, VenomError, VerbHandler

CANCELLED: list[str] = []
ACTIVE: set[int] = set()
#: The connections ``echo`` was called on (kept alive, so identity is never reused).
ECHO_CONNECTIONS: list[Any] = []


class Relay:
    """Copies bytes between a client and the server unchanged, noting the targets of cancels."""

    def __init__(self, inner: str) -> None:
        self.inner = inner

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_unix_connection(self.inner)
        verbs: dict[object, str] = {}

        async def upstream() -> None:
            while line := await reader.readline():
                self._note(line, verbs)
                up_writer.write(line)
                await up_writer.drain()
            up_writer.write_eof()

        async def downstream() -> None:
            while data := await up_reader.read(65536):
                writer.write(data)
                await writer.drain()
            writer.close()

        try:
            await asyncio.gather(upstream(), downstream())
        except OSError:
            pass
        finally:
            up_writer.close()
            writer.close()

    @staticmethod
    def _note(line: bytes, verbs: dict[object, str]) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            return
        if not isinstance(message, dict) or not isinstance(message.get("verb"), str):
            return
        params = message.get("params") or {}
        if message["verb"] == "cancel" and isinstance(params, dict):
            target = verbs.get(json.dumps(params.get("id")))
            if target is not None:
                CANCELLED.append(target)
        else:
            verbs[json.dumps(message.get("id"))] = message["verb"]


def echo(call: Call, params: dict[str, Any]) -> dict[str, Any]:
    if not any(c is call.connection for c in ECHO_CONNECTIONS):
        ECHO_CONNECTIONS.append(call.connection)
    text: str = params["text"]
    return {"text": text.upper() if params.get("style") == "upper" else text}


async def repeat(call: Call, params: dict[str, Any]) -> dict[str, Any]:
    pad = "x" * params.get("size", 0)
    for n in range(params["count"]):
        await call.emit({"n": n, "pad": pad})
        if params.get("interval"):
            await anyio.sleep(params["interval"])
    return {"count": params["count"]}


def fail(call: Call, params: dict[str, Any]) -> None:
    raise VenomError("conflict.echo_busy", "the echo is busy", {"retry": 3})


async def stall(call: Call, params: dict[str, Any]) -> None:
    ACTIVE.add(id(call))
    try:
        await anyio.sleep(params.get("seconds", 30))
    finally:
        ACTIVE.discard(id(call))


def active(call: Call, params: dict[str, Any]) -> dict[str, Any]:
    """Not in the model: how many ``stall`` calls are running (tests poll it directly)."""
    return {"stalls": len(ACTIVE)}


def echo_connections(call: Call, params: dict[str, Any]) -> dict[str, Any]:
    """Not in the model: on how many distinct connections ``echo`` was called."""
    return {"count": len(ECHO_CONNECTIONS)}


def cancels(call: Call, params: dict[str, Any]) -> dict[str, Any]:
    return {"verbs": list(CANCELLED)}


def set_value(call: Call, params: dict[str, Any]) -> None:
    return None


def whoami(call: Call, params: dict[str, Any]) -> dict[str, Any]:
    auth = call.connection.hello.get("auth")
    return {"token": auth.get("token") if isinstance(auth, dict) else None}


VERBS = {
    "echo": VerbHandler(echo),
    "repeat": VerbHandler(repeat, streams=True),
    "fail": VerbHandler(fail),
    "stall": VerbHandler(stall),
    "cancels": VerbHandler(cancels),
    "set_value": VerbHandler(set_value),
    "whoami": VerbHandler(whoami),
    "active": VerbHandler(active),
    "echo_connections": VerbHandler(echo_connections),
}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--socket", required=True)
    parser.add_argument("--no-cancel", action="store_true", help="do not offer capability cancel")
    args = parser.parse_args()
    server = Server("venom-echo", "0.1.0", VERBS)
    if args.no_cancel:
        server.config = dataclasses.replace(server.config, caps=frozenset())
    inner = os.path.join(os.path.dirname(args.socket), "inner.sock")
    relay = Relay(inner)

    async def run() -> None:
        async def ready(path: str) -> None:
            listener = await asyncio.start_unix_server(relay.serve, args.socket)
            os.chmod(args.socket, 0o600)
            print("READY", flush=True)
            async with listener:
                await listener.serve_forever()

        tasks: set[asyncio.Task[None]] = set()

        def start_relay(path: str) -> None:
            tasks.add(asyncio.get_running_loop().create_task(ready(path)))

        await server.run(inner, ready=start_relay)

    anyio.run(run, backend="asyncio")
    return 0


if __name__ == "__main__":
    sys.exit(main())
