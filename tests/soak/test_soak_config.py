"""config.set on a full disk or a read-only file system: the old file stays, the error is clear.

``XDG_CONFIG_HOME`` is a 64 KiB tmpfs mounted for the test (needs root, else it is skipped).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from soak_kit import FIGURES, EchoDaemon, LineConn, hello_line


def _mount(*args: str) -> bool:
    done = subprocess.run(["mount", *args], capture_output=True, timeout=10)
    return done.returncode == 0


@pytest.fixture
def tmpfs_daemon() -> Iterator[EchoDaemon]:
    d = EchoDaemon()
    d.config_home.mkdir(mode=0o700)
    if not _mount("-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", str(d.config_home)):
        d.cleanup()
        pytest.skip("cannot mount a tmpfs (needs root)")
    try:
        d.start()
        yield d
    finally:
        d.stop()
        subprocess.run(["umount", "-l", str(d.config_home)], capture_output=True, timeout=10)
        d.cleanup()


async def _config_set(d: EchoDaemon, value: str) -> dict[str, Any]:
    conn = await LineConn.open(d.socket)
    try:
        await conn.send(hello_line(token=d.token))
        hello = await conn.line()
        assert hello is not None
        assert "ok" in hello, hello
        params = {"key": "greeting", "value": value}
        reply: dict[str, Any] = await conn.call("config.set", params, id_=1)
        got = await conn.call("config.get", {"key": "greeting"}, id_=2)
        reply["effective"] = got["ok"]["value"]
        return reply
    finally:
        await conn.close()


def config_set(d: EchoDaemon, value: str) -> dict[str, Any]:
    return asyncio.run(asyncio.wait_for(_config_set(d, value), 30))


def _fill(directory: Path) -> None:
    """Write until the file system is full."""
    code = 0
    with open(directory / "filler", "wb", buffering=0) as f:
        try:
            while True:
                f.write(b"\0" * 4096)
        except OSError as exc:
            code = exc.errno or 0
    assert code == errno.ENOSPC


def _leftovers(directory: Path) -> list[str]:
    return [p.name for p in directory.iterdir() if p.name.startswith(".config.")]


def _check_refused(reply: dict[str, Any], path: Path, old: bytes) -> str:
    """A clear ``failed.write`` naming the file; the file and the configuration unchanged."""
    assert reply["effective"] == '"before"', "a failed write changed the configuration"
    assert path.read_bytes() == old, "the old file was damaged"
    assert not _leftovers(path.parent), _leftovers(path.parent)
    assert reply["error"]["code"] == "failed.write", reply
    assert str(path) in reply["error"]["message"]
    return str(reply["error"]["message"])


def test_config_set_on_a_full_disk_keeps_the_old_file(tmpfs_daemon: EchoDaemon) -> None:
    """rfcs/0001 config.set: atomic write by rename; a failed write changes nothing."""
    d = tmpfs_daemon
    first = config_set(d, "before")
    assert first["ok"] == {"key": "greeting", "value": '"before"'}, first
    path = d.config_home / "venom-echo" / "config.toml"
    old = path.read_bytes()
    too_big = _check_refused(config_set(d, "x" * 200_000), path, old)  # more than the disk
    _fill(d.config_home)
    full = _check_refused(config_set(d, "after"), path, old)
    assert "No space left on device" in too_big
    assert "No space left on device" in full
    FIGURES["config.set on a full 64 KiB tmpfs"] = f"failed.write: {full!r}; old file intact"


def test_config_set_on_a_read_only_disk_fails_clearly(tmpfs_daemon: EchoDaemon) -> None:
    """config.set on a read-only file system: failed.write naming the file, old file intact."""
    d = tmpfs_daemon
    assert "ok" in config_set(d, "before")
    path = d.config_home / "venom-echo" / "config.toml"
    old = path.read_bytes()
    if not _mount("-o", "remount,ro", str(d.config_home)):
        pytest.skip("cannot remount read-only")
    reply = config_set(d, "after")
    assert reply["effective"] == '"before"'
    assert path.read_bytes() == old
    _check_refused(reply, path, old)


def test_config_store_unwritable_directory_regression(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Without a mount: creating the directory or the temporary file failing with EROFS must be
    failed.write (it once escaped as ``internal``)."""
    from venom_gen.daemon import config as config_module
    from venom_proto import VenomError

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    store = config_module.ConfigStore("venom-echo", None)
    real_open = os.open

    def refuse(path: Any, flags: int, *args: Any, **kwargs: Any) -> Any:
        if flags & (os.O_WRONLY | os.O_RDWR):
            raise OSError(errno.EROFS, "Read-only file system")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refuse)
    with pytest.raises(VenomError) as info:
        store._write(b"a = 1\n")
    assert info.value.code == "failed.write"
    assert "Read-only file system" in info.value.message


def test_unwritable_config_dir_for_non_root(tmp_path: Path) -> None:
    """Without root, a 0500 config directory must refuse the write the same way."""
    if os.geteuid() == 0:
        pytest.skip("root ignores directory permissions; the read-only mount covers this")
    d = EchoDaemon()
    try:
        d.start()
        assert "ok" in config_set(d, "before")
        cfg = d.config_home / "venom-echo"
        old = (cfg / "config.toml").read_bytes()
        cfg.chmod(0o500)
        try:
            reply = config_set(d, "after")
        finally:
            with contextlib.suppress(OSError):
                cfg.chmod(0o700)
        assert reply["error"]["code"] == "failed.write", reply
        assert (cfg / "config.toml").read_bytes() == old
    finally:
        d.cleanup()
