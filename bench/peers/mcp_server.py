"""The MCP peer: ``python mcp_server.py``, the MCP SDK's high-level server over stdio.

One tool ``echo(text) -> {"text": text}``, written as the SDK documents it (``MCPServer`` and
the ``@tool`` decorator); the return type gives the same structured content venom-echo's
``echo`` tool returns.
"""

from __future__ import annotations

from typing import TypedDict

from mcp.server.mcpserver import MCPServer


class EchoResult(TypedDict):
    text: str


server = MCPServer("echo")


@server.tool()
def echo(text: str) -> EchoResult:
    """Return the supplied text."""
    return {"text": text}


if __name__ == "__main__":
    server.run()
