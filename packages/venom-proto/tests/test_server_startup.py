"""The serve start-up sequence, stale sockets and shutdown (RFC-0002 2.4, 2.5)."""

from __future__ import annotations

import fcntl
import os
import signal
import socket
import stat
import time
from pathlib import Path
from typing import Any

import orjson
import pytest

from venom_proto import VenomError
from venom_proto._server.startup import start_listening


def _mode(path: str) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_socket_is_0600_from_bind_on(sock_path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """RFC-0002 §2.4: the socket is created 0600 (umask 0177 around bind), never wider."""
    seen_before_chmod: list[int] = []
    real_chmod = os.chmod

    def spy(path: Any, mode: int, **kwargs: Any) -> None:
        assert kwargs.get("follow_symlinks") is False  # never through a symlink
        st = os.stat(path, dir_fd=kwargs.get("dir_fd"), follow_symlinks=False)
        seen_before_chmod.append(stat.S_IMODE(st.st_mode))
        real_chmod(path, mode, **kwargs)

    monkeypatch.setattr(os, "chmod", spy)
    old = os.umask(0)  # the widest umask a daemon could inherit
    try:
        listener = start_listening(sock_path)
    finally:
        os.umask(old)
    try:
        assert seen_before_chmod == [0o600]
        assert _mode(sock_path) == 0o600
        assert stat.S_ISSOCK(os.lstat(sock_path).st_mode)
        assert os.umask(old) == old  # the process umask was restored
    finally:
        listener.close()


def test_a_symlinked_lock_file_is_refused_and_its_target_untouched(
    sock_path: str, short_dir: Path
) -> None:
    """Issue 12 §2: the lock file is opened with O_NOFOLLOW, inside the checked directory."""
    target = short_dir / "victim"
    target.write_text("keep\n")
    os.symlink(target, sock_path[: -len(".sock")] + ".lock")
    with pytest.raises(VenomError) as info:
        start_listening(sock_path)
    assert info.value.code == "failed.lock"
    assert target.read_text() == "keep\n"
    assert not os.path.exists(sock_path)


def test_everything_happens_in_the_directory_that_was_checked(
    sock_path: str, short_dir: Path
) -> None:
    """Issue 12 §2: the runtime directory is opened once; a swap after the check changes
    nothing (the socket and lock are made in the directory that was verified)."""
    listener = start_listening(sock_path)
    try:
        moved = short_dir.with_name(short_dir.name + "-moved")
        os.rename(short_dir, moved)
        os.mkdir(short_dir, 0o700)  # a fresh directory under the old name
        assert os.path.exists(moved / "t.sock")
        assert not os.path.exists(sock_path)
    finally:
        listener.close()
        assert not os.path.exists(moved / "t.sock")  # unlinked where it was made
        os.rmdir(short_dir)
        os.rename(moved, short_dir)


def test_lock_file_holds_pid_and_the_lock(sock_path: str) -> None:
    """RFC-0002 §2.5: lock file 0600 with our PID; a second serve gets conflict.already_running."""
    listener = start_listening(sock_path)
    lock = sock_path[: -len(".sock")] + ".lock"
    try:
        assert Path(lock).read_text() == f"{os.getpid()}\n"
        assert _mode(lock) == 0o600
        with pytest.raises(VenomError) as info:
            start_listening(sock_path)
        assert info.value.code == "conflict.already_running"
        assert info.value.exit_code == 5
        assert stat.S_ISSOCK(os.lstat(sock_path).st_mode)  # the live socket was not touched
    finally:
        listener.close()
    assert not os.path.exists(sock_path)
    fd = os.open(lock, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released by close
    finally:
        os.close(fd)


def test_stale_socket_is_unlinked(sock_path: str) -> None:
    """RFC-0002 §2.5: a socket file without a lock holder is stale and replaced."""
    dead = socket.socket(socket.AF_UNIX)
    dead.bind(sock_path)
    dead.close()
    with socket.socket(socket.AF_UNIX) as probe, pytest.raises(ConnectionRefusedError):
        probe.connect(sock_path)
    listener = start_listening(sock_path)  # bind would fail with EADDRINUSE had it not unlinked
    try:
        with socket.socket(socket.AF_UNIX) as probe:
            probe.connect(sock_path)
    finally:
        listener.close()


def test_non_socket_is_left_untouched(sock_path: str) -> None:
    """RFC-0002 §2.5: a regular file at the socket path -> conflict.not_a_socket, unchanged."""
    Path(sock_path).write_bytes(b"precious")
    with pytest.raises(VenomError) as info:
        start_listening(sock_path)
    assert info.value.code == "conflict.not_a_socket"
    assert info.value.exit_code == 5
    assert Path(sock_path).read_bytes() == b"precious"


def test_path_too_long_refused(short_dir: Path) -> None:
    """RFC-0002 §2.3: a long path is refused, not truncated."""
    path = str(short_dir / ("x" * 120 + ".sock"))
    with pytest.raises(VenomError) as info:
        start_listening(path)
    assert info.value.code == "unavailable.path_too_long"
    assert not os.path.exists(path)


def test_runtime_dir_created_0700(short_dir: Path) -> None:
    """RFC-0002 §2.5 step 1: the runtime directory is created 0700 before binding."""
    path = str(short_dir / "venom" / "t.sock")
    listener = start_listening(path)
    try:
        assert _mode(str(short_dir / "venom")) == 0o700
    finally:
        listener.close()


def _error_line(stderr: bytes) -> Any:
    return orjson.loads(stderr.strip().splitlines()[-1])["error"]


def test_demo_exits_4_on_insecure_dir(short_dir: Path, daemons: Any) -> None:
    """RFC-0002 §2.4: the daemon refuses to start in a group-readable directory (exit 4)."""
    os.chmod(short_dir, 0o750)
    proc = daemons.demo(str(short_dir / "e.sock"))
    status, err = daemons.finish(proc)
    assert status == 4
    assert _error_line(err)["code"] == "denied.insecure_path"
    assert not os.path.exists(short_dir / "e.sock")


def test_demo_exits_4_on_symlinked_dir(short_dir: Path, daemons: Any) -> None:
    """RFC-0002 §2.4: a symlinked runtime directory is refused (lstat)."""
    real = short_dir / "real"
    real.mkdir(mode=0o700)
    (short_dir / "ln").symlink_to(real)
    status, err = daemons.finish(daemons.demo(str(short_dir / "ln" / "e.sock")))
    assert status == 4
    assert _error_line(err)["data"]["problem"] == "symlink"


@pytest.mark.skipif(os.getuid() != 0, reason="needs root to chown to another user")
def test_demo_exits_4_on_foreign_dir(short_dir: Path, daemons: Any) -> None:
    """RFC-0002 §2.4: a runtime directory owned by someone else is refused."""
    other = short_dir / "other"
    other.mkdir(mode=0o700)
    os.chown(other, 65534, 65534)
    status, err = daemons.finish(daemons.demo(str(other / "e.sock")))
    assert status == 4
    assert _error_line(err)["data"]["problem"] == "owner"


def test_demo_exits_6_on_long_path(short_dir: Path, daemons: Any) -> None:
    """RFC-0002 §2.3: path_too_long has exit code 6."""
    status, err = daemons.finish(daemons.demo(str(short_dir / ("y" * 120))))
    assert status == 6
    assert _error_line(err)["data"]["limit"] == 107


def test_demo_exits_5_on_non_socket(sock_path: str, daemons: Any) -> None:
    """RFC-0002 §2.5: conflict.not_a_socket exits 5 and leaves the file alone."""
    Path(sock_path).write_bytes(b"keep")
    status, err = daemons.finish(daemons.demo(sock_path))
    assert status == 5
    assert _error_line(err)["code"] == "conflict.not_a_socket"
    assert Path(sock_path).read_bytes() == b"keep"


def test_restart_after_kill_9(sock_path: str, daemons: Any, peers: Any) -> None:
    """RFC-0002 §2.5: a crashed daemon leaves a stale socket; the next serve cleans it up."""
    first = daemons.demo(sock_path)
    daemons.wait_listening(sock_path, first)
    first.kill()  # SIGKILL: no shutdown path runs
    assert first.wait(5) == -signal.SIGKILL
    assert stat.S_ISSOCK(os.lstat(sock_path).st_mode)
    second = daemons.demo(sock_path)
    daemons.wait_listening(sock_path, second)
    assert peers(sock_path).call({"id": 1, "verb": "echo", "params": {"text": "ok"}}) == {
        "id": 1,
        "ok": {"text": "ok"},
    }
    second.send_signal(signal.SIGTERM)
    status, _ = daemons.finish(second)
    assert status == 0
    assert not os.path.exists(sock_path)


def test_four_racing_serves(sock_path: str, daemons: Any) -> None:
    """RFC-0002 §2.5: racing serves are serialised by flock; exactly one wins, the rest exit 5."""
    procs = [daemons.demo(sock_path) for _ in range(4)]
    deadline = time.monotonic() + 15
    while sum(p.poll() is not None for p in procs) < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    losers = [p for p in procs if p.poll() is not None]
    assert [(p.returncode, _error_line(daemons.finish(p)[1])["code"]) for p in losers] == [
        (5, "conflict.already_running")
    ] * 3
    (winner,) = (p for p in procs if p.poll() is None)
    daemons.wait_listening(sock_path, winner)
    winner.send_signal(signal.SIGTERM)
    assert daemons.finish(winner)[0] == 0


def test_unwritable_parent_is_a_clear_error(short_dir: Path, daemons: Any) -> None:
    """RFC-0002 §7.2: a system error at start-up is an error line and exit code, no traceback."""
    blocker = short_dir / "file"
    blocker.write_text("")
    status, err = daemons.finish(daemons.demo(str(blocker / "venom" / "e.sock")))
    assert status == 1
    assert b"Traceback" not in err
    assert _error_line(err)["code"] == "failed.startup"
