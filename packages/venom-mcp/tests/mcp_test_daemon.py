"""A test daemon on venom_proto's real server, serving the fixture model's verbs.

``python mcp_test_daemon.py --socket PATH [--no-cancel]`` prints ``READY`` on stdout once the
socket listens. ``cancels`` reports the verbs of requests ended by an RFC-0002 ``cancel``
request (not by a disconnect), so tests can tell that the adapter really sent one.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from typing import Any

import anyio

from venom_proto import Call, Server, VenomError, Verb

# Private, test-only: the one place that sees a cancel request and its target together.
from venom_proto._server.calls import CallRunner

CANCELLED: list[str] = []
ACTIVE: set[int] = set()
#: The connections ``echo`` was called on (kept alive, so identity is never reused).
ECHO_CONNECTIONS: list[Any] = []


def _record_cancels() -> None:
    """Wrap the call runner's cancel handling to note which verb each cancel request targets."""
    original = CallRunner.cancelled

    def recording(self: CallRunner, rid: int | str, reason: str) -> None:
        target = self.get(rid)
        if target is not None and reason == "client":
            CANCELLED.append(target.verb)
        original(self, rid, reason)

    CallRunner.cancelled = recording  # type: ignore[method-assign]


def echo(call: Call, params: dict[str, Any]) -> dict[str, Any]:
    if not any(c is call.connection for c in ECHO_CONNECTIONS):
        ECHO_CONNECTIONS.append(call.connection)
    text: str = params["text"]
    return {"text": text.upper() if params.get("style") == "upper" else text}


async def repeat(call: Call, params: dict[str, Any]) -> dict[str, Any]:
    pad = "x" * params.get("size", 0)
    for n in range(params["count"]):
        await call.emit({"n": n, "pad": pad})
        if params.get("interval"):
            await anyio.sleep(params["interval"])
    return {"count": params["count"]}


def fail(call: Call, params: dict[str, Any]) -> None:
    raise VenomError("conflict.echo_busy", "the echo is busy", {"retry": 3})


async def stall(call: Call, params: dict[str, Any]) -> None:
    ACTIVE.add(id(call))
    try:
        await anyio.sleep(params.get("seconds", 30))
    finally:
        ACTIVE.discard(id(call))


def active(call: Call, params: dict[str, Any]) -> dict[str, Any]:
    """Not in the model: how many ``stall`` calls are running (tests poll it directly)."""
    return {"stalls": len(ACTIVE)}


def echo_connections(call: Call, params: dict[str, Any]) -> dict[str, Any]:
    """Not in the model: on how many distinct connections ``echo`` was called."""
    return {"count": len(ECHO_CONNECTIONS)}


def cancels(call: Call, params: dict[str, Any]) -> dict[str, Any]:
    return {"verbs": list(CANCELLED)}


def set_value(call: Call, params: dict[str, Any]) -> None:
    return None


def whoami(call: Call, params: dict[str, Any]) -> dict[str, Any]:
    auth = call.connection.hello.get("auth")
    return {"token": auth.get("token") if isinstance(auth, dict) else None}


VERBS = {
    "echo": Verb(echo),
    "repeat": Verb(repeat, streams=True),
    "fail": Verb(fail),
    "stall": Verb(stall),
    "cancels": Verb(cancels),
    "set_value": Verb(set_value),
    "whoami": Verb(whoami),
    "active": Verb(active),
    "echo_connections": Verb(echo_connections),
}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--socket", required=True)
    parser.add_argument("--no-cancel", action="store_true", help="do not offer capability cancel")
    args = parser.parse_args()
    _record_cancels()
    server = Server("venom-echo", "0.1.0", VERBS)
    if args.no_cancel:
        server.config = dataclasses.replace(server.config, caps=frozenset())

    def ready(path: str) -> None:
        print("READY", flush=True)

    anyio.run(lambda: server.run(args.socket, ready=ready), backend="asyncio")
    return 0


if __name__ == "__main__":
    sys.exit(main())
