"""The daemon's side of ``serve --reload``: a daemon started by the reload supervisor
(`venom_gen.local._reload`) validates itself, says so, and serves only when told to.

The supervisor passes one end of a socket pair as ``VENOM_GEN_RELOAD_FD`` beside the listening
socket (``LISTEN_FDS``). The daemon writes ``ready`` once its model and handlers are built (a
fresh interpreter has loaded the changed code and the registry accepted it), waits for ``go``
(the previous daemon has drained and exited, so the lock is free), then writes ``serving``
once it accepts. Anything else, or the supervisor going away, ends it before it serves.
rfcs/0002-wire-decisions.md D-W43.
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import MutableMapping

__all__ = ("RELOAD_FD", "Handover", "take_handover")

#: The variable naming the supervisor's channel descriptor in a daemon it started.
RELOAD_FD = "VENOM_GEN_RELOAD_FD"


class Handover:
    """The channel to the reload supervisor of this daemon."""

    __slots__ = ("_sock",)

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock

    def ready(self) -> bool:
        """Say the change is valid, then wait for the supervisor's ``go``; False when it
        said anything else or went away (a newer change superseded this daemon)."""
        try:
            self._sock.sendall(b"ready\n")
            answer = self._sock.recv(16)
        except OSError:
            return False
        return answer == b"go\n"

    def serving(self) -> None:
        """Say the daemon accepts on the passed socket now; the channel's work is done."""
        # The supervisor may have stopped meanwhile; its own stop reaches us as a signal.
        with contextlib.suppress(OSError):
            self._sock.sendall(b"serving\n")
        self.close()

    def close(self) -> None:
        """Close the channel (idempotent)."""
        self._sock.close()


def take_handover(environ: MutableMapping[str, str] | None = None) -> Handover | None:
    """The supervisor's channel when this daemon runs under ``serve --reload``, else None.

    The variable is removed, so no child of the daemon inherits it.
    """
    env: MutableMapping[str, str] = os.environ if environ is None else environ
    value = env.pop(RELOAD_FD, None)
    if value is None or not value.isdigit():
        return None
    try:
        sock = socket.socket(fileno=int(value))
    except OSError:
        return None
    os.set_inheritable(sock.fileno(), False)
    return Handover(sock)
