"""`Product`: everything a daemon author declares, and `product_main`, the one binary's entry.

This module is on the path of every CLI call, so it imports nothing heavy: the daemon side
(anyio, the server, the registry) and the MCP adapter load only when ``serve`` or ``mcp`` runs.
"""

from __future__ import annotations

import os

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would slow every CLI call.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping
    from typing import Any

    from venom_gen.daemon.app import App
    from venom_proto._server import FrameHandler, Handler

    LocalVerb = Callable[[list[str]], int]

__all__ = ("Product", "flag_value", "product_main")


def _no_frames(app: App) -> Iterable[FrameHandler]:
    return ()


class Product:
    """A Venom product: its name, version, cached model and handler factories.

    ``handlers(app)`` returns the product's handlers by exact wire name; ``frame_handlers(app)``
    its binary frame handlers; ``config`` is the format-1 object descriptor of its configuration
    file; ``local`` adds in-process verbs such as ``mcp`` (``venom_mcp.main``). A plain class,
    not a dataclass: this module is imported on every CLI call.
    """

    __slots__ = ("config", "frame_handlers", "handlers", "local", "model_path", "tool", "version")

    def __init__(
        self,
        *,
        tool: str,
        version: str,
        model_path: str | os.PathLike[str],
        handlers: Callable[[App], Mapping[str, Handler]],
        frame_handlers: Callable[[App], Iterable[FrameHandler]] = _no_frames,
        config: Mapping[str, Any] | None = None,
        local: Mapping[str, Callable[[Product, list[str]], int]] | None = None,
    ) -> None:
        self.tool = tool
        self.version = version
        self.model_path = os.fspath(model_path)
        self.handlers = handlers
        self.frame_handlers = frame_handlers
        self.config = config
        self.local = dict(local or {})


def product_main(product: Product, argv: list[str] | None = None) -> int:
    """Run the product's one binary: ``serve`` is the daemon, ``mcp`` the adapter, else the CLI."""
    from venom_gen.cli import main

    def serve(rest: list[str]) -> int:
        from venom_gen.daemon.app import serve as run

        return run(product, flag_value(rest, "--socket"), os.environ, json_errors="--json" in rest)

    def doctor(rest: list[str]) -> int:
        from venom_gen.daemon.doctor_cli import run_doctor

        return run_doctor(product, rest, os.environ)

    local: dict[str, LocalVerb] = {"serve": serve, "doctor": doctor}
    for name, fn in product.local.items():
        local[name] = lambda rest, fn=fn: fn(product, rest)  # type: ignore[misc]
    return main(product.model_path, argv=argv, local=local, version=product.version)


def flag_value(rest: list[str], name: str) -> str | None:
    """The value of option ``name`` (``--x v`` or ``--x=v``) in a local verb's argv.

    The CLI has already validated the argv; local verbs only need to read their options back.
    """
    for i, arg in enumerate(rest):
        if arg == name and i + 1 < len(rest):
            return rest[i + 1]
        if arg.startswith(name + "="):
            return arg.partition("=")[2]
    return None
