"""venom-echo as a `Product`: its model, its version and, by name, its daemon side.

The binary reads this module on every CLI call, so it holds data and names only: ``serve``
imports `venom_echo.handlers`, and ``mcp`` the MCP server, when they run.
"""

import os

from venom_gen import Product

from ._version import VERSION

__all__ = ("MODEL_PATH", "PRODUCT")

#: The normalized model, generated from verbs.zon and committed (checked for staleness).
MODEL_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "verbs.model.json")

PRODUCT = Product(
    tool="venom-echo",
    version=VERSION,
    model_path=MODEL_PATH,
    handlers="venom_echo.handlers:handlers",
    frame_handlers="venom_echo.handlers:frame_handlers",
    config="venom_echo.handlers:CONFIG",
    local={"mcp": "venom_echo._mcp:mcp_verb"},
)
