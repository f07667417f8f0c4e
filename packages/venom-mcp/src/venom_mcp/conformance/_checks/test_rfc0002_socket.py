"""RFC-0002 §2: socket location, permissions, stale sockets, start-up and shutdown."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess

import pytest

from venom_mcp.conformance._kit import (
    FOREIGN_PEER,
    FOREIGN_UID,
    TIMEOUT,
    Daemon,
    foreign_runner,
    not_applicable,
    request_line,
)
from venom_mcp.conformance._model import TargetModel, endless


@pytest.mark.rfc("RFC-0002 §2.4")
def test_runtime_dir_0700_and_socket_0600(fresh: Daemon) -> None:
    """RFC-0002 §2.4: runtime dir created 0700; socket created 0600."""
    fresh.start()
    venom = os.path.dirname(fresh.socket)
    assert stat.S_IMODE(os.lstat(venom).st_mode) == 0o700
    st = os.lstat(fresh.socket)
    assert stat.S_ISSOCK(st.st_mode)
    assert stat.S_IMODE(st.st_mode) == 0o600


@pytest.mark.rfc("RFC-0002 §2.5")
def test_lock_file_holds_the_pid(fresh: Daemon) -> None:
    """RFC-0002 §2.5 step 5: the lock file holds the daemon's PID and a newline."""
    proc = fresh.start()
    lock = fresh.socket[: -len(".sock")] + ".lock"
    with open(lock) as f:
        assert f.read() == f"{proc.pid}\n"


@pytest.mark.rfc("RFC-0002 §2.5")
def test_second_serve_exits_already_running(fresh: Daemon) -> None:
    """RFC-0002 §2.5 step 2: a second serve exits with conflict.already_running (5)."""
    fresh.start()
    second = fresh.start(wait=False)
    assert second.wait(TIMEOUT) == 5
    assert "already" in second.log
    with fresh.connect() as c:  # the first daemon is unharmed
        c.send_lines(b'{"id":1,"verb":"ping"}')
        assert c.lines(1) == [b'{"id":1,"ok":{}}']


@pytest.mark.rfc("RFC-0002 §2.5")
def test_stale_socket_after_kill_9_is_replaced(fresh: Daemon) -> None:
    """RFC-0002 §2.5: after kill -9 the socket is stale; the next serve cleans it and serves."""
    fresh.start()
    fresh.stop(signal.SIGKILL)
    assert stat.S_ISSOCK(os.lstat(fresh.socket).st_mode)
    r = fresh.cli("ping", "--json")
    assert r.returncode == 6
    assert json.loads(r.stdout)["error"]["code"] == "unavailable.not_running"
    fresh.start()
    assert fresh.cli("ping", "--json").returncode == 0


@pytest.mark.rfc("RFC-0002 §2.5")
def test_non_socket_at_the_path_is_refused_and_untouched(fresh: Daemon) -> None:
    """RFC-0002 §2.5 step 3: a non-socket at the path -> conflict.not_a_socket (5), untouched."""
    os.makedirs(os.path.dirname(fresh.socket), mode=0o700)
    with open(fresh.socket, "w") as f:
        f.write("precious")
    proc = fresh.start(wait=False)
    assert proc.wait(TIMEOUT) == 5
    with open(fresh.socket) as f:
        assert f.read() == "precious"


@pytest.mark.rfc("RFC-0002 §2.5")
def test_sigterm_unlinks_socket_and_releases_lock(fresh: Daemon) -> None:
    """RFC-0002 §2.5 steps 7-8: clean shutdown unlinks the socket and frees the lock."""
    fresh.start()
    assert fresh.stop(signal.SIGTERM) == 0
    assert not os.path.exists(fresh.socket)
    fresh.start()  # the lock was released


@pytest.mark.rfc("RFC-0002 §2.5")
def test_sigterm_ends_streams_with_cancelled(fresh: Daemon, model: TargetModel) -> None:
    """RFC-0002 §2.5 step 7 / §7.2: in-flight requests end with cancelled on shutdown."""
    verb, params = endless(model)
    fresh.start()
    with fresh.connect() as c:
        c.send_lines(request_line(1, verb, params), b'{"id":2,"verb":"ping"}')
        c.until_id(2)
        assert fresh.proc is not None
        fresh.proc.send_signal(signal.SIGTERM)
        rest = [json.loads(x) for x in c.until_closed().splitlines()]
    assert rest[-1]["id"] == 1
    assert rest[-1]["error"]["code"] == "cancelled"


@pytest.mark.rfc("RFC-0002 §2.4")
@pytest.mark.parametrize("mode", [0o755, 0o710, 0o701])
def test_daemon_refuses_an_open_runtime_dir(fresh: Daemon, mode: int) -> None:
    """RFC-0002 §2.4: group/other bits on the runtime dir -> denied.insecure_path (4)."""
    venom = os.path.dirname(fresh.socket)
    os.makedirs(venom, mode=0o700)
    os.chmod(venom, mode)
    proc = fresh.start(wait=False)
    assert proc.wait(TIMEOUT) == 4
    assert not os.path.exists(fresh.socket)


@pytest.mark.rfc("RFC-0002 §2.4")
def test_daemon_and_client_refuse_a_symlinked_runtime_dir(fresh: Daemon) -> None:
    """RFC-0002 §2.4: a symlinked runtime dir is refused by daemon and client (exit 4)."""
    real = fresh.root / "real"
    real.mkdir(mode=0o700)
    fresh.runtime.mkdir(mode=0o700, exist_ok=True)
    os.symlink(real, os.path.dirname(fresh.socket))
    proc = fresh.start(wait=False)
    assert proc.wait(TIMEOUT) == 4
    r = fresh.cli("ping", "--json")
    assert r.returncode == 4
    assert json.loads(r.stdout)["error"]["code"] == "denied.insecure_path"


@pytest.mark.rfc("RFC-0002 §2.4")
def test_client_refuses_foreign_owned_runtime_dir(fresh: Daemon) -> None:
    """RFC-0002 §2.4: a runtime dir owned by another uid is refused by the client (exit 4)."""
    if os.getuid() != 0:
        not_applicable("needs root to chown")
    venom = os.path.dirname(fresh.socket)
    os.makedirs(venom, mode=0o700)
    os.chown(venom, 65534, 65534)
    r = fresh.cli("ping", "--json")
    assert r.returncode == 4
    assert json.loads(r.stdout)["error"]["code"] == "denied.insecure_path"


@pytest.mark.rfc("RFC-0002 §2.3")
def test_env_override_and_socket_flag(fresh: Daemon) -> None:
    """RFC-0002 §2.3: --socket wins over <TOOL>_SOCKET, which wins over the default."""
    alt = str(fresh.root / "alt.sock")
    env_name = fresh.target.tool.upper().replace("-", "_") + "_SOCKET"
    fresh.proc = fresh.start("--socket", alt, wait=False)
    fresh.socket = alt
    fresh.wait_ready()
    assert fresh.cli("ping", env={env_name: alt}).returncode == 0
    assert fresh.cli("ping", "--socket", alt, env={env_name: "/nonexistent/x.sock"}).returncode == 0
    r = fresh.cli("ping", "--json", env={env_name: "/nonexistent/x.sock"})
    assert r.returncode == 6
    error = json.loads(r.stdout)["error"]
    assert error["code"] == "unavailable.not_running"
    assert error["data"] == {"socket": "/nonexistent/x.sock"}


@pytest.mark.rfc("RFC-0002 §2.3")
def test_too_long_socket_path_fails_not_truncated(fresh: Daemon) -> None:
    """RFC-0002 §2.3: a path that doesn't fit sun_path fails with unavailable.path_too_long."""
    long_path = "/tmp/" + "d" * 120 + ".sock"
    r = fresh.cli("ping", "--json", "--socket", long_path)
    assert r.returncode == 6
    assert json.loads(r.stdout)["error"]["code"] == "unavailable.path_too_long"
    proc = fresh.start("--socket", long_path, wait=False)
    assert proc.wait(TIMEOUT) == 6


@pytest.mark.rfc("RFC-0002 §2.4")
def test_peer_of_another_uid_is_closed_without_reply(fresh: Daemon) -> None:
    """RFC-0002 §2.4: a peer with another UID is closed without a reply.

    The foreign peer must be seen to connect and send: a peer that cannot run at all (an
    interpreter that uid cannot execute) makes the check not applicable, never a pass.
    """
    runner = foreign_runner(FOREIGN_UID)
    if runner is None:
        not_applicable(
            f"no program this suite can run as uid {FOREIGN_UID} (needs root, setpriv and an"
            " interpreter that uid may execute)"
        )
        return
    fresh.start()
    alt = fresh.socket
    # Open the path only after start-up, so the foreign peer can reach the socket at all.
    for d in (fresh.root, fresh.runtime, os.path.dirname(alt)):
        os.chmod(d, 0o711)
    os.chmod(alt, 0o666)
    out = subprocess.run(
        [*runner, "-c", FOREIGN_PEER, alt], capture_output=True, text=True, timeout=TIMEOUT
    )
    lines = out.stdout.splitlines()
    assert lines[:1] == ["connected"], out  # it did reach the daemon
    assert lines[1:] in (["b''"], ["closed"]), out  # and got no byte back before the close
    with socket.socket(socket.AF_UNIX) as s:  # and we are still served
        s.settimeout(5)
        s.connect(alt)
        s.sendall(b'{"id":1,"verb":"ping"}\n')
        assert s.recv(100) == b'{"id":1,"ok":{}}\n'
