"""The local verbs: what a product's binary runs in its own process instead of asking the
daemon. `LOCAL_VERBS` is their one table; `local_verbs` adds a product's own (``mcp``).

Every local verb is a function ``(product, argv) -> exit status``, ``argv`` being the command
line after the command words, which the CLI has already checked against the model (the
signature of `venom_gen.Product`'s ``local`` verbs too). The table names each by reference, so
the binary imports only this module on a verb call and a verb's module loads when it runs.
"""

from __future__ import annotations

from venom_gen.product import resolve

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would slow every CLI call.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from venom_gen.product import Product

__all__ = ("LOCAL_VERBS", "local_verbs")

#: Every standard local verb by wire name: ``"module:function"`` of its function.
LOCAL_VERBS: dict[str, str] = {
    "serve": "venom_gen.local.serve:run_serve",
    "doctor": "venom_gen.local.doctor:run_doctor",  # the checks run on the CLI's side
    "mcp.config": "venom_gen.local.mcp_config:run_mcp_config",
    "service.install": "venom_gen.local.service_install:run_service_install",
    "bridge": "venom_gen.local.bridge:run_bridge",
    # The generated files for the user's shell (rfcs/0001 §9, §10).
    "completion.bash": "venom_gen.local.shell:run_completion_bash",
    "completion.zsh": "venom_gen.local.shell:run_completion_zsh",
    "completion.fish": "venom_gen.local.shell:run_completion_fish",
    "man": "venom_gen.local.shell:run_man",
    "man.install": "venom_gen.local.shell:run_man_install",
}


class _Bound:
    """One local verb with its product: what `venom_gen.cli.main` calls with the argv."""

    __slots__ = ("product", "verb")

    def __init__(self, product: Product, verb: object) -> None:
        self.product = product
        self.verb = verb

    def __call__(self, argv: list[str]) -> int:
        run: Callable[[Product, list[str]], int] = resolve(self.verb)
        return run(self.product, argv)


def local_verbs(product: Product) -> dict[str, Callable[[list[str]], int]]:
    """``product``'s local verbs by wire name: the standard ones, then its own (which win)."""
    verbs = {**LOCAL_VERBS, **product.local}
    return {name: _Bound(product, verb) for name, verb in verbs.items()}
