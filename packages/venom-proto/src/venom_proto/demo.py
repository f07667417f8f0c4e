"""A minimal echo daemon on the real server, used until the product exists.

``python -m venom_proto.demo [--socket PATH]`` serves tool ``venom-echo`` with verb ``echo``
(``{"text"} -> {"text"}``) and frame type ``ECHO_BYTES`` (0x0100, capability
``venom-echo.bytes``), which is sent back unchanged on the same stream (RFC-0002 5.3).
Start-up failures print one ``{"error": ...}`` line to stderr and exit with the 7.2 code.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import anyio

from venom_proto._core._json import dumps
from venom_proto._core.errors import VenomError
from venom_proto._core.frames import Frame
from venom_proto._server import Call, FrameContext, FrameHandler, Server, Verb

__all__ = ("ECHO_BYTES", "TOOL", "VERSION", "build_server", "main")

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
        {"echo": Verb(echo)},
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
        sys.stderr.buffer.write(dumps({"error": exc.to_object()}) + b"\n")
        sys.stderr.flush()
        return exc.exit_code
    except KeyboardInterrupt:  # SIGINT before the handlers were installed
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
