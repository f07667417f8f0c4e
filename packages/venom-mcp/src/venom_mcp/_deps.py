"""The one import point for the heavier parts of the lower packages the adapter runs on.

Imported on first use, so the adapter answers ``initialize`` sooner: venom-gen's MCP catalog
and venom-schema's compiled validators. The light ones (venom-proto's `VenomError` and local
conventions) are imported where they are used.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from venom_mcp._grants import allowed_grants
from venom_proto import VenomError
from venom_schema.model import Model, Verb

__all__ = ("Validators", "VenomError", "build_catalog", "compile_verb", "server_instructions")


def build_catalog(model: Model, *, max_grant: str | None = None) -> list[dict[str, Any]]:
    """venom-gen's MCP catalog for ``model`` (RFC-0004 §5), limited to ``--max-grant``."""
    from venom_gen.render.catalog import build_catalog as catalog

    return catalog(model, max_grant=allowed_grants(max_grant))


def server_instructions(model: Model, *, max_grant: str | None = None) -> str:
    """venom-gen's MCP server ``instructions`` for ``model`` under ``--max-grant``."""
    from venom_gen.render.catalog import server_instructions as instructions

    return instructions(model, max_grant=max_grant)


class Validators(Protocol):
    """venom-schema's compiled checks of one verb; each raises ``VenomError``."""

    params: Callable[[Any], Any]  # invalid_params.*, defaults inserted
    result: Callable[[Any], Any]  # internal.result
    item: Callable[[Any], Any]  # internal.result, always for a verb that does not stream


def compile_verb(verb: Verb) -> Validators:
    """venom-schema's params, result and item validators for ``verb`` (RFC-0004 §3)."""
    from venom_schema.runtime import compile_verb as compile_checks

    compiled: Validators = compile_checks(verb)
    return compiled
