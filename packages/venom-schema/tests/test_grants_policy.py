"""Local grants (rfcs/0005-local-grants.md): the vocabulary, held grants, refusals, max_grant."""

from __future__ import annotations

import os
from typing import Any, get_args

import pytest

from venom_proto import ConnectionInfo, VenomError
from venom_proto.owner_token import OwnerToken
from venom_schema.grants import (
    ALL_GRANTS,
    GRANTS,
    PUBLIC_GRANTS,
    check_grant,
    grants_for_connection,
    grants_within,
    permits,
)
from venom_schema.model import Grant


def connection(hello: dict[str, Any]) -> ConnectionInfo:
    return ConnectionInfo(id=1, uid=os.getuid(), gid=os.getgid(), pid=None, hello=hello)


def test_grant_names_match_rfc_0004() -> None:
    """RFC-0004 §2: none, read, write, respond, files, spawn, admin."""
    assert GRANTS == ("none", "read", "write", "respond", "files", "spawn", "admin")
    assert frozenset(GRANTS) == ALL_GRANTS
    assert {"none", "read"} == PUBLIC_GRANTS


def test_the_vocabulary_and_the_floor_are_defined_once() -> None:
    """Every other spelling is this tuple, derived from it, or checked equal to it."""
    from venom_schema import manifest
    from venom_schema.manifest import _validate_verbs

    assert get_args(Grant) == GRANTS  # the typing spelling, in the same order
    assert manifest.GRANTS is GRANTS
    assert _validate_verbs.GRANTS is GRANTS
    assert vars(_validate_verbs)["PUBLIC_GRANTS"] is PUBLIC_GRANTS
    assert PUBLIC_GRANTS < ALL_GRANTS


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
    assert info.value.data == {"verb": "config.set", "grant": "write", "identity": "peer"}
    assert info.value.message == (
        "verb 'config.set' needs grant 'write';"
        " no token was presented (the peer default: read only)"
    )


def test_the_refusal_says_where_the_grants_came_from() -> None:
    """D-S56: no token (the peer default), a token nobody issued, an issued token."""
    token = OwnerToken.create()
    stale = OwnerToken.create()  # e.g. the token of a daemon that has since restarted
    cases = {
        "peer": {},
        "unrecognized": {"auth": stale.auth()},
    }
    for identity, hello in cases.items():
        held = grants_for_connection(connection(hello), token)
        with pytest.raises(VenomError) as info:
            check_grant("write", held, "config.set")
        assert info.value.data is not None
        assert info.value.data["identity"] == identity

    class Issued(frozenset[str]):
        reason = None

    with pytest.raises(VenomError) as info:
        check_grant("write", Issued({"read"}), "config.set")
    assert info.value.data is not None
    assert info.value.data["identity"] == "token"
    assert "issued token" in info.value.message


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
