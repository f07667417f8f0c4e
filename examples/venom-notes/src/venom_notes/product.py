"""venom-notes as a `Product`: its model and handlers.

Imported on every CLI call, so the handler module (which pulls in the daemon side) loads
lazily, only when ``serve`` builds the daemon.
"""

from __future__ import annotations

import os

from venom_gen.product import Product

from ._version import VERSION

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would slow every CLI call.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from venom_gen.daemon.app import App
    from venom_proto._server import Handler

__all__ = ("MODEL_PATH", "PRODUCT", "VERSION")

#: The normalized model, compiled from verbs.zon and committed (a test checks it is fresh).
MODEL_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "verbs.model.json")


def _handlers(app: App) -> Mapping[str, Handler]:
    from venom_notes.handlers import handlers

    return handlers(app)


def _mcp(product: Product, argv: list[str]) -> int:
    from venom_mcp import main

    return main(argv, product.model_path)


PRODUCT = Product(
    tool="venom-notes",
    version=VERSION,
    model_path=MODEL_PATH,
    handlers=_handlers,
    local={"mcp": _mcp},
)
