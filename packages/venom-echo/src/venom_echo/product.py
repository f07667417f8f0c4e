"""venom-echo as a `Product`: its model, handlers, frame handlers and configuration schema.

Imported on every CLI call, so handler modules (which pull in the daemon side) load lazily.
"""

from __future__ import annotations

import os

from venom_gen.product import Product

from ._version import VERSION

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would slow every CLI call.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Any

    from venom_gen.daemon.app import App
    from venom_proto._server import FrameHandler, Handler

__all__ = ("CONFIG", "MODEL_PATH", "PRODUCT", "VERSION")

#: The normalized model, generated from verbs.zon and committed (checked for staleness).
MODEL_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "verbs.model.json")

#: The configuration file's schema (format-1 object descriptor).
CONFIG: dict[str, Any] = {
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


def _handlers(app: App) -> Mapping[str, Handler]:
    from venom_echo.handlers import handlers

    return handlers(app)


def _frames(app: App) -> Iterable[FrameHandler]:
    from venom_echo.handlers import frame_handlers

    return frame_handlers(app)


def _mcp(product: Product, argv: list[str]) -> int:
    from venom_mcp import main

    return main(argv, product.model_path)


PRODUCT = Product(
    tool="venom-echo",
    version=VERSION,
    model_path=MODEL_PATH,
    handlers=_handlers,
    frame_handlers=_frames,
    config=CONFIG,
    local={"mcp": _mcp},
)
