"""The one import point for what the adapter uses from the packages to its right.

Heavy modules are imported on first use, so the adapter answers ``initialize`` sooner.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from venom_mcp._grants import allowed_grants
from venom_proto import VenomError

__all__ = (
    "Validators",
    "VenomError",
    "build_catalog",
    "compile_verb",
    "owner_auth",
    "resolve_socket_path",
    "token_file",
)


def build_catalog(model: dict[str, Any], *, max_grant: str | None = None) -> list[dict[str, Any]]:
    """venom-gen's MCP catalog for ``model`` (RFC-0004 §5), limited to ``--max-grant``."""
    from venom_gen.catalog import build_catalog as catalog

    return catalog(model, max_grant=allowed_grants(max_grant))


class Validators(Protocol):
    """venom-schema's compiled checks of one verb; each raises ``VenomError``."""

    params: Callable[[Any], Any]  # invalid_params.*, defaults inserted
    result: Callable[[Any], Any]  # internal.result
    item: Callable[[Any], Any]  # internal.result, always for a verb that does not stream


def compile_verb(verb: dict[str, Any]) -> Validators:
    """venom-schema's params, result and item validators for ``verb`` (RFC-0004 §3)."""
    from venom_schema.runtime import compile_verb as compile_checks

    compiled: Validators = compile_checks(verb)
    return compiled


def resolve_socket_path(tool: str, flag: str | None) -> str:
    """RFC-0002 2.3: ``--socket``, then ``<TOOL>_SOCKET``, then the default path."""
    from venom_proto._server.paths import resolve_socket_path as resolve

    return resolve(tool, flag)


def token_file(socket_path: str) -> str:
    """Where the daemon at ``socket_path`` writes its owner token (rfcs/0005-local-grants.md §3)."""
    from venom_schema.grants import token_path

    return token_path(socket_path)


def owner_auth(socket_path: str) -> dict[str, Any] | None:
    """``hello.auth`` with the owner token beside ``socket_path``, or None when unreadable."""
    from venom_schema.grants import client_auth

    auth: dict[str, Any] | None = client_auth(socket_path)
    return auth
