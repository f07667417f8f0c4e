"""The baseline: a minimal asyncio Protocol + orjson NDJSON echo server with no checks at all.

Run as ``python bench/baseline_server.py SOCKET``. It answers every line with
``{"id": <id>, "ok": <params>}``: the least work any NDJSON echo daemon can do.
"""

from __future__ import annotations

import asyncio
import os
import sys

import orjson


class Echo(asyncio.Protocol):
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.buf = b""

    def data_received(self, data: bytes) -> None:
        buf = self.buf + data
        lines = buf.split(b"\n")
        self.buf = lines.pop()
        out = bytearray()
        for line in lines:
            msg = orjson.loads(line)
            out += orjson.dumps({"id": msg["id"], "ok": msg.get("params")})
            out += b"\n"
        self.transport.write(bytes(out))


async def main(path: str) -> None:
    if os.path.exists(path):
        os.unlink(path)
    loop = asyncio.get_running_loop()
    server = await loop.create_unix_server(Echo, path)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
