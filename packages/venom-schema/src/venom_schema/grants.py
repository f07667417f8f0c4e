"""Local grants (rfcs/0005-local-grants.md): the vocabulary, who holds which grant, refusals.

Pure policy: no files, no I/O. The grant vocabulary (`GRANTS`, in its order) and the
read-only floor every caller holds (`PUBLIC_GRANTS`) are defined here once; the model's
``Grant`` literal, the manifest validator, the catalog, the CLI and the token store use these.
A connection whose ``hello.auth`` presents the owner token (`venom_proto.owner_token`, the
file the daemon writes beside its socket) holds all seven grants, one presenting an issued
token holds that token's live set, any other only ``none`` and ``read`` (RFC-0004 §2: unknown
callers get at most read-only access). Grants are not totally ordered; `grants_within` gives
the partial order the MCP adapter's ``--max-grant`` uses.

Light enough for the CLI's verb-call path (the CLI reads the floor): no ``typing`` import.
"""

from __future__ import annotations

from venom_proto import VenomError

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would slow every CLI call.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Container
    from typing import Protocol

    from venom_proto import ConnectionInfo
    from venom_proto.owner_token import OwnerToken

    class IssuedTokens(Protocol):
        """What the policy asks of an issued-token store (venom-gen's ``TokenStore``)."""

        def grants_for(self, text: str) -> Container[str]: ...


__all__ = (
    "ALL_GRANTS",
    "GRANTS",
    "PUBLIC_GRANTS",
    "STATIC_GRANT_CLASSES",
    "check_grant",
    "grants_for_connection",
    "grants_within",
    "permits",
)

#: Every grant a verb can require (RFC-0004 §2), weakest first, in documentation order.
GRANTS: tuple[str, ...] = ("none", "read", "write", "respond", "files", "spawn", "admin")
ALL_GRANTS: frozenset[str] = frozenset(GRANTS)
#: The read-only floor: what every connection holds, owner token or not.
PUBLIC_GRANTS: frozenset[str] = frozenset(GRANTS[:2])
#: The grants between ``read`` and ``admin``; mutually incomparable.
_MIDDLE: frozenset[str] = frozenset(GRANTS[2:-1])


class _Floor(frozenset[str]):
    """The read-only floor, marked with why a connection holds only it (``identity``)."""

    identity = "peer"


class _Unrecognized(_Floor):
    identity = "unrecognized"


#: The classes of grant sets decided once per connection: a plain frozenset (the owner
#: token's, or a test's) and the floor's two kinds. Any other class is live (an issued token's
#: set, re-read before each admission). The daemon's fast path admits these by a class test.
STATIC_GRANT_CLASSES: frozenset[type] = frozenset({frozenset, _Floor, _Unrecognized})

#: No token presented: the peer default (rfcs/0005 §3).
_PEER = _Floor(PUBLIC_GRANTS)
#: A token presented that is neither the owner token nor an issued one (a restarted daemon's
#: old owner token, a token from another machine).
_UNRECOGNIZED = _Unrecognized(PUBLIC_GRANTS)


def grants_for_connection(
    connection_info: ConnectionInfo,
    token: OwnerToken | None,
    issued: IssuedTokens | None = None,
) -> Container[str]:
    """The grants a connection holds: all seven with the owner token in ``hello.auth``, what
    ``issued`` gives for any other token text (an issued token's live set, rfcs/0005 §7.4),
    else the floor."""
    auth = connection_info.hello.get("auth")
    presented = auth.get("token") if isinstance(auth, dict) else None
    if presented is None:
        return _PEER
    if token is not None and token.matches(presented):
        return ALL_GRANTS
    if issued is not None and isinstance(presented, str):
        held = issued.grants_for(presented)
        return _UNRECOGNIZED if held is PUBLIC_GRANTS else held
    return _UNRECOGNIZED


_WHY = {
    "revoked": "the presented token was revoked",
    "expired": "the presented token has expired",
    "unknown": "the presented token is not a valid token",
}


_IDENTITY = {
    "peer": "no token was presented (the peer default: read only)",
    "unrecognized": "the presented token is neither the owner token nor an issued one (read only)",
    "token": "the grants are the presented issued token's",
}


def check_grant(verb_grant: str, held: Container[str], verb_name: str) -> None:
    """Refuse with ``denied.grant`` (exit 4) unless ``verb_grant`` is in ``held``.

    The message and ``data.identity`` say where the grants came from (rfcs/0005 §3):
    ``peer`` (no token presented), ``unrecognized`` (a token the daemon does not know) or
    ``token`` (an issued token; the owner token holds every grant). When an issued token no
    longer counts, ``data.token`` says why (``revoked``, ``expired``, ``unknown``).
    """
    if verb_grant in held:
        return
    identity = getattr(held, "identity", None) or ("token" if hasattr(held, "reason") else "peer")
    data: dict[str, str] = {"verb": verb_name, "grant": verb_grant, "identity": identity}
    message = f"verb '{verb_name}' needs grant '{verb_grant}'"
    reason = getattr(held, "reason", None)
    if reason in _WHY:
        data["token"] = reason
        message += f"; {_WHY[reason]}"
    else:
        message += f"; {_IDENTITY[identity]}"
    raise VenomError("denied.grant", message, data)


def grants_within(max_grant: str) -> frozenset[str]:
    """The grants at or below ``max_grant`` in the partial order of rfcs/0005-local-grants.md.

    ``none < read < {write, respond, files, spawn} < admin``; the four middle grants are
    incomparable. The MCP adapter's ``--max-grant g`` exposes a verb iff its grant is in
    ``grants_within(g)``. Raises `ValueError` for an unknown grant.
    """
    if max_grant == "none":
        return frozenset({"none"})
    if max_grant == "read":
        return PUBLIC_GRANTS
    if max_grant in _MIDDLE:
        return PUBLIC_GRANTS | {max_grant}
    if max_grant == "admin":
        return ALL_GRANTS
    raise ValueError(f"unknown grant {max_grant!r}; expected one of {', '.join(GRANTS)}")


def permits(max_grant: str, verb_grant: str) -> bool:
    """Whether a ``--max-grant max_grant`` surface may offer a verb needing ``verb_grant``."""
    return verb_grant in grants_within(max_grant)
