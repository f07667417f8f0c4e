"""The one atomic writer (`venom_proto.files`): durability, atomicity, clean-up, modes."""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import threading
from pathlib import Path
from typing import Any

import pytest

from venom_proto import files
from venom_proto.files import FileRefused, read_regular, remove_stale, write_all, write_atomic


@pytest.fixture(params=[True, False], ids=["unnamed", "named"])
def unnamed(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Both temporary-file strategies: ``O_TMPFILE`` where it works, and a named file."""
    monkeypatch.setattr(files, "_link_unnamed_works", request.param)
    return bool(request.param)


def test_the_file_and_then_its_directory_are_fsynced_around_the_rename(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, unnamed: bool
) -> None:
    """The durability rule: fsync the data, rename, fsync the directory that holds the name."""
    events: list[tuple[str, str]] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        st = os.fstat(fd)
        events.append(("fsync", "dir" if stat.S_ISDIR(st.st_mode) else "file"))
        real_fsync(fd)

    def replace(src: Any, dst: Any) -> None:
        events.append(("replace", os.path.basename(dst)))
        real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    write_atomic(tmp_path / "state.json", b"{}\n")
    # Where linking an O_TMPFILE file is refused, the data is written (and fsynced) again.
    assert events[-3:] == [("fsync", "file"), ("replace", "state.json"), ("fsync", "dir")]
    assert events[:-3] in ([], [("fsync", "file")])


def test_the_file_has_exactly_the_mode_whatever_the_umask(tmp_path: Path, unnamed: bool) -> None:
    old = os.umask(0o077)
    try:
        write_atomic(tmp_path / "page.1", b"x", 0o644)
    finally:
        os.umask(old)
    write_atomic(tmp_path / "secret", b"y")
    assert stat.S_IMODE(os.stat(tmp_path / "page.1").st_mode) == 0o644
    assert stat.S_IMODE(os.stat(tmp_path / "secret").st_mode) == 0o600  # the default
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.1", "secret"]


def test_a_relative_path_is_written_in_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, unnamed: bool
) -> None:
    monkeypatch.chdir(tmp_path)
    write_atomic("plain", b"data")
    assert (tmp_path / "plain").read_bytes() == b"data"


@pytest.mark.parametrize("failing", ["write", "fsync", "replace"])
def test_a_failed_write_leaves_the_old_file_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, unnamed: bool, failing: str
) -> None:
    target = tmp_path / "config.toml"
    target.write_bytes(b"old")

    def boom(*args: Any, **kwargs: Any) -> Any:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, failing, boom)
    with pytest.raises(OSError, match="No space"):
        write_atomic(target, b"new" * 1000, 0o600, prefix=".config.")
    monkeypatch.undo()
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.toml"]


def test_a_killed_writers_temporary_is_removed_by_the_default_prefix(tmp_path: Path) -> None:
    left = tmp_path / ".tokens.json.0123456789abcdef.tmp"
    left.write_bytes(b"half")
    assert remove_stale(tmp_path, ".tokens.json.") == 1
    assert not left.exists()


def test_a_cleaner_racing_a_writer_never_costs_the_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If the cleaner removes a named temporary before its writer locks it, the writer starts
    again under a new name."""
    monkeypatch.setattr(files, "_link_unnamed_works", False)
    real_flock = fcntl.flock
    raced: list[int] = []

    def flock(fd: int, op: int) -> None:
        if not raced and op == fcntl.LOCK_EX:
            raced.append(remove_stale(tmp_path, ".config."))  # the cleaner gets there first
        real_flock(fd, op)

    monkeypatch.setattr(fcntl, "flock", flock)
    write_atomic(tmp_path / "config.toml", b"data", 0o600, prefix=".config.")
    assert raced == [1]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.toml"]
    assert (tmp_path / "config.toml").read_bytes() == b"data"


def test_write_all_waits_out_a_full_non_blocking_pipe() -> None:
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    data = os.urandom(1 << 20)  # far more than a pipe buffer holds
    got = bytearray()

    def drain() -> None:
        while chunk := os.read(read_end, 65536):
            got.extend(chunk)

    reader = threading.Thread(target=drain)
    reader.start()
    try:
        write_all(write_end, data)
    finally:
        os.close(write_end)
        reader.join(30)
        os.close(read_end)
    assert bytes(got) == data


def test_a_private_read_refuses_a_file_others_could_read_or_write(tmp_path: Path) -> None:
    secret = tmp_path / "tokens.json"
    write_atomic(secret, b"{}")
    assert read_regular(secret, 10, private=True) == b"{}"
    os.chmod(secret, 0o640)
    assert read_regular(secret, 10) == b"{}"
    with pytest.raises(FileRefused, match="with mode 640, not 600"):
        read_regular(secret, 10, private=True)
