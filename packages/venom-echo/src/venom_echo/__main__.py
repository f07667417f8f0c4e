"""The one ``venom-echo`` binary: ``serve`` is the daemon, ``mcp`` the MCP server, else the CLI."""

import sys

from venom_gen import product_main

from .product import PRODUCT

__all__ = ("main",)


def main() -> int:
    """Console-script entry point."""
    return product_main(PRODUCT)


if __name__ == "__main__":
    sys.exit(main())
