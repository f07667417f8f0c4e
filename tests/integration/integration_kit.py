"""Helpers of the integration suite: a real venom-echo daemon, raw socket I/O, the CLI.

Each daemon is the test kit's (`venom_gen.testing.DaemonProcess`): private ``XDG_*`` and ``HOME``
directories under a short temporary root, so the socket path fits in ``sun_path`` and nothing
touches the user's.
Every wait is bounded by :data:`TIMEOUT`.
"""

from __future__ import annotations

import json
import shutil
import socket
import struct
import sys
import tomllib
from pathlib import Path
from typing import Any

from venom_echo.product import MODEL_PATH
from venom_gen.testing import DaemonProcess
from venom_proto.owner_token import token_path

TIMEOUT = 10.0
TOOL = "venom-echo"
#: venom-echo's version as its pyproject.toml states it: what hello and MCP must advertise.
ECHO_VERSION: str = tomllib.loads(
    (Path(MODEL_PATH).parents[2] / "pyproject.toml").read_text(encoding="utf-8")
)["project"]["version"]
#: The surfaces the registry test knows; see :func:`exposed_verbs`.
SURFACES = ("socket", "cli", "mcp")


def venom_echo_command() -> str:
    """The console script of the environment running the tests (the venv's own bin)."""
    beside = Path(sys.executable).with_name(TOOL)
    if beside.exists():
        return str(beside)
    found = shutil.which(TOOL)
    if found is None:
        raise RuntimeError(f"{TOOL} is not installed beside {sys.executable} nor on PATH")
    return found


def load_model() -> dict[str, Any]:
    """venom-echo's normalized model, shared bundles included."""
    model: dict[str, Any] = json.loads(Path(MODEL_PATH).read_text(encoding="utf-8"))
    return model


def exposed_verbs(model: dict[str, Any]) -> dict[str, set[str]]:
    """Wire names each surface exposes (RFC-0004 §4, §5, §7).

    The socket takes every daemon verb plus the transport verbs hello and cancel; the CLI every
    verb but the transport ones; MCP every daemon verb (no ``dispatch``).
    """
    verbs = model["verbs"]
    daemon = {v["name"] for v in verbs if "dispatch" not in v}
    transport = {v["name"] for v in verbs if v.get("dispatch") == "transport"}
    return {
        "socket": daemon | transport,
        "cli": {v["name"] for v in verbs if v.get("dispatch") != "transport"},
        "mcp": daemon,
    }


def mcp_tool_name(verb: str) -> str:
    """RFC-0004 §5: each ``_`` becomes ``__`` and each ``.`` becomes ``_d``."""
    return verb.replace("_", "__").replace(".", "_d")


class Daemon(DaemonProcess):
    """One ``venom-echo serve`` from the test kit, run by the console script, on its own
    private directories; with raw sockets (`connect`) and the config file's path."""

    def __init__(self) -> None:
        super().__init__(
            "venom_echo.product:PRODUCT", command=[venom_echo_command()], timeout=TIMEOUT
        )
        self.root = self.dirs.root
        self.token_file = Path(token_path(self.socket))
        self.config_file = self.dirs.root / "config" / TOOL / "config.toml"

    def connect(self) -> Conn:
        """A raw client socket; nothing sent yet."""
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(TIMEOUT)
        s.connect(self.socket)
        return Conn(s)


def hello_params(*, token: str | None = None, caps: tuple[str, ...] = ("cancel",)) -> Any:
    """RFC-0002 §6.1 hello params, with ``auth`` when a token is given (rfcs/0005 §3)."""
    params: dict[str, Any] = {
        "proto": [1],
        "client": {"name": "integration", "version": "0"},
        "caps": list(caps),
    }
    if token is not None:
        params["auth"] = {"token": token}
    return params


def request(id_: int, verb: str, params: dict[str, Any] | None = None) -> bytes:
    """One NDJSON request line without the newline."""
    return json.dumps({"id": id_, "verb": verb, "params": params or {}}).encode()


def frame(type_: int, stream: int, payload: bytes) -> bytes:
    """RFC-0002 §5.1: big-endian u16 type, u32 stream, u32 length, then the payload."""
    return struct.pack(">HII", type_, stream, len(payload)) + payload


class Conn:
    """A client socket with a receive buffer, so nothing that arrived early is dropped."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buf = b""

    def __enter__(self) -> Conn:
        return self

    def __exit__(self, *exc: object) -> None:
        self.sock.close()

    def send_lines(self, *lines: bytes) -> None:
        self.sock.sendall(b"".join(line + b"\n" for line in lines))

    def _fill(self, enough: int, *, lines: bool, timeout: float = TIMEOUT) -> None:
        self.sock.settimeout(timeout)
        while (self.buf.count(b"\n") if lines else len(self.buf)) < enough:
            chunk = self.sock.recv(65536)
            if not chunk:
                return
            self.buf += chunk

    def json_lines(self, n: int) -> list[Any]:
        """Exactly ``n`` reply lines, decoded (fewer only if the daemon closes)."""
        self._fill(n, lines=True)
        return self._take(n)

    def poll_line(self, timeout: float) -> Any | None:
        """One decoded line if it arrives within ``timeout`` seconds, else None."""
        try:
            self._fill(1, lines=True, timeout=timeout)
        except TimeoutError:
            return None
        lines = self._take(1)
        return lines[0] if lines else None

    def _take(self, n: int) -> list[Any]:
        out: list[Any] = []
        while len(out) < n and (i := self.buf.find(b"\n")) >= 0:
            out.append(json.loads(self.buf[:i]))
            self.buf = self.buf[i + 1 :]
        return out

    def hello(self, *, token: str | None = None) -> Any:
        """NDJSON hello; returns the ok value."""
        self.send_lines(request(0, "hello", hello_params(token=token)))
        (reply,) = self.json_lines(1)
        return reply["ok"]

    def call(self, id_: int, verb: str, params: dict[str, Any] | None = None) -> Any:
        """Send one request and return its one reply object (ok or error)."""
        self.send_lines(request(id_, verb, params))
        (reply,) = self.json_lines(1)
        return reply

    def read(self, n: int) -> bytes:
        self._fill(n, lines=False)
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def read_frame(self) -> tuple[int, int, bytes]:
        """One binary frame as ``(type, stream, payload)``."""
        type_, stream, length = struct.unpack(">HII", self.read(10))
        return type_, stream, self.read(length)


def json_line(stdout: str) -> Any:
    """The one JSON value a ``--json`` call prints, after checking it is exactly one line."""
    assert stdout.endswith("\n"), stdout
    assert stdout.count("\n") == 1, stdout
    return json.loads(stdout)


def ndjson(stdout: str) -> list[Any]:
    """Every NDJSON line a streaming ``--json`` call prints."""
    return [json.loads(line) for line in stdout.splitlines()]
