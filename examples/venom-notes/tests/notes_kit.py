"""Test helpers: ``venom-notes serve`` on private XDG dirs, a raw socket and a raw MCP peer.

Every wait is bounded by TIMEOUT.
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

TIMEOUT = 10.0
TOOL = "venom-notes"
COMMAND = [sys.executable, "-m", "venom_notes"]


class Daemon:
    """The daemon with its own XDG directories under ``root`` (keep it short: sun_path)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        runtime = root / "run"
        runtime.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.env = {
            **os.environ,
            "XDG_RUNTIME_DIR": str(runtime),
            "XDG_CONFIG_HOME": str(root / "config"),
            "XDG_DATA_HOME": str(root / "data"),
            "HOME": str(root / "home"),
        }
        self.env.pop("VENOM_NOTES_SOCKET", None)
        self.socket = str(runtime / "venom" / f"{TOOL}.sock")
        self.db = root / "data" / TOOL / "notes.db"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Run the daemon and wait until its socket accepts connections."""
        self.proc = subprocess.Popen(
            [*COMMAND, "serve"],
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=(self.root / "serve.err").open("ab"),
        )
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                err = (self.root / "serve.err").read_text(errors="replace")
                raise RuntimeError(f"daemon exited with {self.proc.returncode}: {err}")
            # Ready = connectable and the owner token written: the socket listens a moment
            # before the token exists, and a client without it holds only read grants.
            try:
                with socket.socket(socket.AF_UNIX) as s:
                    s.connect(self.socket)
                if os.path.exists(os.path.splitext(self.socket)[0] + ".token"):
                    return
            except OSError:
                pass
            time.sleep(0.02)
        self.stop()
        raise TimeoutError("daemon did not start listening")

    def stop(self, sig: int = signal.SIGTERM) -> int:
        """Signal the daemon (SIGTERM by default) and reap it; its exit status."""
        proc, self.proc = self.proc, None
        if proc is None:
            return 0
        if proc.poll() is None:
            proc.send_signal(sig)
        try:
            return proc.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(TIMEOUT)
            raise

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        """Run the CLI with ``args`` in this daemon's environment."""
        return subprocess.run(
            [*COMMAND, *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            stdin=subprocess.DEVNULL,
            check=False,
        )

    def cli_json(self, *args: str) -> Any:
        """Run the CLI and decode its stdout; it must succeed."""
        run = self.cli(*args)
        assert run.returncode == 0, run.stderr
        return json.loads(run.stdout)

    def token(self) -> str:
        """The owner token beside the socket (rfcs/0005 §3)."""
        return Path(self.socket).with_suffix(".token").read_text(encoding="ascii").strip()

    def request(
        self, *lines: dict[str, Any], owner: bool = False, max_frame: int | None = None
    ) -> list[Any]:
        """Requests on one new connection, after a hello (with the owner token if ``owner``,
        offering ``max_frame`` if given).

        Returns every reply line after the hello's, so a stream's items come before its ok.
        """
        hello: dict[str, Any] = {"proto": [1], "client": {"name": "tests", "version": "0"}}
        if owner:
            hello["auth"] = {"token": self.token()}
        if max_frame is not None:
            hello["max_frame"] = max_frame
        wire = [{"id": 0, "verb": "hello", "params": hello}, *lines]
        final_ids = {line["id"] for line in lines}
        replies: list[Any] = []
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(TIMEOUT)
            s.connect(self.socket)
            # Raw UTF-8, as clients send it: \u escapes would make text 6 times longer.
            data = b"".join(json.dumps(line, ensure_ascii=False).encode() + b"\n" for line in wire)
            s.sendall(data)
            buf = b""
            while final_ids:
                while b"\n" not in buf:
                    chunk = s.recv(65536)
                    if not chunk:
                        raise EOFError("daemon closed the connection")
                    buf += chunk
                line, _, buf = buf.partition(b"\n")
                reply = json.loads(line)
                if reply["id"] == 0:
                    continue
                replies.append(reply)
                if "item" not in reply:
                    final_ids.discard(reply["id"])
        return replies


class McpPeer:
    """``venom-notes mcp`` driven with raw JSON-RPC lines on its stdin and stdout."""

    def __init__(self, daemon: Daemon) -> None:
        self.proc = subprocess.Popen(
            [*COMMAND, "mcp"],
            env=daemon.env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=(daemon.root / "mcp.err").open("ab"),
        )
        self.buf = b""
        self.next_id = 1
        self.init = self.call("initialize", {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "tests", "version": "0"},
        })  # fmt: skip
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def _line(self) -> bytes:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + TIMEOUT
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError("no reply from the MCP adapter")
            chunk = os.read(fd, 65536)
            if not chunk:
                raise EOFError("the MCP adapter closed stdout")
            self.buf += chunk
        line, _, self.buf = self.buf.partition(b"\n")
        return line

    def call(self, method: str, params: dict[str, Any]) -> Any:
        """One JSON-RPC request; its reply object (notifications in between are skipped)."""
        ident, self.next_id = self.next_id, self.next_id + 1
        self.send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        while True:
            reply = json.loads(self._line())
            if reply.get("id") == ident:
                return reply

    def tool(self, name: str, arguments: dict[str, Any]) -> Any:
        """``tools/call``; the ``result`` member of the reply."""
        return self.call("tools/call", {"name": name, "arguments": arguments})["result"]

    def close(self) -> None:
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(TIMEOUT)
        finally:
            self.proc.stdout.close()
