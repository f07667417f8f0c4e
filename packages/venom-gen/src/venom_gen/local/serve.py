"""``<tool> serve``: the daemon, in the foreground. The one door from the CLI side to
`venom_gen.daemon`, opened only when this verb runs (pyproject.toml's import contract says so).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from venom_gen.cli import flag_value

if TYPE_CHECKING:
    from collections.abc import Mapping

    from venom_gen.product import Product

__all__ = ("run_serve",)


def run_serve(product: Product, rest: list[str], environ: Mapping[str, str] = os.environ) -> int:
    """``<tool> serve [--socket PATH] [--json] [--reload=true]``: run the daemon until SIGTERM
    or SIGINT; with ``--reload=true`` (development only) under a supervisor that replaces it
    on each valid change to the product (`venom_gen.local._reload`)."""
    if flag_value(rest, "--reload") == "true":
        from venom_gen.local._reload import run_reload

        return run_reload(product, rest, environ)
    from venom_gen.daemon import serve

    return serve(product, flag_value(rest, "--socket"), environ, json_errors="--json" in rest)
