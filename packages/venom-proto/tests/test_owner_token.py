"""The owner token file (rfcs/0005-local-grants.md §3): one module writes and reads it."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from venom_proto.owner_token import (
    OwnerToken,
    install_owner_token,
    owner_auth,
    read_owner_token,
    remove_owner_token,
    token_path,
    token_version,
)


def test_token_is_32_random_bytes_hex() -> None:
    first, second = OwnerToken.create(), OwnerToken.create()
    assert len(first.value) == 64
    assert int(first.value, 16) >= 0
    assert first != second
    assert first.value not in repr(first)


@pytest.mark.parametrize("bad", ["", "xyz", "A" * 64, "0" * 63, "0" * 65, 5])
def test_malformed_tokens_are_rejected(bad: Any) -> None:
    with pytest.raises(ValueError, match="64 lowercase hex"):
        OwnerToken(bad)


@pytest.mark.parametrize(
    ("socket", "token"),
    [("/run/v/venom-echo.sock", "/run/v/venom-echo.token"), ("/tmp/x", "/tmp/x.token")],
)
def test_token_path_is_beside_the_socket(socket: str, token: str) -> None:
    assert token_path(socket) == token


def test_install_writes_0600_atomically_and_clients_read_it(tmp_path: Path) -> None:
    sock = str(tmp_path / "venom-echo.sock")
    old_umask = os.umask(0)  # a permissive umask must not widen the file
    try:
        token = install_owner_token(sock)
    finally:
        os.umask(old_umask)
    path = tmp_path / "venom-echo.token"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_text() == token.value + "\n"
    assert os.listdir(tmp_path) == ["venom-echo.token"]  # no temporary file left behind
    assert OwnerToken(read_owner_token(sock) or "") == token
    assert owner_auth(sock) == {"token": token.value}
    replacement = install_owner_token(sock)  # a restart replaces the old token
    assert owner_auth(sock) == {"token": replacement.value}
    remove_owner_token(sock)
    remove_owner_token(sock)  # idempotent
    assert owner_auth(sock) is None


def test_read_refuses_a_symlink(tmp_path: Path) -> None:
    target = tmp_path / "real.token"
    OwnerToken.create().write(str(target))
    (tmp_path / "x.token").symlink_to(target)
    assert read_owner_token(str(tmp_path / "x.sock")) is None
    assert owner_auth(str(tmp_path / "x.sock")) is None


def test_owner_auth_ignores_garbage(tmp_path: Path) -> None:
    (tmp_path / "x.token").write_text("not a token\n")
    assert owner_auth(str(tmp_path / "x.sock")) is None


def test_the_writer_and_the_reader_are_one_module() -> None:
    from venom_proto import owner_token

    functions = (install_owner_token, remove_owner_token, read_owner_token, owner_auth)
    assert token_version.__module__ == owner_token.__name__
    owners = {f.__module__ for f in (*functions, OwnerToken)}
    assert owners == {owner_token.__name__}


def test_a_written_token_reads_back(tmp_path: Path) -> None:
    sock = str(tmp_path / "t.sock")
    token = install_owner_token(sock)
    assert read_owner_token(sock) == token.value
    assert OwnerToken(token.value).matches(read_owner_token(sock))


def test_install_removes_what_a_killed_writer_left(tmp_path: Path) -> None:
    left = tmp_path / ".t.token.0123456789abcdef.tmp"
    left.write_bytes(b"half a token")
    install_owner_token(str(tmp_path / "t.sock"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.token"]


def test_each_written_token_has_a_new_version(tmp_path: Path) -> None:
    sock = str(tmp_path / "t.sock")
    assert token_version(sock) is None
    install_owner_token(sock)
    first = token_version(sock)
    install_owner_token(sock)  # a restart writes a new file, renamed into place
    assert first is not None
    assert token_version(sock) not in (None, first)
