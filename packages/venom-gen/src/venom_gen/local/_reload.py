"""``<tool> serve --reload=true``: development only. A supervisor that owns the daemon's
listening socket, watches the product's package and replaces the daemon on a valid change.

The supervisor binds the socket once (`venom_proto.systemd.activation_socket`) and hands it to
each daemon as systemd's socket activation does (``LISTEN_FDS``, ``LISTEN_PID``,
``LISTEN_FDNAMES``), so the socket never stops listening: a client connecting during a swap
waits in the listen queue and is served by the next daemon, never refused. A change starts a
new daemon in a fresh interpreter (the product's own command line, less ``--reload``), which
recompiles an edited manifest and builds its registry (`venom_gen._handover`): only
when that succeeds is the running daemon stopped (it stops accepting and answers what it
holds, within its drain bound) and the new one told to serve. A change that fails leaves the
running daemon serving and its problem on stderr. rfcs/0002-wire-decisions.md D-W43.

Imported only when ``serve --reload`` runs, and it alone imports watchfiles (the ``reload``
extra): a production ``serve`` and every CLI call load none of it.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Mapping, Sequence

from venom_gen._handover import RELOAD_FD
from venom_gen.cli import flag_value
from venom_gen.product import Product
from venom_proto import VenomError
from venom_proto.conventions import resolve_socket_path
from venom_proto.owner_token import install_owner_token, remove_owner_token
from venom_proto.systemd import LISTEN_FDS_START, activation_socket

__all__ = ("WATCHED_SUFFIXES", "run_reload", "watched_roots")

#: What counts as the product's source under its package directory.
WATCHED_SUFFIXES = (".py", ".zon", ".json", ".toml")
#: How long a new daemon may take to load and check the changed product.
CHECK_SECONDS = 60.0
#: How long the previous daemon may take to drain and exit before it is killed (its own
#: drain bound is 2 s: RFC-0002 §2.5 step 7).
STOP_SECONDS = 10.0
#: How long a daemon told to serve may take to accept.
SERVE_SECONDS = 10.0

# The daemon sees the listening socket at 3 (SD_LISTEN_FDS_START) and the channel at 4.
_CHANNEL_FD = LISTEN_FDS_START + 1
# LISTEN_PID must be the daemon's own pid, known only in the child: the shell's $$ is the pid
# the exec keeps (what systemd does between fork and exec).
_EXEC = 'LISTEN_PID=$$; export LISTEN_PID; exec "$@"'
_REPORT = "serve --reload"


def watched_roots(product: Product) -> list[str]:
    """The directories ``serve --reload`` watches: the product's package (the directory of its
    cached model, which holds its declaration, manifest and handler modules), and the package
    of its handlers module when that lives elsewhere."""
    roots = [os.path.dirname(os.path.abspath(product.model_path))]
    if isinstance(product.handlers, str):
        module = product.handlers.partition(":")[0]
        found = sys.modules.get(module)
        if found is None:
            import importlib.util

            with contextlib.suppress(ImportError, ValueError):
                spec = importlib.util.find_spec(module)
                origin = None if spec is None else spec.origin
                if origin is not None:
                    roots.append(os.path.dirname(origin))
        elif getattr(found, "__file__", None):
            roots.append(os.path.dirname(str(found.__file__)))
    unique: list[str] = []
    for root in roots:
        if not any(root == u or root.startswith(u + os.sep) for u in unique):
            unique.append(root)
    return unique


def _child_command(argv: Sequence[str]) -> list[str] | None:
    """This process's command line less ``--reload=true``: the daemon as the user started it."""
    for i in range(len(argv) - 1, 0, -1):
        if argv[i].startswith("--reload="):
            return [sys.executable, *argv[1:i], *argv[i + 1 :]]
    return None


def _watched(path: str) -> bool:
    return path.endswith(WATCHED_SUFFIXES) and "__pycache__" not in path


def _file_digest(path: str) -> str | None:
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def _high(fd: int) -> int:
    """A close-on-exec duplicate of ``fd`` above the descriptors the child is given, so no
    ``dup2`` of the spawn overwrites another's source."""
    import fcntl

    return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)


class _Daemon:
    """One daemon process started under the supervisor, and its channel."""

    def __init__(self, command: Sequence[str], listener: socket.socket, env: Mapping[str, str]):
        ours, theirs = socket.socketpair()
        listen_fd, channel_fd = _high(listener.fileno()), _high(theirs.fileno())
        child_env = {k: v for k, v in env.items() if k != "LISTEN_PID"}
        child_env.update(
            {"LISTEN_FDS": "1", "LISTEN_FDNAMES": "venom", RELOAD_FD: str(_CHANNEL_FD)}
        )
        try:
            self.pid = os.posix_spawn(
                "/bin/sh",
                ["sh", "-c", _EXEC, "sh", *command],
                child_env,
                file_actions=[
                    (os.POSIX_SPAWN_DUP2, listen_fd, LISTEN_FDS_START),
                    (os.POSIX_SPAWN_DUP2, channel_fd, _CHANNEL_FD),
                ],
                setsigdef=(signal.SIGPIPE, signal.SIGXFSZ, signal.SIGINT, signal.SIGTERM),
            )
        finally:
            os.close(listen_fd)
            os.close(channel_fd)
            theirs.close()
        self.channel = ours
        self.status: int | None = None

    def _read(self, seconds: float) -> bytes:
        self.channel.settimeout(seconds)
        try:
            return self.channel.recv(64)
        except OSError:  # a timeout included: no word in time is no word
            return b""

    def checked(self) -> bool:
        """Whether the daemon loaded the changed product and its registry accepted it."""
        return self._read(CHECK_SECONDS) == b"ready\n"

    def serve(self) -> bool:
        """Tell it to serve (the lock is free); whether it accepts in time."""
        try:
            self.channel.sendall(b"go\n")
        except OSError:
            return False
        return self._read(SERVE_SECONDS) == b"serving\n"

    def poll(self) -> int | None:
        """Its exit status once it has exited (a signal as its negative), else None."""
        if self.status is None:
            pid, raw = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(raw)
        return self.status

    def stop(self, seconds: float = STOP_SECONDS) -> int:
        """SIGTERM (it drains, then exits), SIGKILL after ``seconds``; its exit status."""
        self.channel.close()  # a daemon still waiting for "go" ends on its own
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGTERM)
        deadline = time.monotonic() + seconds
        while self.poll() is None:
            if time.monotonic() > deadline:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.pid, signal.SIGKILL)
                _, raw = os.waitpid(self.pid, 0)
                self.status = os.waitstatus_to_exitcode(raw)
                break
            time.sleep(0.01)
        assert self.status is not None
        return self.status


class _Supervisor:
    def __init__(self, product: Product, command: list[str], listener: socket.socket) -> None:
        self.log = logging.getLogger(f"{product.tool}.reload")
        self.command = command
        self.listener = listener
        self.model_path = os.path.abspath(product.model_path)
        #: The model cache as the last checked daemon left it (it may have recompiled it).
        self.model_digest: str | None = None
        self.current: _Daemon | None = None

    def nothing_new(self, paths: set[str]) -> bool:
        """Whether a batch of changes is only the model cache a daemon just wrote itself."""
        return paths == {self.model_path} and _file_digest(self.model_path) == self.model_digest

    def replace(self) -> bool:
        """Start the changed product; swap it in if it checks out. Whether it serves now."""
        started = time.monotonic()
        new = _Daemon(self.command, self.listener, os.environ)
        checked = new.checked()
        self.model_digest = _file_digest(self.model_path)
        if not checked:
            status = new.stop()
            old = self.current
            serving = old is not None and old.poll() is None
            where = (
                f"pid {old.pid} (the previous version) still serves"
                if serving and old
                else ("nothing serves until a change checks out")
            )
            self.log.error("the change was not applied (exit status %s): %s", status, where)
            return False
        old, self.current = self.current, new
        if old is not None:
            old.stop()  # stops accepting; answers the connections it holds; exits
        if not new.serve():
            self.log.error("the new daemon (pid %s) did not start serving", new.pid)
            return False
        took = (time.monotonic() - started) * 1000
        self.log.info("serving pid %s (changed, checked and swapped in %.0f ms)", new.pid, took)
        return True

    def stop(self) -> None:
        if self.current is not None:
            self.current.stop()


def _forget_bytecode(paths: set[str]) -> None:
    """Remove the ``.pyc`` files of the changed sources before a new daemon imports them.

    A ``.pyc`` is checked against its source's size and its mtime in whole seconds: an edit
    that keeps the size, saved within the second of the last import (an editor's quick fix, a
    tool writing the file twice), would otherwise bring the old code back in the new daemon.
    """
    from importlib.util import cache_from_source

    for path in paths:
        if not path.endswith(".py"):
            continue
        for level in ("", 1, 2):
            with contextlib.suppress(OSError, ValueError, NotImplementedError):
                os.unlink(cache_from_source(path, optimization=level))


def _setup_logging() -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.INFO, handlers=[handler])


def _refuse(tool: str, err: VenomError, json_errors: bool) -> int:
    print(f"{tool} {_REPORT}: {err.message} ({err.code})", file=sys.stderr)
    if json_errors:
        import json

        print(json.dumps({"error": err.to_object()}, separators=(",", ":")), flush=True)
    return err.exit_code


def run_reload(
    product: Product,
    rest: list[str],
    environ: Mapping[str, str] = os.environ,
    argv: Sequence[str] | None = None,
) -> int:
    """Supervise ``product``'s daemon until SIGTERM or SIGINT, replacing it on each valid
    change to `watched_roots`. ``argv`` is the process's command line (``sys.orig_argv``)."""
    json_errors = "--json" in rest
    try:
        import watchfiles
    except ImportError:
        err = VenomError(
            "failed.dependency",
            "serve --reload needs watchfiles: pip install 'venom-gen[reload]'"
            " (venom-gen's dev extra brings it too)",
            {"package": "watchfiles", "extra": "venom-gen[reload]"},
        )
        return _refuse(product.tool, err, json_errors)
    command = _child_command(sys.orig_argv if argv is None else argv)
    if command is None:
        err = VenomError(
            "invalid_params.usage",
            "serve --reload restarts this process's own command line, which lacks --reload:"
            f" run it as '{product.tool} serve --reload=true'",
            {"arg": "--reload"},
        )
        return _refuse(product.tool, err, json_errors)
    _setup_logging()
    try:
        path = resolve_socket_path(product.tool, flag_value(rest, "--socket"), environ)
        listener = activation_socket(path, on_locked=install_owner_token)
    except VenomError as err:
        return _refuse(product.tool, err, json_errors)
    bound = os.stat(path)
    roots = watched_roots(product)
    supervisor = _Supervisor(product, command, listener)
    stop = threading.Event()
    previous = {
        sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)
    }
    supervisor.log.info(
        "development only: watching %s (%s) and serving on %s",
        ", ".join(roots),
        " ".join(WATCHED_SUFFIXES),
        path,
    )
    try:
        changes_seen = watchfiles.watch(
            *roots,
            watch_filter=lambda _change, where: _watched(where),
            stop_event=stop,
            rust_timeout=500,
            yield_on_timeout=True,
            raise_interrupt=False,
        )
        next(changes_seen, None)  # the watcher is live from here: no later change is missed
        supervisor.replace()
        for changes in changes_seen:
            daemon = supervisor.current
            if daemon is not None and daemon.status is None and daemon.poll() is not None:
                supervisor.log.error(
                    "the daemon (pid %s) exited with %s; waiting for a change",
                    daemon.pid,
                    daemon.status,
                )
            paths = {os.path.abspath(p) for _, p in changes}
            if not paths or stop.is_set() or supervisor.nothing_new(paths):
                continue
            supervisor.log.info("changed: %s", ", ".join(sorted(paths)))
            _forget_bytecode(paths)
            supervisor.replace()
    finally:
        supervisor.stop()
        listener.close()
        with contextlib.suppress(OSError):
            now_there = os.stat(path)
            if (now_there.st_dev, now_there.st_ino) == (bound.st_dev, bound.st_ino):
                os.unlink(path)
        remove_owner_token(path)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    supervisor.log.info("stopped")
    return 0
