"""venom-echo's ``mcp`` local verb: the adapter, told which param fixes a stream's length.

``echo.repeat`` yields exactly ``count`` items, so its progress notifications carry that total
(issue 26); nothing in the model says so (RFC-0004 format 1 has no member for it).
"""

from __future__ import annotations

from venom_gen.product import Product
from venom_mcp import main

__all__ = ("ITEM_TOTALS", "mcp_verb")

#: Streaming verb -> the integer param that fixes how many items it yields.
ITEM_TOTALS = {"echo.repeat": "count"}


def mcp_verb(product: Product, argv: list[str]) -> int:
    """``venom-echo mcp``: `venom_mcp.main` with `ITEM_TOTALS`."""
    return main(argv, product.model_path, version=product.version, item_totals=ITEM_TOTALS)
