"""The lock file beside a socket (`venom_proto.daemon_lock`): one module takes and reads it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from venom_proto import VenomError, daemon_lock
from venom_proto.daemon_lock import acquire_lock, lock_holder, lock_path, write_pid


def test_the_writer_and_the_reader_are_one_module() -> None:
    owners = {f.__module__ for f in (acquire_lock, write_pid, lock_holder, lock_path)}
    assert owners == {daemon_lock.__name__}


def test_a_held_lock_names_its_pid_and_a_released_one_nobody(tmp_path: Path) -> None:
    sock = str(tmp_path / "t.sock")
    assert lock_holder(sock) is None  # no lock file
    dir_fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fd = acquire_lock(os.path.basename(lock_path(sock)), dir_fd, lock_path(sock))
        assert lock_holder(sock) == ""  # held, no PID written yet
        write_pid(fd)
        assert lock_holder(sock) == str(os.getpid())
        with pytest.raises(VenomError) as info:
            acquire_lock(os.path.basename(lock_path(sock)), dir_fd, lock_path(sock))
        assert info.value.code == "conflict.already_running"
        os.close(fd)
        assert lock_holder(sock) is None  # the file stays; nobody holds it
    finally:
        os.close(dir_fd)
