"""The one ``venom-echo`` binary: ``serve`` is the daemon, ``mcp`` the MCP server, else the CLI."""

from venom_gen.startup import exit_product, run_product

__all__ = ("main", "run")


def main() -> int:
    """Run the binary on ``sys.argv`` and return its exit status (tests, embedding)."""
    # Named, not imported: the binary reads its start-up image before the product loads.
    return run_product("venom_echo.product:PRODUCT")


def run() -> None:
    """The console script: run the binary and end the process with its exit status."""
    exit_product("venom_echo.product:PRODUCT")


if __name__ == "__main__":
    run()
