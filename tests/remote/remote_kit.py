"""A real OpenSSH server on 127.0.0.1 for the remote-use tests (rfcs/0006).

`Sshd` starts Debian's ``/usr/sbin/sshd -D -e -f CONFIG`` on a free port, as the current user,
with its own host key and generated client keys in its own ``authorized_keys``: one ordinary
key and one forced-command key (``command="venom-echo bridge --socket ..."``). It writes an
``ssh_config`` that pins the host key, so clients run ``ssh -F <that file>`` in batch mode
(``VENOM_SSH_COMMAND``). Everything lives in one private directory, removed by `stop`.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

from integration_kit import Daemon

SSHD = "/usr/sbin/sshd"
TIMEOUT = 15.0


def _keygen(path: Path) -> str:
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "venom-test", "-f", str(path)],
        check=True,
        stdin=subprocess.DEVNULL,
        timeout=TIMEOUT,
    )
    return path.with_suffix(".pub").read_text().strip()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Sshd:
    """One sshd for a test session; `ssh_env` is what a client needs to dial through it."""

    def __init__(self, root: Path, *, session_env: dict[str, str], bridge_socket: str) -> None:
        self.root = root
        self.dir = root / "ssh"
        self.port = _free_port()
        self.session_env = session_env
        self.bridge_socket = bridge_socket
        self.proc: subprocess.Popen[bytes] | None = None
        self.config = self.dir / "ssh_config"

    def start(self) -> None:
        self.dir.mkdir(mode=0o700, parents=True)
        # sshd refuses to start without its privilege-separation directory (Debian's is
        # created by the service unit, which does not run here).
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
        host_pub = _keygen(self.dir / "host_ed25519")
        client_pub = _keygen(self.dir / "client_ed25519")
        forced_pub = _keygen(self.dir / "forced_ed25519")
        forced = (
            f'command="venom-echo bridge --socket {self.bridge_socket}",'
            "no-pty,no-port-forwarding,no-agent-forwarding,no-X11-forwarding"
        )
        (self.dir / "authorized_keys").write_text(f"{client_pub}\n{forced} {forced_pub}\n")
        env = " ".join(f'"{k}={v}"' for k, v in self.session_env.items())
        (self.dir / "sshd_config").write_text(
            f"Port {self.port}\n"
            "ListenAddress 127.0.0.1\n"
            f"HostKey {self.dir / 'host_ed25519'}\n"
            f"AuthorizedKeysFile {self.dir / 'authorized_keys'}\n"
            "PidFile none\n"
            "PermitRootLogin prohibit-password\n"
            "PubkeyAuthentication yes\n"
            "PasswordAuthentication no\n"
            "KbdInteractiveAuthentication no\n"
            "UsePAM no\n"
            "StrictModes no\n"
            "PrintMotd no\n"
            "AllowTcpForwarding no\n"
            "X11Forwarding no\n"
            "MaxStartups 100:30:200\n"
            "MaxSessions 100\n"
            "LogLevel ERROR\n"
            f"SetEnv {env}\n"
        )
        (self.dir / "known_hosts").write_text(f"[127.0.0.1]:{self.port} {host_pub}\n")
        user = os.environ.get("USER") or __import__("pwd").getpwuid(os.getuid()).pw_name
        self.config.write_text(
            "Host *\n"
            "  HostName 127.0.0.1\n"
            f"  Port {self.port}\n"
            f"  User {user}\n"
            f"  IdentityFile {self.dir / 'client_ed25519'}\n"
            "  IdentitiesOnly yes\n"
            f"  UserKnownHostsFile {self.dir / 'known_hosts'}\n"
            "  GlobalKnownHostsFile /dev/null\n"
            "  StrictHostKeyChecking yes\n"
            "  BatchMode yes\n"
            "  LogLevel ERROR\n"
        )
        with (self.dir / "sshd.log").open("ab") as log:
            self.proc = subprocess.Popen(
                [SSHD, "-D", "-e", "-f", str(self.dir / "sshd_config")],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
            )
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"sshd exited: {(self.dir / 'sshd.log').read_text()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                    if s.recv(4).startswith(b"SSH-"):
                        return
            except OSError:
                time.sleep(0.02)
        self.stop()
        raise TimeoutError("sshd did not start")

    def url(self, socket_path: str) -> str:
        """The ``ssh://`` URL of the daemon at ``socket_path`` through this server."""
        return f"ssh://127.0.0.1:{self.port}{socket_path}"

    def ssh_command(self, *extra: str) -> list[str]:
        """``ssh -F <config> EXTRA...``, as tests run it directly."""
        return ["ssh", "-F", str(self.config), *extra]

    @property
    def ssh_env(self) -> dict[str, str]:
        """The client-side variables: the ssh prefix with this server's config."""
        return {"VENOM_SSH_COMMAND": f"ssh -F {self.config}"}

    def forced_key(self) -> str:
        return str(self.dir / "forced_ed25519")

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(TIMEOUT)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(TIMEOUT)
        shutil.rmtree(self.dir, ignore_errors=True)


@contextlib.contextmanager
def running_remote() -> Iterator[tuple[Daemon, Sshd]]:
    """A running venom-echo and an sshd whose sessions see the daemon's environment (its
    ``PATH`` with this venv first, ``HOME`` and XDG directories); all removed afterwards."""
    daemon = Daemon()
    root = daemon.root
    venv_bin = os.path.dirname(daemon.command[0])
    sshd = Sshd(
        root,
        session_env={
            "PATH": f"{venv_bin}:/usr/local/bin:/usr/bin:/bin",
            "HOME": daemon.env["HOME"],
            "XDG_RUNTIME_DIR": daemon.env["XDG_RUNTIME_DIR"],
            "XDG_CONFIG_HOME": daemon.env["XDG_CONFIG_HOME"],
            # The bridge reads the issued-token store under the daemon's state directory.
            "XDG_STATE_HOME": daemon.env["XDG_STATE_HOME"],
            "XDG_DATA_HOME": daemon.env["XDG_DATA_HOME"],
        },
        bridge_socket=daemon.socket,
    )
    try:
        daemon.start()
        sshd.start()
        yield daemon, sshd
    finally:
        with contextlib.suppress(Exception):
            sshd.stop()
        daemon.close()
