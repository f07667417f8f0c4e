"""The bare server as a daemon: venom-proto's test fixture, and the bench's baseline server.

No schema, registry or product: it measures and tests venom-proto alone.
``python packages/venom-proto/tests/demo_daemon.py [--socket PATH]`` serves tool ``venom-echo``
with verb ``echo`` (``{"text"} -> {"text"}``) and frame type ``ECHO_BYTES`` (0x0100, capability
``venom-echo.bytes``), which is sent back unchanged on the same stream (RFC-0002 5.3).
Start-up failures print one ``{"error": ...}`` line to stderr and exit with the 7.2 code.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import anyio

from venom_proto import Call, Frame, FrameContext, FrameHandler, Server, VenomError, VerbHandler

__all__ = ("ECHO_BYTES", "PATH", "TOOL", "VERSION", "build_server", "main")

#: This file, for ``python PATH --socket SOCK``.
PATH = __file__
TOOL = "venom-echo"
VERSION = "0.1.0"
ECHO_BYTES = 0x0100


def echo(call: Call, params: dict[str, Any]) -> dict[str, Any]:
    """``echo``: return ``{"text": text}`` unchanged."""
    if "text" not in params:
        raise VenomError(
            "invalid_params.missing", "missing required param 'text'", {"param": "text"}
        )
    text = params["text"]
    if not isinstance(text, str):
        raise VenomError("invalid_params.type", "param 'text' must be a string", {"param": "text"})
    return {"text": text}


def echo_bytes(ctx: FrameContext, frame: Frame) -> None:
    """``ECHO_BYTES``: send the frame back on its stream."""
    ctx.send(ECHO_BYTES, frame.payload)


def build_server(**options: Any) -> Server:
    """The demo server; ``options`` go to `Server` (timeouts and limits, for tests)."""
    return Server(
        TOOL,
        VERSION,
        {"echo": VerbHandler(echo)},
        frame_handlers=[FrameHandler(ECHO_BYTES, f"{TOOL}.bytes", echo_bytes)],
        **options,
    )


def main(argv: list[str] | None = None) -> int:
    """Serve until SIGTERM/SIGINT; return the exit status."""
    parser = argparse.ArgumentParser(prog=TOOL, description="venom-echo demo daemon")
    parser.add_argument("--socket", metavar="PATH", help="socket path (default: RFC-0002 2.2)")
    args = parser.parse_args(argv)
    server = build_server()

    def ready(path: str) -> None:
        print(f"{TOOL}: listening on {path}", file=sys.stderr, flush=True)

    async def serve() -> None:
        await server.run(args.socket, ready=ready)

    try:
        anyio.run(serve, backend="asyncio")
    except VenomError as exc:
        line = json.dumps({"error": exc.to_object()}, separators=(",", ":"))
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
        return exc.exit_code
    except KeyboardInterrupt:  # SIGINT before the handlers were installed
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
