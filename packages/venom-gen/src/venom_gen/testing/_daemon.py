"""`DaemonProcess`: a product's real daemon (or any daemon command) on a real Unix socket."""

from __future__ import annotations

import errno
import json
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
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
    """The daemon exited, or was not ready in time; the message carries its stderr."""


def product_command(product: str) -> list[str]:
    """argv running the binary of the product ``"module:attribute"`` with this Python."""
    return [sys.executable, "-c", _LAUNCH, product]


class DaemonProcess:
    """A daemon in its own `PrivateDirs`, started by `start`, ended by `stop`.

    ``product`` is the ``"module:attribute"`` reference of the `Product`; its binary is run as
    ``<binary> serve``. A daemon that is not a product of this Python (another program, a test
    daemon, a baseline) is named by ``tool`` and its whole command line ``argv`` instead.
    Everything the daemon and the CLI runs see is private: ``XDG_*`` and ``HOME`` point into
    ``dirs`` (made and removed here when not given). As a context manager it starts, and always
    stops and cleans up, a failed start included.

    - ``command``: the binary's argv, for `cli` and `mcp` (default: the product's binary, else
      ``[tool]``); ``argv``: the daemon's whole command line (default ``[*command, "serve"]``);
      ``args`` are appended to it.
    - ``env``: the base of the environment (default ``os.environ``), made private as above;
      `env` is the result, which may be changed before `start`.
    - ``socket``: where the daemon listens, when its arguments say so (default: the tool's
      socket in the private runtime directory, RFC-0002 §2.3).
    - ``owner_token``: whether ready also means its owner token exists (rfcs/0005 §3); False
      for a daemon that writes none.
    - ``preexec_fn``: run in the child before the daemon (CPU pinning, resource limits).
    - ``timeout``: the bound of every wait, in seconds.
    """

    def __init__(
        self,
        product: str | None = None,
        *,
        tool: str | None = None,
        dirs: PrivateDirs | None = None,
        command: Sequence[str] | None = None,
        argv: Sequence[str] | None = None,
        env: Mapping[str, str] | None = None,
        args: Sequence[str] = (),
        socket: str | None = None,
        owner_token: bool = True,
        preexec_fn: Callable[[], object] | None = None,
        timeout: float = TIMEOUT,
    ) -> None:
        if tool is None:
            if product is None:
                raise TypeError("DaemonProcess needs a product reference or a tool name")
            found: Product = resolve(product)
            tool = found.tool
        self.product = product
        self.tool = tool
        self._own_dirs = dirs is None
        self.dirs = PrivateDirs() if dirs is None else dirs
        self.env = self.dirs.env(self.tool, env)
        if command is not None:
            self.command = list(command)
        else:
            self.command = product_command(product) if product is not None else [tool]
        self._argv = None if argv is None else list(argv)
        self.args = list(args)
        self.owner_token = owner_token
        self.preexec_fn = preexec_fn
        self.timeout = timeout
        self.socket = socket if socket is not None else resolve_socket_path(tool, None, self.env)
        self.log_path = _fresh_log(self.dirs.root)
        self.proc: subprocess.Popen[bytes] | None = None
        #: Whether the owner token existed when the socket first accepted (None: not yet).
        self.token_at_first_connect: bool | None = None

    @property
    def argv(self) -> list[str]:
        """The daemon's whole command line."""
        base = [*self.command, "serve"] if self._argv is None else self._argv
        return [*base, *self.args]

    # -- life --------------------------------------------------------------------------------

    def start(self, *, poll: float = 0.01) -> Self:
        """Run the daemon and wait until it is `ready`, trying every ``poll`` seconds.

        `token_at_first_connect` records whether the token was already there when the first
        connection succeeded (rfcs/0005 §3 says it must be). Raises `DaemonStartError` (with
        its log) if it exits or is not ready in time; the process is reaped first.
        """
        return self.spawn().wait_ready(poll=poll)

    def spawn(self) -> Self:
        """Run the daemon without waiting for it (a start meant to fail, or a race of
        several); `wait_ready` waits, `wait` takes its exit status."""
        if self.running:
            raise RuntimeError("the daemon is already running")
        if self.proc is not None:
            self.proc.wait()  # it ended by itself; reap it before starting anew
        self.token_at_first_connect = None
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(
                self.argv,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=log,
                preexec_fn=self.preexec_fn,
            )
        return self

    def wait_ready(self, *, poll: float = 0.01) -> Self:
        """Wait until the spawned daemon is `ready`, as `start` does."""
        if self.proc is None:
            raise RuntimeError("the daemon is not running")
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                code = self.proc.returncode
                self.proc = None
                raise DaemonStartError(f"{self.tool} daemon exited with {code}:\n{self.log}")
            if self.ready():
                return self
            time.sleep(poll)
        self.stop(signal.SIGKILL)
        raise DaemonStartError(f"{self.tool} daemon was not ready in {self.timeout}s:\n{self.log}")

    def ready(self) -> bool:
        """Whether the daemon serves now: `socket` accepts a connection and, unless
        ``owner_token=False``, the owner token exists. A subclass may widen it."""
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
        return has_token or not self.owner_token

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

    def wait(self, timeout: float | None = None) -> int:
        """Wait (at most ``timeout``, default the kit's) for the daemon to exit by itself;
        its status (`stop` afterwards returns it again)."""
        if self.proc is None:
            raise RuntimeError("the daemon is not running")
        return self.proc.wait(self.timeout if timeout is None else timeout)

    def send_signal(self, sig: int) -> None:
        """Send ``sig`` to the running daemon, e.g. SIGKILL to test a crash."""
        if self.proc is None:
            raise RuntimeError("the daemon is not running")
        self.proc.send_signal(sig)

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
    def pid(self) -> int:
        """The process id of the daemon spawned last."""
        if self.proc is None:
            raise RuntimeError("the daemon is not running")
        return self.proc.pid

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

    def mcp(self, *args: str, revision: str = "2025-06-18") -> McpPeer:
        """``<tool> mcp`` against this daemon at MCP ``revision`` (`McpPeer`; close it, or use
        ``with``)."""
        return McpPeer(
            [*self.command, "mcp", *args],
            env=self.env,
            log=self.dirs.root / "mcp.log",
            timeout=self.timeout,
            revision=revision,
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
        """Run the CLI with ``--json`` (added unless given), which must exit 0, and decode its
        stdout (one JSON value)."""
        return json.loads(self._ok(_with_json(args)).stdout)

    def cli_lines(self, *args: str) -> list[Any]:
        """Run the CLI with ``--json`` (added unless given), which must exit 0, and decode each
        line of its stdout (a stream)."""
        return [json.loads(line) for line in self._ok(_with_json(args)).stdout.splitlines()]

    def _ok(self, args: Sequence[str]) -> subprocess.CompletedProcess[str]:
        run = self.cli(*args)
        if run.returncode != 0:
            shown = " ".join(args)
            raise AssertionError(f"{self.tool} {shown} exited {run.returncode}: {run.stderr}")
        return run

    def __repr__(self) -> str:
        named = repr(self.product) if self.product is not None else f"tool={self.tool!r}"
        return f"DaemonProcess({named}, socket={self.socket!r})"


def _with_json(args: Sequence[str]) -> Sequence[str]:
    # Without --json the CLI prints human text (rfcs/0004 D-S60); these helpers decode JSON.
    return args if "--json" in args else [*args, "--json"]


def _fresh_log(root: Path) -> Path:
    # Each daemon object has a log of its own, also when several share one `PrivateDirs`.
    path, n = root / "serve.log", 1
    while path.exists():
        n += 1
        path = root / f"serve.{n}.log"
    path.touch()
    return path
