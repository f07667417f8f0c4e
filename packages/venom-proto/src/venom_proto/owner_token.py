"""The owner token beside a daemon's socket (rfcs/0005-local-grants.md §3): its one owner.

A daemon writes a fresh random token beside its socket at start-up (`install_owner_token`),
before the socket exists, and removes it at shutdown (`remove_owner_token`); a local client
reads it (`read_owner_token`, `owner_auth`) and presents it as ``hello.auth``, which gives it
every grant. The file is 64 lowercase hex digits and a newline, mode 0600, written by the one
atomic writer (`venom_proto.files.write_atomic`); a reader follows no symlink and counts
anything else as no token.

On the path of every CLI call (the reader), so it imports ``os`` alone at module level.
"""

from __future__ import annotations

import os

from .paths import beside_socket

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would slow every CLI call.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = (
    "TOKEN_HEX_DIGITS",
    "OwnerToken",
    "install_owner_token",
    "owner_auth",
    "read_owner_token",
    "remove_owner_token",
    "token_path",
    "token_version",
)

#: An owner token is 32 random bytes as lowercase hex.
TOKEN_HEX_DIGITS = 64
_HEX = "0123456789abcdef"


def token_path(socket_path: str) -> str:
    """The owner token beside a socket: ``.sock`` replaced by ``.token``, else appended."""
    return beside_socket(socket_path, ".token")


def _is_token(text: str) -> bool:
    return len(text) == TOKEN_HEX_DIGITS and not text.strip(_HEX)


class OwnerToken:
    """The daemon owner's secret: 32 random bytes as 64 lowercase hex digits.

    ``repr`` never shows the secret. `matches` compares in constant time.
    """

    __slots__ = ("_secret",)

    def __init__(self, value: str) -> None:
        if not isinstance(value, str) or not _is_token(value):
            raise ValueError("an owner token is 64 lowercase hex digits")
        self._secret = value.encode("ascii")

    @classmethod
    def create(cls) -> OwnerToken:
        """A fresh random token."""
        import secrets

        return cls(secrets.token_hex(TOKEN_HEX_DIGITS // 2))

    @property
    def value(self) -> str:
        """The token text a client presents as ``hello.auth.token``."""
        return self._secret.decode("ascii")

    def auth(self) -> dict[str, str]:
        """The ``hello.auth`` object presenting this token."""
        return {"token": self.value}

    def matches(self, candidate: object) -> bool:
        """Whether ``candidate`` is this token; constant time in the candidate's content."""
        import hmac

        if not isinstance(candidate, str):
            return False
        presented = candidate.encode("utf-8", "surrogatepass")
        return hmac.compare_digest(presented, self._secret)

    def write(self, path: str) -> None:
        """Write the token to ``path`` atomically with mode 0600, replacing any old one."""
        from .files import write_atomic

        write_atomic(path, self._secret + b"\n", 0o600)

    def __repr__(self) -> str:
        return "OwnerToken(<secret>)"

    def __eq__(self, other: object) -> bool:
        import hmac

        return isinstance(other, OwnerToken) and hmac.compare_digest(self._secret, other._secret)

    __hash__ = None  # type: ignore[assignment]


def install_owner_token(socket_path: str) -> OwnerToken:
    """Daemon start-up, with the lock held: create a fresh owner token and write it beside the
    socket, first removing any temporary file a daemon killed mid-write left there."""
    from .files import remove_stale

    path = token_path(socket_path)
    remove_stale(os.path.dirname(path) or ".", f".{os.path.basename(path)}.")
    token = OwnerToken.create()
    token.write(path)
    return token


def remove_owner_token(socket_path: str) -> None:
    """Daemon shutdown: remove the token file (absent is fine)."""
    import contextlib

    with contextlib.suppress(FileNotFoundError):
        os.unlink(token_path(socket_path))


def read_owner_token(socket_path: str) -> str | None:
    """The owner token the daemon at ``socket_path`` wrote, or None when there is none to read.

    A symlink is never followed, and anything but 64 lowercase hex digits counts as no token.
    """
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(token_path(socket_path), flags)
        try:
            data = os.read(fd, 256)
        finally:
            os.close(fd)
    except OSError:
        return None
    token = data.strip().decode("ascii", "replace")
    return token if _is_token(token) else None


def token_version(socket_path: str) -> tuple[int, int, int] | None:
    """What tells one written token from the next (each write is a new file, renamed into
    place), or None when there is none: a long-lived client compares it to know the daemon
    restarted and its token changed, without reading the secret."""
    try:
        st = os.stat(token_path(socket_path))
    except OSError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)


def owner_auth(socket_path: str) -> dict[str, Any] | None:
    """``{"token": ...}`` for ``hello.auth`` when the owner token is readable, else None: the
    daemon then treats the caller as unknown, with the read-only grants (rfcs/0005 §3)."""
    token = read_owner_token(socket_path)
    return None if token is None else {"token": token}
