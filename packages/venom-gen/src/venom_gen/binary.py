"""`product_main`: a product's one binary. ``serve`` is the daemon, ``mcp`` (and any other local
verb, `venom_gen.local`) runs in-process, anything else is the generated CLI.

On the path of every CLI call: it imports the CLI, the product declaration and the local verbs'
table only; the daemon and whatever a local verb names load when that verb runs.
"""

from __future__ import annotations

from venom_gen.cli import main
from venom_gen.local import local_verbs

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would slow every CLI call.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from venom_gen.product import Product

__all__ = ("product_main",)


def product_main(product: Product, argv: list[str] | None = None) -> int:
    """Run ``product``'s binary on ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    return main(product.model_path, argv=argv, local=local_verbs(product), version=product.version)
