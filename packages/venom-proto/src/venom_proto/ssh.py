"""Reaching a daemon on another host over SSH (rfcs/0006-remote-use.md §3-§5).

``ssh://[user@]host[:port][/remote/socket/path]`` names a remote daemon wherever a socket path
is taken. A client runs the system's OpenSSH client (``VENOM_SSH_COMMAND`` overrides the
``ssh`` prefix) with ``<tool> bridge`` on the remote side, and speaks the protocol over the
child's stdin/stdout. One child per connection; it is always reaped.

The sync client's transport (`SshChild`) gives it an ordinary socket (one end of a
socketpair), so its code is the same as for a local socket; the async client uses
`open_ssh_stream`.
"""

from __future__ import annotations

import contextlib
import os
import threading
from dataclasses import dataclass
from time import monotonic, sleep
from typing import TYPE_CHECKING

from ._core.errors import VenomError

if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

__all__ = (
    "EXIT_GRACE",
    "SSH_COMMAND_ENV",
    "SSH_SCHEME",
    "STDERR_KEPT",
    "SshChild",
    "SshTarget",
    "check_target",
    "is_ssh_url",
    "parse_ssh_url",
    "remote_tool",
    "ssh_argv",
    "ssh_failure",
    "token_auth",
)

SSH_SCHEME = "ssh://"
#: Replaces the ``ssh`` prefix of the command line, split like a POSIX shell would
#: (``VENOM_SSH_COMMAND="ssh -F ~/.ssh/venom_config"``), as ``GIT_SSH_COMMAND`` does for git.
SSH_COMMAND_ENV = "VENOM_SSH_COMMAND"
#: Bytes of ssh's stderr kept for the error's ``data.stderr``.
STDERR_KEPT = 4096
#: Seconds a closed client waits for ssh to exit before it kills it.
EXIT_GRACE = 2.0


@dataclass(frozen=True, slots=True)
class SshTarget:
    """A parsed ``ssh://`` URL; ``path`` is the remote socket path, None for the default."""

    url: str
    host: str
    user: str | None = None
    port: int | None = None
    path: str | None = None


def is_ssh_url(socket: object) -> bool:
    """Whether ``socket`` names a remote daemon (starts with ``ssh://``)."""
    return isinstance(socket, str) and socket.startswith(SSH_SCHEME)


def _usage(url: str, why: str) -> VenomError:
    return VenomError("invalid_params.usage", f"bad ssh URL {url!r}: {why}", {"socket": url})


#: A user name: the POSIX portable set, not starting with ``-`` (rfcs/0006 §3).
_USER_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
#: A host name label: letters, digits, ``-`` and ``_`` (ssh config aliases use it).
_LABEL_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")
_IPV6_CHARS = frozenset("0123456789abcdefABCDEF:.")
_ZONE_CHARS = _USER_CHARS
_DIGITS = frozenset("0123456789")
_MAX_USER = 64
_MAX_HOST = 253


def _is_user(text: str) -> bool:
    return 0 < len(text) <= _MAX_USER and set(text) <= _USER_CHARS and text[0] != "-"


def _is_ipv4(text: str) -> bool:
    """Four decimal parts 0-255, without leading zeros (``010`` would read as octal)."""
    parts = text.split(".")
    return len(parts) == 4 and all(
        0 < len(p) <= 3 and set(p) <= _DIGITS and (p == "0" or p[0] != "0") and int(p) <= 255
        for p in parts
    )


def _is_host_name(text: str) -> bool:
    """RFC 1123 labels (and ``_``), none starting or ending with ``-``; an all-numeric
    dotted name must be an IPv4 address, never one ``inet_aton`` would guess at."""
    if not 0 < len(text) <= _MAX_HOST:
        return False
    labels = text.split(".")
    if all(set(label) <= _DIGITS for label in labels):
        return _is_ipv4(text)
    return all(
        0 < len(label) <= 63 and set(label) <= _LABEL_CHARS and label[0] != "-" and label[-1] != "-"
        for label in labels
    )


def _is_ipv6(text: str) -> bool:
    """An IPv6 address, optionally with a ``%zone`` of plain characters."""
    address, percent, zone = text.partition("%")
    if percent and not (zone and set(zone) <= _ZONE_CHARS):
        return False
    if ":" not in address or not set(address) <= _IPV6_CHARS:
        return False
    import ipaddress

    try:
        ipaddress.IPv6Address(address)
    except ValueError:
        return False
    return True


def _is_path(text: str) -> bool:
    """No NUL and no control character: the remote path is quoted, never a command, but a
    control character in a socket path is a mistake or an attack, never a file we serve."""
    return not any(c < " " or c == "\x7f" for c in text)


def parse_ssh_url(url: str) -> SshTarget:
    """Parse ``ssh://[user@]host[:port][/path]`` by the grammar of rfcs/0006 §3.

    ``host`` is a host name, an IPv4 address or a bracketed IPv6 address; ``port`` is 1-65535
    in ASCII digits; ``user`` is 1-64 of ``A-Z a-z 0-9 . _ -``, not starting with ``-``. Any
    other text is ``invalid_params.usage`` (exit 2), never another exception: nothing that
    ssh could read as an option, or a ``ProxyCommand`` as shell (``$(...)``, backquotes,
    ``;``, ``|``), gets through. Every client calls this before it runs anything.
    """
    if not is_ssh_url(url):
        raise _usage(url, "it does not start with ssh://")
    authority, slash, rest = url[len(SSH_SCHEME) :].partition("/")
    path = "/" + rest if slash and rest else None
    if path is not None and not _is_path(path):
        raise _usage(url, "the path holds a NUL, newline or other control character")
    user, at, hostport = authority.partition("@")
    if not at:
        user, hostport = "", authority
    elif not _is_user(user):
        raise _usage(url, "the user must be 1-64 of A-Z a-z 0-9 . _ -, not starting with '-'")
    port_text = None
    if hostport.startswith("["):
        host, bracket, after = hostport[1:].partition("]")
        if not bracket or not _is_ipv6(host) or (after and not after.startswith(":")):
            raise _usage(url, "an IPv6 address must be written [addr] or [addr]:port")
        if after:
            port_text = after[1:]
    else:
        host, colon, port_given = hostport.partition(":")
        if colon:
            port_text = port_given
        if not _is_host_name(host):
            raise _usage(
                url, "the host must be a host name, an IPv4 address or a bracketed IPv6 address"
            )
    port = None
    if port_text is not None:
        if not (0 < len(port_text) <= 5 and set(port_text) <= _DIGITS):
            raise _usage(url, "the port must be 1-65535 in ASCII digits")
        port = int(port_text)
        if not 1 <= port <= 65535:
            raise _usage(url, "the port must be 1-65535 in ASCII digits")
    return SshTarget(url=url, host=host, user=user if at else None, port=port, path=path)


def check_target(target: SshTarget) -> None:
    """Refuse a target the grammar would not produce (`invalid_params.usage`), whoever built
    it: `ssh_argv` calls this, so no host, user or port reaches ssh unchecked."""
    host_ok = _is_ipv6(target.host) if ":" in target.host else _is_host_name(target.host)
    user_ok = target.user is None or _is_user(target.user)
    port_ok = target.port is None or (type(target.port) is int and 1 <= target.port <= 65535)
    path_ok = target.path is None or (target.path.startswith("/") and _is_path(target.path))
    if not (host_ok and user_ok and port_ok and path_ok):
        raise _usage(target.url, "the host, user, port or path is not one rfcs/0006 §3 allows")


def remote_tool(target: SshTarget, tool: str | None) -> str:
    """The tool whose bridge runs remotely: ``tool``, else the remote socket path's stem."""
    from .conventions import is_tool_name

    if tool is None and target.path is not None and target.path.endswith(".sock"):
        tool = os.path.basename(target.path)[: -len(".sock")]
    if tool is None or not is_tool_name(tool):
        raise _usage(target.url, "name the remote tool (tool=...) or end the path with <tool>.sock")
    return tool


def ssh_argv(
    target: SshTarget,
    tool: str,
    *,
    connect_timeout: float | None,
    environ: Mapping[str, str] | None = None,
) -> list[str]:
    """The command line: ``ssh -T -o BatchMode=yes -o ConnectTimeout=N [-p P] [-l U] -- HOST
    <tool> bridge [--socket 'PATH']`` (rfcs/0006 §3), the prefix from ``VENOM_SSH_COMMAND``."""
    import math
    import shlex

    check_target(target)
    env = os.environ if environ is None else environ
    prefix = shlex.split(env.get(SSH_COMMAND_ENV, "") or "ssh")
    timeout = 10 if connect_timeout is None else max(1, math.ceil(connect_timeout))
    argv = [*prefix, "-T", "-o", "BatchMode=yes", "-o", f"ConnectTimeout={timeout}"]
    if target.port is not None:
        argv += ["-p", str(target.port)]
    if target.user is not None:
        argv += ["-l", target.user]
    argv += ["--", target.host, tool, "bridge"]
    if target.path is not None:
        argv += ["--socket", shlex.quote(target.path)]
    return argv


def token_auth(tool: str, environ: Mapping[str, str] | None = None) -> dict[str, Any] | None:
    """``{"token": $<TOOL>_TOKEN}`` for ``hello.auth`` when the variable is set (rfcs/0006 §4)."""
    from .conventions import env_token_auth

    return env_token_auth(tool, environ)


def ssh_failure(
    target: SshTarget, status: int | None, stderr: bytes, *, after_hello: bool
) -> VenomError:
    """The error for an ssh child that exited or closed: ``unavailable.ssh`` before hello,
    ``unavailable.disconnected`` after it; ``data`` holds ssh's exit status and stderr."""
    text = stderr[-STDERR_KEPT:].decode("utf-8", "replace").strip()
    data: dict[str, Any] = {"socket": target.url, "stderr": text}
    if status is not None:
        data["status"] = status
    last = text.splitlines()[-1] if text else "the ssh connection closed"
    if after_hello:
        return VenomError(
            "unavailable.disconnected", f"connection to {target.host} lost: {last}", data
        )
    return VenomError("unavailable.ssh", f"cannot reach {target.host} over ssh: {last}", data)


class SshChild:
    """One ``ssh ... <tool> bridge`` child whose stdin and stdout are one end of a socketpair.

    ``sock`` is the other end, for the client to use as it would a Unix socket. ssh runs in
    its own process group, so a Ctrl-C reaches the client (which then cancels the call over
    the live link) rather than killing the link under it. `close` always reaps the child.
    """

    def __init__(self, target: SshTarget, tool: str, *, connect_timeout: float | None) -> None:
        import _socket

        self.target = target
        self.argv = ssh_argv(target, tool, connect_timeout=connect_timeout)
        ours, theirs = _socket.socketpair(_socket.AF_UNIX, _socket.SOCK_STREAM)
        err_r, err_w = os.pipe()
        try:
            self.pid = os.posix_spawnp(
                self.argv[0],
                self.argv,
                os.environ,
                file_actions=[
                    (os.POSIX_SPAWN_DUP2, theirs.fileno(), 0),
                    (os.POSIX_SPAWN_DUP2, theirs.fileno(), 1),
                    (os.POSIX_SPAWN_DUP2, err_w, 2),
                ],
                setpgroup=0,
            )
        except OSError as exc:
            ours.close()
            os.close(err_r)
            raise VenomError(
                "unavailable.ssh",
                f"cannot run {self.argv[0]!r}: {exc.strerror or exc}",
                {"socket": target.url, "command": self.argv[0], "reason": str(exc.strerror)},
            ) from None
        finally:
            theirs.close()
            os.close(err_w)
        self.sock = ours
        self._stderr = bytearray()
        self._stderr_lock = threading.Lock()
        self._stderr_done = threading.Event()
        self.status: int | None = None
        # ssh may write more than a pipe buffer (64 KiB) during a session (verbose or
        # banner output); unread, that would stall it and the link with it. The thread owns
        # and closes the pipe's read end, so no close here races its read.
        threading.Thread(
            target=self._pump_stderr, args=(err_r,), name="venom-ssh-stderr", daemon=True
        ).start()

    def _pump_stderr(self, fd: int) -> None:
        """Read ssh's stderr until it closes, keeping the last `STDERR_KEPT` bytes."""
        try:
            while chunk := os.read(fd, 65536):
                with self._stderr_lock:
                    self._stderr += chunk
                    del self._stderr[:-STDERR_KEPT]
        except OSError:
            pass
        finally:
            os.close(fd)
            self._stderr_done.set()

    def _stderr_tail(self, wait: float) -> bytes:
        """What ssh wrote last, after waiting up to ``wait`` s for it to close its stderr."""
        self._stderr_done.wait(wait)
        with self._stderr_lock:
            return bytes(self._stderr)

    def _reap(self, wait: float) -> bool:
        """Collect the exit status, waiting up to ``wait`` seconds; True once reaped."""
        if self.status is not None:
            return True
        deadline = monotonic() + wait
        pause = 0.001
        while True:
            pid, raw = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(raw)
                return True
            if monotonic() >= deadline:
                return False
            sleep(pause)
            pause = min(pause * 2, 0.05)

    def failure(self, *, after_hello: bool) -> VenomError:
        """Why the link ended, for the error the client raises: waits briefly for ssh's exit."""
        self._reap(1.0)
        tail = self._stderr_tail(0.5 if self.status is not None else 0.0)
        return ssh_failure(self.target, self.status, tail, after_hello=after_hello)

    def close(self) -> None:
        """Close the link and reap ssh (killing it after `EXIT_GRACE` seconds); idempotent."""
        self.sock.close()
        if not self._reap(EXIT_GRACE):
            import signal

            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            self.status = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
