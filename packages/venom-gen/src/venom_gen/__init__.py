"""venom-gen: a Venom product's run time (its one binary: CLI, local verbs, daemon, MCP catalog
and skill) and, under `venom_gen.build`, its build time (the generators, ``venom-gen`` and the
scaffold).

`Product` is what a product declares and `product_main` runs its binary; both are on the path
of every CLI call and cost it nothing. The rest of the run-time face is in subpackages:
`venom_gen.cli` (the generated CLI), `venom_gen.local` (the verbs the binary runs in-process),
`venom_gen.daemon` (`App`, given to handler factories; the shared verbs) and `venom_gen.render`
(the MCP catalog, SKILL.md and service files, which the generators write too). The test kit is
`venom_gen.testing`.
"""

from venom_gen.binary import product_main
from venom_gen.product import Product

__all__ = ("Product", "product_main")
