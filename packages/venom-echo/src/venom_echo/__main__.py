"""The one ``venom-echo`` binary: ``serve`` is the daemon, ``mcp`` the MCP server, else the CLI."""

from __future__ import annotations

import sys

from venom_echo.product import PRODUCT
from venom_gen.product import product_main

__all__ = ("main",)


def main() -> int:
    """Console-script entry point."""
    return product_main(PRODUCT)


if __name__ == "__main__":
    sys.exit(main())
