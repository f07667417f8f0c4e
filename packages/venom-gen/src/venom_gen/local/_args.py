"""What the in-process verbs ``mcp.config`` and ``service.install`` share: their arguments,
parsed as the CLI parsed them, and their output (RFC-0002 §7.3 error wrapper with ``--json``)."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

from venom_gen.cli import Invocation, build_tree, parse_argv
from venom_gen.cli.terminal import escape
from venom_proto.model_cache import load_model

if TYPE_CHECKING:
    from venom_gen.product import Product
    from venom_proto import VenomError
    from venom_schema.model import Model

__all__ = ("parsed", "print_json", "refuse")


def parsed(product: Product, wire: str, rest: list[str]) -> tuple[Model, Invocation]:
    """The model and ``rest`` parsed for verb ``wire``; the CLI has checked them already."""
    model: Model = load_model(product.model_path)
    tree = build_tree(model)
    return model, parse_argv([*tree.by_wire[wire].path, *rest], tree)


def print_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, separators=(",", ":"), ensure_ascii=False) + "\n")


def refuse(tool: str, err: VenomError, *, json_mode: bool) -> int:
    """Report ``err`` on stderr (and as the error wrapper on stdout with ``--json``)."""
    sys.stderr.write(f"{tool}: {escape(err.message)}\n")
    if json_mode:
        print_json({"error": err.to_object()})
    return err.exit_code
