"""venom-echo's daemon side: its handlers by exact wire name, the ECHO_BYTES frame echo and the
schema of its configuration file."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping

from venom_echo.handler_types import (
    EchoExitParams,
    EchoExitResult,
    EchoFailParams,
    EchoParams,
    EchoRepeatItem,
    EchoRepeatParams,
    EchoRepeatResult,
    EchoResult,
    EchoTypesParams,
    EchoTypesResult,
    StreamingCall,
    bind_handlers,
)
from venom_gen.daemon import App
from venom_proto import Call, Frame, FrameContext, FrameHandler, Handler, VenomError
from venom_schema.model import Descriptor, JsonObject

__all__ = ("CONFIG", "ECHO_BYTES", "ECHO_BYTES_CAP", "EchoHandlers", "frame_handlers", "handlers")

#: RFC-0002 §5.2 registry: venom-echo's one tool frame type and the capability that gates it.
ECHO_BYTES = 0x0100
ECHO_BYTES_CAP = "venom-echo.bytes"

#: The configuration file's schema (a format-1 object descriptor).
CONFIG: Descriptor = {
    "kind": "object",
    "fields": [
        {
            "name": "log_level",
            "summary": "Daemon log level",
            "type": {"kind": "string", "choices": ["debug", "info", "warning", "error"]},
            "required": False,
            "default": "info",
        },
        {
            "name": "greeting",
            "summary": "Text the echo.greet example would use",
            "type": {"kind": "string"},
            "required": False,
            "default": "hello",
        },
    ],
}

_FAILURES: dict[str, tuple[str, JsonObject]] = {
    "failed.echo": ("the echo failed on purpose", {"reason": "asked to fail"}),
    "not_found.echo": ("there was nothing to echo", {"what": "text"}),
    "conflict.echo_busy": ("the echo is busy", {"retry_after_ms": 100}),
    "timeout.echo": ("the echo took too long", {"waited_ms": 0, "hint": None}),
}


class EchoHandlers:
    """The product verbs, typed by `venom_echo.handler_types` (generated from the schema, so
    ``mypy --strict`` checks every key and result). Every successful echo publishes an
    ``echo.echoed`` event."""

    def __init__(self, app: App) -> None:
        self.publish = app.events.publish

    def echo(self, call: Call, params: EchoParams) -> EchoResult:
        text = params["text"]
        if params["style"] == "upper":
            text = text.upper()
        self.publish("echo.echoed", {"text": text})
        return {"text": text}

    async def echo_repeat(
        self, call: StreamingCall[EchoRepeatItem], params: EchoRepeatParams
    ) -> EchoRepeatResult:
        text, count, interval = params["text"], params["count"], params["interval_ms"] / 1000
        for index in range(count):
            if interval:
                await asyncio.sleep(interval)
            await call.emit({"index": index, "text": text})
        self.publish("echo.repeated", {"text": text, "count": count})
        return {"count": count}

    def echo_exit(self, call: Call, params: EchoExitParams) -> EchoExitResult:
        return {"status": params["status"]}

    def echo_fail(self, call: Call, params: EchoFailParams) -> None:
        code = params["code"]
        message, data = _FAILURES[code]
        raise VenomError(code, message, data)

    def echo_types(self, call: Call, params: EchoTypesParams) -> EchoTypesResult:
        return {
            "count": params["count"],
            "ratio": params["ratio"],
            "flag": params["flag"],
            "tags": params.get("tags"),
            "nested": params.get("nested"),
            "mode": params.get("mode"),
        }


def handlers(app: App) -> Mapping[str, Handler]:
    """Handlers by exact wire name; the registry refuses to start if one is missing or extra."""
    return bind_handlers(EchoHandlers(app))


def _echo_bytes(ctx: FrameContext, frame: Frame) -> None:
    ctx.send(ECHO_BYTES, frame.payload)


def frame_handlers(app: App) -> Iterable[FrameHandler]:
    """ECHO_BYTES frames come back unchanged on the stream they arrived on (RFC-0002 §5.3)."""
    return (FrameHandler(ECHO_BYTES, ECHO_BYTES_CAP, _echo_bytes),)
