"""A hostile daemon, for tests that a client prints what a daemon says safely on a terminal.

``python -m venom_gen.testing.hostile SOCKET`` serves, on the real server, a daemon named
``venom-echo`` whose every string carries `HOSTILE`: escape sequences that retitle the
terminal, write the clipboard (OSC 52), clear the screen, ring the bell, a C1 CSI, and bidi
overrides and isolates that reorder what a person reads. Its verbs:

- ``echo``: ``{"text": HOSTILE + text}``; ``--text fail`` fails with ``failed.hostile``, its
  message and ``data`` hostile too;
- ``tail`` (streams): one item ``{"line": HOSTILE}``, then ``{}``.

Its hello names version `HOSTILE` too. Run it with `venom_gen.testing.DaemonProcess`
(``argv=[sys.executable, "-m", "venom_gen.testing.hostile", socket]``, ``owner_token=False``).
"""

from __future__ import annotations

import sys
from typing import Any

from venom_proto import Call, Server, VenomError, VerbHandler

__all__ = ("HOSTILE", "main")

#: Every kind of control a terminal acts on: OSC 0 (title) and OSC 52 (clipboard) ended by
#: BEL, CSI 2J (clear), a bare ESC, C1 CSI (U+009B), DEL, and RLO/LRI/PDI (bidi).
HOSTILE = "\x1b]0;pwned\x07\x1b]52;c;cHduZWQ=\x07\x1b[2J\x1b\x9b31m\x7f\u202eevil\u2066x\u2069\r\t"


def _echo(call: Call, params: dict[str, Any]) -> dict[str, Any]:
    if params.get("text") == "fail":
        raise VenomError("failed.hostile", "bad " + HOSTILE, {"why": HOSTILE})
    return {"text": HOSTILE + str(params.get("text", ""))}


async def _tail(call: Call, params: dict[str, Any]) -> dict[str, Any]:
    await call.emit({"line": HOSTILE})
    return {}


def main(argv: list[str] | None = None) -> int:
    """Serve on the socket ``argv[0]`` until stopped."""
    args = sys.argv[1:] if argv is None else argv
    handlers = {"echo": VerbHandler(_echo), "tail": VerbHandler(_tail, streams=True)}
    Server("venom-echo", HOSTILE, handlers).serve_forever(args[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
