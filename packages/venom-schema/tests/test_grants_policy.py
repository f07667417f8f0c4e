"""Local grants (rfcs/0005-local-grants.md): owner token file, held grants, refusals, max_grant."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from venom_proto import ConnectionInfo, VenomError
from venom_proto.conventions import owner_auth, read_owner_token, token_path
from venom_schema.grants import (
    ALL_GRANTS,
    GRANTS,
    PUBLIC_GRANTS,
    OwnerToken,
    check_grant,
    grants_for_connection,
    grants_within,
    install_owner_token,
    permits,
    remove_owner_token,
)


def connection(hello: dict[str, Any]) -> ConnectionInfo:
    return ConnectionInfo(id=1, uid=os.getuid(), gid=os.getgid(), pid=None, hello=hello)


def test_grant_names_match_rfc_0004() -> None:
    """RFC-0004 §2: none, read, write, respond, files, spawn, admin."""
    assert GRANTS == ("none", "read", "write", "respond", "files", "spawn", "admin")
    assert frozenset(GRANTS) == ALL_GRANTS
    assert {"none", "read"} == PUBLIC_GRANTS


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


def test_owner_holds_every_grant_others_only_none_and_read() -> None:
    """RFC-0004 §2: unknown callers get at most read-only access."""
    token = OwnerToken.create()
    assert grants_for_connection(connection({"auth": token.auth()}), token) == ALL_GRANTS
    wrong = OwnerToken.create().value
    hellos: list[dict[str, Any]] = [
        {},
        {"auth": {}},
        {"auth": {"token": wrong}},
        {"auth": token.value},
        {"auth": {"token": 5}},
        {"auth": {"token": "é" * 64}},
    ]
    for hello in hellos:
        assert grants_for_connection(connection(hello), token) == PUBLIC_GRANTS
    assert grants_for_connection(connection({"auth": token.auth()}), None) == PUBLIC_GRANTS


def test_check_grant_refuses_with_denied_grant() -> None:
    """RFC-0004 §2 / RFC-0002 §7.2: a missing grant is denied.grant, exit 4."""
    check_grant("read", PUBLIC_GRANTS, "echo")
    check_grant("admin", ALL_GRANTS, "config.set")
    with pytest.raises(VenomError) as info:
        check_grant("write", PUBLIC_GRANTS, "config.set")
    assert info.value.code == "denied.grant"
    assert info.value.exit_code == 4
    assert info.value.data == {"verb": "config.set", "grant": "write"}
    assert info.value.message == "verb 'config.set' needs grant 'write'"


@pytest.mark.parametrize(
    ("max_grant", "within"),
    [
        ("none", {"none"}),
        ("read", {"none", "read"}),
        ("write", {"none", "read", "write"}),
        ("respond", {"none", "read", "respond"}),
        ("files", {"none", "read", "files"}),
        ("spawn", {"none", "read", "spawn"}),
        ("admin", set(GRANTS)),
    ],
)
def test_max_grant_partial_order(max_grant: str, within: set[str]) -> None:
    assert grants_within(max_grant) == within
    for grant in GRANTS:
        assert permits(max_grant, grant) is (grant in within)


def test_unknown_max_grant_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown grant 'root'"):
        grants_within("root")
