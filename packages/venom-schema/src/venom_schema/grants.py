"""Local grants (rfcs/0005-local-grants.md): the owner token, who holds which grant, refusals.

Policy: the daemon writes a random owner token beside its socket at start-up (clients read it
with `venom_proto.conventions.owner_auth`); a connection whose
``hello.auth`` presents it holds all seven grants, any other connection holds only ``none`` and
``read`` (RFC-0004 §2: unknown callers get at most read-only access). Grants are not totally
ordered; `grants_within` gives the partial order the MCP adapter's ``--max-grant`` uses.
"""

from __future__ import annotations

import contextlib
import hmac
import os
import re
import secrets
from collections.abc import Container, Mapping
from typing import TYPE_CHECKING

from venom_proto import VenomError
from venom_proto.conventions import TOKEN_HEX_DIGITS, token_path

if TYPE_CHECKING:
    from venom_proto import ConnectionInfo

    from .tokens import TokenStore

__all__ = (
    "ALL_GRANTS",
    "GRANTS",
    "PUBLIC_GRANTS",
    "OwnerToken",
    "check_grant",
    "grants_for_connection",
    "grants_within",
    "install_owner_token",
    "permits",
    "remove_owner_token",
    "write_private",
)

#: Every grant a verb can require (RFC-0004 §2), in documentation order.
GRANTS: tuple[str, ...] = ("none", "read", "write", "respond", "files", "spawn", "admin")
ALL_GRANTS: frozenset[str] = frozenset(GRANTS)
#: What every connection holds, owner token or not.
PUBLIC_GRANTS: frozenset[str] = frozenset({"none", "read"})
#: The grants between ``read`` and ``admin``; mutually incomparable.
_MIDDLE: frozenset[str] = frozenset({"write", "respond", "files", "spawn"})

_TOKEN = re.compile(rf"[0-9a-f]{{{TOKEN_HEX_DIGITS}}}\Z")
_TOKEN_BYTES = TOKEN_HEX_DIGITS // 2


class OwnerToken:
    """The daemon owner's secret: 32 random bytes as 64 lowercase hex digits.

    ``repr`` never shows the secret. `matches` compares in constant time.
    """

    __slots__ = ("_secret",)

    def __init__(self, value: str) -> None:
        if not isinstance(value, str) or not _TOKEN.match(value):
            raise ValueError("an owner token is 64 lowercase hex digits")
        self._secret = value.encode("ascii")

    @classmethod
    def create(cls) -> OwnerToken:
        """A fresh random token."""
        return cls(secrets.token_hex(_TOKEN_BYTES))

    @property
    def value(self) -> str:
        """The token text a client presents as ``hello.auth.token``."""
        return self._secret.decode("ascii")

    def auth(self) -> dict[str, str]:
        """The ``hello.auth`` object presenting this token."""
        return {"token": self.value}

    def matches(self, candidate: object) -> bool:
        """Whether ``candidate`` is this token; constant time in the candidate's content."""
        if not isinstance(candidate, str):
            return False
        presented = candidate.encode("utf-8", "surrogatepass")
        return hmac.compare_digest(presented, self._secret)

    def write(self, path: str) -> None:
        """Write the token to ``path`` atomically with mode 0600, replacing any old one."""
        write_private(path, self._secret + b"\n")

    def __repr__(self) -> str:
        return "OwnerToken(<secret>)"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OwnerToken) and hmac.compare_digest(self._secret, other._secret)

    __hash__ = None  # type: ignore[assignment]


def write_private(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically with mode 0600, replacing any old file.

    The temporary file is created with ``O_EXCL`` and mode 0600 from the start, so no
    reader ever sees a partial file or a wider mode.
    """
    tmp = f"{path}.{secrets.token_hex(6)}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(tmp, flags | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        try:
            os.fchmod(fd, 0o600)  # the umask can only narrow it; be explicit anyway
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def install_owner_token(socket_path: str) -> OwnerToken:
    """Daemon start-up: create a fresh owner token and write it beside the socket."""
    token = OwnerToken.create()
    token.write(token_path(socket_path))
    return token


def remove_owner_token(socket_path: str) -> None:
    """Daemon shutdown: remove the token file (absent is fine)."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(token_path(socket_path))


def grants_for_connection(
    connection_info: ConnectionInfo,
    token: OwnerToken | None,
    issued: TokenStore | None = None,
) -> Container[str]:
    """The grants a connection holds: all seven with the owner token in ``hello.auth``, an
    issued token's live set with one from ``issued`` (rfcs/0005 §7.4), else the floor."""
    auth = connection_info.hello.get("auth")
    if not isinstance(auth, Mapping):
        return PUBLIC_GRANTS
    presented = auth.get("token")
    if token is not None and token.matches(presented):
        return ALL_GRANTS
    if issued is not None and isinstance(presented, str) and presented.startswith("vt1_"):
        return issued.grants_for(presented)
    return PUBLIC_GRANTS


_WHY = {
    "revoked": "the presented token was revoked",
    "expired": "the presented token has expired",
    "unknown": "the presented token is not a valid token",
}


def check_grant(verb_grant: str, held: Container[str], verb_name: str) -> None:
    """Refuse with ``denied.grant`` (exit 4) unless ``verb_grant`` is in ``held``.

    When ``held`` came from an issued token that no longer counts, the message and
    ``data.token`` say why (``revoked``, ``expired``, ``unknown``).
    """
    if verb_grant in held:
        return
    data: dict[str, str] = {"verb": verb_name, "grant": verb_grant}
    message = f"verb '{verb_name}' needs grant '{verb_grant}'"
    reason = getattr(held, "reason", None)
    if reason in _WHY:
        data["token"] = reason
        message += f"; {_WHY[reason]}"
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
