"""venom-mcp: the generated MCP stdio adapter for a Venom tool (RFC-0004 §5).

``run_mcp`` serves a normalized model's daemon verbs as MCP tools on stdin/stdout, forwarding
each call to the daemon's socket; ``main`` is the ``<tool> mcp`` command line.
"""

from __future__ import annotations

from venom_mcp._cli import main, run_mcp

__all__ = ("main", "run_mcp")
