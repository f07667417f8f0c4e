"""`DaemonProcess`: the product's real daemon, as a subprocess on a real Unix socket."""

from __future__ import annotations

import errno
import json
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from typing import Any, Self

from venom_gen.product import Product, resolve
from venom_proto import AsyncClient, SyncClient
from venom_proto.conventions import resolve_socket_path
from venom_proto.owner_token import read_owner_token, token_path

from ._dirs import PrivateDirs
from ._mcp_peer import McpPeer
from ._raw import RawPeer

__all__ = ("TIMEOUT", "DaemonProcess", "DaemonStartError", "product_command")

#: How long any one wait of the kit lasts at most (start-up, a CLI run, a stop), in seconds.
TIMEOUT = 15.0

# The product's one binary, run from its reference without needing its console script.
_LAUNCH = (
    "import sys\n"
    "from venom_gen.binary import product_main\n"
    "from venom_gen.product import resolve\n"
    "sys.exit(product_main(resolve(sys.argv[1]), sys.argv[2:]))\n"
)


class DaemonStartError(RuntimeError):
    """The daemon exited, or did not listen in time; the message carries its stderr."""


def product_command(product: str) -> list[str]:
    """argv running the binary of the product ``"module:attribute"`` with this Python."""
    return [sys.executable, "-c", _LAUNCH, product]


class DaemonProcess:
    """``<tool> serve`` in its own `PrivateDirs`, started by `start`, ended by `stop`.

    ``product`` is the ``"module:attribute"`` reference of the `Product` (or its binary's argv
    in ``command``). Everything the daemon and the CLI runs see is private: ``XDG_*`` and
    ``HOME`` point into ``dirs`` (made and removed here when not given). As a context manager
    it starts, and always stops and cleans up, a failed start included.
    """

    def __init__(
        self,
        product: str,
        *,
        dirs: PrivateDirs | None = None,
        command: Sequence[str] | None = None,
        env: Mapping[str, str] | None = None,
        args: Sequence[str] = (),
        timeout: float = TIMEOUT,
    ) -> None:
        found: Product = resolve(product)
        self.product = product
        self.tool = found.tool
        self._own_dirs = dirs is None
        self.dirs = PrivateDirs() if dirs is None else dirs
        self.env = self.dirs.env(self.tool, env)
        self.command = list(command) if command is not None else product_command(product)
        self.args = list(args)
        self.timeout = timeout
        self.socket = resolve_socket_path(self.tool, None, self.env)
        self.log_path = self.dirs.root / "serve.log"
        self.proc: subprocess.Popen[bytes] | None = None
        #: Whether the owner token existed when the socket first accepted (None: not yet).
        self.token_at_first_connect: bool | None = None

    # -- life --------------------------------------------------------------------------------

    def start(self, *, poll: float = 0.01) -> Self:
        """Run ``serve`` and wait until it accepts connections and its owner token exists,
        trying every ``poll`` seconds.

        `token_at_first_connect` records whether the token was already there when the first
        connection succeeded (rfcs/0005 §3 says it must be). Raises `DaemonStartError` (with
        its log) if it exits or does not listen in time; the process is reaped first.
        """
        if self.proc is not None:
            raise RuntimeError("the daemon is already running")
        self.token_at_first_connect = None
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(
                [*self.command, "serve", *self.args],
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=log,
            )
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                code = self.proc.returncode
                self.proc = None
                raise DaemonStartError(f"{self.tool} serve exited with {code}:\n{self.log}")
            if self._listening():
                return self
            time.sleep(poll)
        self.stop(signal.SIGKILL)
        raise DaemonStartError(f"{self.tool} serve did not listen in {self.timeout}s:\n{self.log}")

    def _listening(self) -> bool:
        # The socket must not accept before the token exists; were it to, a client would
        # silently hold only the public grants.
        with socket.socket(socket.AF_UNIX) as probe:
            try:
                probe.connect(self.socket)
            except OSError:
                return False
        has_token = read_owner_token(self.socket) is not None
        if self.token_at_first_connect is None:
            self.token_at_first_connect = has_token
        return has_token

    def stop(self, sig: int = signal.SIGTERM) -> int:
        """Send ``sig`` and reap the daemon (killed if it outlives the timeout); its status."""
        proc, self.proc = self.proc, None
        if proc is None:
            return 0
        if proc.poll() is None:
            proc.send_signal(sig)
        try:
            return proc.wait(self.timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(self.timeout)
            raise

    def close(self) -> None:
        """Stop the daemon and remove the directories this object made."""
        try:
            self.stop()
        finally:
            if self._own_dirs:
                self.dirs.remove()

    def __enter__(self) -> Self:
        try:
            return self.start()
        except BaseException:
            self.close()
            raise

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def running(self) -> bool:
        """True while the process lives."""
        return self.proc is not None and self.proc.poll() is None

    @property
    def log(self) -> str:
        """What the daemon wrote on stderr so far."""
        try:
            return self.log_path.read_text("utf-8", errors="replace")
        except FileNotFoundError:
            return ""

    # -- talking to it -----------------------------------------------------------------------

    def token(self) -> str:
        """The owner token beside the socket (rfcs/0005 §3)."""
        token = read_owner_token(self.socket)
        if token is None:
            raise FileNotFoundError(errno.ENOENT, "no owner token", token_path(self.socket))
        return token

    def _auth(self, owner: bool) -> dict[str, Any] | None:
        return {"token": self.token()} if owner else None

    def client(self, *, owner: bool = True, **options: Any) -> SyncClient:
        """A connected `SyncClient`, holding every grant unless ``owner=False``."""
        options.setdefault("timeout", self.timeout)
        return SyncClient(self.socket, auth=self._auth(owner), **options)

    def async_client(self, *, owner: bool = True, **options: Any) -> AsyncClient:
        """An `AsyncClient` to enter (``async with``), every grant unless ``owner=False``."""
        return AsyncClient(self.socket, auth=self._auth(owner), **options)

    def raw(self, **options: Any) -> RawPeer:
        """A `RawPeer` connected to the socket (no hello sent yet)."""
        options.setdefault("timeout", self.timeout)
        return RawPeer(self.socket, **options)

    def request(
        self, *messages: dict[str, Any], owner: bool = False, max_frame: int | None = None
    ) -> list[Any]:
        """``messages`` on one new raw connection after a hello (with the owner token if
        ``owner``, offering ``max_frame`` if given): every reply after hello's, in order."""
        extra: dict[str, Any] = {} if max_frame is None else {"max_frame": max_frame}
        with self.raw() as peer:
            hello = peer.hello(token=self.token() if owner else None, **extra)
            if "error" in hello:
                raise AssertionError(f"hello failed: {hello}")
            return peer.request(*messages)

    def mcp(self, *args: str) -> McpPeer:
        """``<tool> mcp`` against this daemon, initialized (close it, or use ``with``)."""
        return McpPeer(
            [*self.command, "mcp", *args],
            env=self.env,
            log=self.dirs.root / "mcp.log",
            timeout=self.timeout,
        )

    def cli(
        self,
        *args: str,
        input: str | None = None,
        env: Mapping[str, str] | None = None,
        timeout: float | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """Run the product's CLI with ``args`` against this daemon (private environment, plus
        ``env``), its stdin ``input`` or nothing."""
        return subprocess.run(
            [*self.command, *args],
            env={**self.env, **(env or {})},
            input=input,
            stdin=None if input is not None else subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=self.timeout if timeout is None else timeout,
            check=False,
        )

    def cli_json(self, *args: str) -> Any:
        """Run the CLI, which must exit 0, and decode its stdout (one JSON value)."""
        return json.loads(self._ok(args).stdout)

    def cli_lines(self, *args: str) -> list[Any]:
        """Run the CLI, which must exit 0, and decode each line of its stdout (a stream)."""
        return [json.loads(line) for line in self._ok(args).stdout.splitlines()]

    def _ok(self, args: Sequence[str]) -> subprocess.CompletedProcess[str]:
        run = self.cli(*args)
        if run.returncode != 0:
            shown = " ".join(args)
            raise AssertionError(f"{self.tool} {shown} exited {run.returncode}: {run.stderr}")
        return run

    def __repr__(self) -> str:
        return f"DaemonProcess({self.product!r}, socket={self.socket!r})"
