"""venom-gen: a Venom product's run time (its one binary: CLI, local verbs, daemon, MCP catalog
and skill) and, under `venom_gen.build`, its build time (the generators, ``venom-gen`` and the
scaffold).

`Product` is what a product declares and `product_main` runs its binary; both are on the path
of every CLI call and cost it nothing. The rest of the run-time face is in subpackages:
`venom_gen.cli` (the generated CLI), `venom_gen.local` (the verbs the binary runs in-process),
`venom_gen.daemon` (`App`, given to handler factories; the shared verbs) and `venom_gen.render`
(the MCP catalog, SKILL.md and service files, which the generators write too). The test kit is
`venom_gen.testing`; `venom_gen.startup.run_product` runs a binary with its start-up image.

Names are loaded lazily (PEP 562): a binary's first import of the toolkit is
`venom_gen.startup`, which reads the start-up image before the CLI's modules load.
"""

import sys

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would slow every CLI call.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from venom_gen.binary import product_main
    from venom_gen.product import Product

__all__ = ("Product", "product_main")

#: Where each public name lives; `__getattr__` imports the module on first use.
_EXPORTS = {"Product": "venom_gen.product", "product_main": "venom_gen.binary"}


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'venom_gen' has no attribute {name!r}")
    __import__(module)  # not importlib: it would cost every CLI call its import
    value = getattr(sys.modules[module], name)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
