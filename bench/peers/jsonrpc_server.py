"""The JSON-RPC 2.0 peer: what a user writes with asyncio streams and the stdlib ``json``.

``python jsonrpc_server.py SOCK``: one request object per line (no batches), method ``echo``
with params ``{"text": ...}`` answering ``{"text": ...}``. Parse errors, unknown methods and bad
params get the JSON-RPC error objects; notifications (no ``id``) get no reply. This is the
typical hand-rolled server (readline, json.loads, write, drain); bench/baseline_server.py is
the tuned Protocol + orjson variant that bench_ndjson.py measures.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any


def echo(text: str) -> dict[str, str]:
    return {"text": text}


METHODS = {"echo": echo}


def handle(line: bytes) -> dict[str, Any] | None:
    """One request line -> the response object (None for a notification)."""
    try:
        req = json.loads(line)
    except ValueError:
        return {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
    if not isinstance(req, dict) or req.get("jsonrpc") != "2.0":
        error = {"code": -32600, "message": "Invalid Request"}
        return {"jsonrpc": "2.0", "id": None, "error": error}
    method = METHODS.get(req.get("method", ""))
    reply: dict[str, Any] = {"jsonrpc": "2.0", "id": req.get("id")}
    if method is None:
        reply["error"] = {"code": -32601, "message": "Method not found"}
    else:
        try:
            reply["result"] = method(**req.get("params", {}))
        except TypeError:
            reply["error"] = {"code": -32602, "message": "Invalid params"}
    return reply if "id" in req else None


async def serve_client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while line := await reader.readline():
            reply = handle(line)
            if reply is not None:
                writer.write(json.dumps(reply).encode() + b"\n")
                await writer.drain()
    except ConnectionError:
        pass
    finally:
        writer.close()


async def main(path: str) -> None:
    if os.path.exists(path):
        os.unlink(path)
    server = await asyncio.start_unix_server(serve_client, path)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
