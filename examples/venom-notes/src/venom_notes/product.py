"""venom-notes as a `Product`: its model, version and handlers (by name).

The binary reads this module on every CLI call, so it holds data and names only: ``serve``
imports the handlers module, and ``mcp`` the MCP server, when they run.
"""

import os

from venom_gen import Product

from ._version import VERSION

__all__ = ("MODEL_PATH", "PRODUCT")

#: The normalized model, compiled from verbs.zon and committed (a test checks it is fresh).
MODEL_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "verbs.model.json")

PRODUCT = Product(
    tool="venom-notes",
    version=VERSION,
    model_path=MODEL_PATH,
    handlers="venom_notes.handlers:handlers",
    local={"mcp": "venom_mcp:mcp_verb"},
)
