"""venom-mcp: the generated MCP stdio adapter for a Venom tool (RFC-0004 §5).

``run_mcp`` serves a normalized model's daemon verbs as MCP tools on stdin/stdout, forwarding
each call to the daemon's socket; ``main`` is the ``<tool> mcp`` command line, and `mcp_verb`
that command as a product's local verb (``Product(local={"mcp": "venom_mcp:mcp_verb"})``).
`venom_mcp.adapter` holds the server itself (the catalog, validation, the stdio transport).
"""

from __future__ import annotations

from venom_mcp._cli import main, mcp_verb, run_mcp

__all__ = ("main", "mcp_verb", "run_mcp")
