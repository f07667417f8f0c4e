"""`product_main`: a product's one binary. ``serve`` is the daemon, ``mcp`` (and any other local
verb) runs in-process, ``doctor`` checks from the CLI's side, anything else is the generated CLI.

On the path of every CLI call: it imports the CLI and the product declaration only; the daemon,
the doctor and whatever a local verb names load when that verb runs.
"""

from __future__ import annotations

import os

from venom_gen.cli import flag_value, main

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would slow every CLI call.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from venom_gen.product import Product

__all__ = ("SHELL_VERBS", "product_main")

#: Local commands every binary implements from its generated files (`venom_gen.local.shell`).
SHELL_VERBS = ("completion.bash", "completion.zsh", "completion.fish", "man", "man.install")


def product_main(product: Product, argv: list[str] | None = None) -> int:
    """Run ``product``'s binary on ``argv`` (default ``sys.argv[1:]``); returns the exit status."""

    def serve(rest: list[str]) -> int:
        from venom_gen.daemon import serve as run

        return run(product, flag_value(rest, "--socket"), os.environ, json_errors="--json" in rest)

    def doctor(rest: list[str]) -> int:
        from venom_gen.local.doctor import run_doctor

        return run_doctor(product, rest, os.environ)

    def mcp_config(rest: list[str]) -> int:
        from venom_gen.local.mcp_config import run_mcp_config

        return run_mcp_config(product, rest, os.environ)

    def service_install(rest: list[str]) -> int:
        from venom_gen.local.service_install import run_service_install

        return run_service_install(product, rest, os.environ)

    def bridge(rest: list[str]) -> int:
        from venom_gen.local.bridge import run_bridge

        return run_bridge(product.tool, flag_value(rest, "--socket"), os.environ)

    def local_verb(name: str) -> Callable[[list[str]], int]:
        return lambda rest: product.local_verb(name)(product, rest)

    def shell_verb(name: str) -> Callable[[list[str]], int]:
        def run(rest: list[str]) -> int:
            from venom_gen.local.shell import local_commands

            return local_commands(product)[name](rest)

        return run

    local: dict[str, Callable[[list[str]], int]] = {
        "serve": serve,
        "doctor": doctor,
        "mcp.config": mcp_config,
        "service.install": service_install,
        "bridge": bridge,
    }
    # completion.*, man, man.install: the generated files for the user's shell (rfcs/0001 §9).
    local.update((name, shell_verb(name)) for name in SHELL_VERBS)
    local.update((name, local_verb(name)) for name in product.local)
    return main(product.model_path, argv=argv, local=local, version=product.version)
