"""Peer credentials of a Unix-socket peer (RFC-0002 2.4): ``SO_PEERCRED`` or ``getpeereid``.

The daemon reads its caller's (the peer-UID gate); a client may read its daemon's (``venom ls``
reports the listener's pid and sends nothing to another user's process).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import socket
import struct
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = ("PeerCredentials", "peer_credentials")

_UCRED = struct.Struct("3i")  # struct ucred {pid_t pid; uid_t uid; gid_t gid;}


class _HasSockopt(Protocol):
    """What we need of a socket: `socket.socket` and asyncio's ``TransportSocket`` both fit."""

    def fileno(self) -> int: ...

    def getsockopt(self, level: int, optname: int, buflen: int, /) -> bytes: ...


@dataclass(frozen=True, slots=True)
class PeerCredentials:
    """Who is on the other end; ``pid`` is ``None`` where the platform does not tell."""

    uid: int
    gid: int
    pid: int | None


def _linux(sock: _HasSockopt) -> PeerCredentials | None:
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return None
    try:
        raw = sock.getsockopt(socket.SOL_SOCKET, option, _UCRED.size)
    except OSError:
        return None
    if len(raw) != _UCRED.size:
        return None
    pid, uid, gid = _UCRED.unpack(raw)
    return PeerCredentials(uid=uid, gid=gid, pid=pid or None)


@functools.cache
def _getpeereid() -> Any:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    return getattr(ctypes.CDLL(name, use_errno=True), "getpeereid", None)


def _bsd(sock: _HasSockopt) -> PeerCredentials | None:
    getpeereid = _getpeereid()
    if getpeereid is None:
        return None
    uid, gid = ctypes.c_uint32(), ctypes.c_uint32()
    if getpeereid(sock.fileno(), ctypes.byref(uid), ctypes.byref(gid)) != 0:
        return None
    return PeerCredentials(uid=uid.value, gid=gid.value, pid=None)


def peer_credentials(sock: _HasSockopt) -> PeerCredentials | None:
    """The peer's uid/gid (and pid on Linux), or ``None`` when they cannot be read.

    Callers must treat ``None`` as untrusted and close the connection.
    """
    if hasattr(socket, "SO_PEERCRED"):
        return _linux(sock)
    return _bsd(sock)
