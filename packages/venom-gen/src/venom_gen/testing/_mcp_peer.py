"""`McpPeer`: ``<tool> mcp`` as a subprocess, driven with raw JSON-RPC lines."""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ("McpPeer",)

#: The stateless MCP revision: no ``initialize``, the version and client on every request.
_STATELESS = "2026-07-28"


class McpPeer:
    """The MCP adapter on stdin/stdout at MCP ``revision``; `call` and `tool` send requests.

    At 2025-06-18 (the default) or 2025-11-25 it is initialized and `init` is the reply; at the
    stateless 2026-07-28 it is not, every request carries the ``_meta`` envelope (version,
    client info and capabilities) and `init` is the ``server/discover`` reply. Every read waits
    at most ``timeout`` seconds. `close` ends its stdin and reaps it.
    """

    def __init__(
        self,
        command: Sequence[str],
        *,
        env: Mapping[str, str],
        log: Path,
        timeout: float = 10.0,
        revision: str = "2025-06-18",
    ) -> None:
        self.timeout = timeout
        self.revision = revision
        with log.open("ab") as err:
            self.proc = subprocess.Popen(
                list(command),
                env=dict(env),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
            )
        self._buffer = b""
        self._next_id = 1
        try:
            if revision == _STATELESS:
                self.init = self.call("server/discover", {})
            else:
                self.init = self.call("initialize", {
                    "protocolVersion": revision,
                    "capabilities": {},
                    "clientInfo": {"name": "venom-gen-testing", "version": "0"},
                })  # fmt: skip
                self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        except BaseException:
            self.close()
            raise

    def send(self, message: dict[str, Any]) -> None:
        """Write one JSON-RPC message line."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def line(self) -> bytes:
        """The next line of stdout."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + self.timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError("no reply from the MCP adapter")
            chunk = os.read(fd, 65536)
            if not chunk:
                raise EOFError("the MCP adapter closed stdout")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def call(self, method: str, params: dict[str, Any]) -> Any:
        """One JSON-RPC request; its reply object (notifications in between are skipped)."""
        ident, self._next_id = self._next_id, self._next_id + 1
        if self.revision == _STATELESS and method != "initialize":
            params = {**params, "_meta": {**self._envelope(), **params.get("_meta", {})}}
        self.send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        while True:
            reply = json.loads(self.line())
            if reply.get("id") == ident:
                return reply

    def _envelope(self) -> dict[str, Any]:
        return {
            "io.modelcontextprotocol/protocolVersion": self.revision,
            "io.modelcontextprotocol/clientInfo": {"name": "venom-gen-testing", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": {},
        }

    def tool(self, name: str, arguments: dict[str, Any]) -> Any:
        """``tools/call``; the ``result`` member of the reply."""
        return self.call("tools/call", {"name": name, "arguments": arguments})["result"]

    def close(self) -> None:
        """Close stdin and reap the adapter (killed if it outlives the timeout)."""
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            self.proc.wait(self.timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(self.timeout)
        finally:
            if self.proc.stdout is not None:
                self.proc.stdout.close()

    def __enter__(self) -> McpPeer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
