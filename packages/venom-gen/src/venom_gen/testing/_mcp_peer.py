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


class McpPeer:
    """The MCP adapter on stdin/stdout, initialized; `call` and `tool` send requests.

    Every read waits at most ``timeout`` seconds. `close` ends its stdin and reaps it.
    """

    def __init__(
        self,
        command: Sequence[str],
        *,
        env: Mapping[str, str],
        log: Path,
        timeout: float = 10.0,
    ) -> None:
        self.timeout = timeout
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
            self.init = self.call("initialize", {
                "protocolVersion": "2025-06-18",
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
        self.send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        while True:
            reply = json.loads(self.line())
            if reply.get("id") == ident:
                return reply

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
