"""The MCP side of the integration suite: the official SDK client on ``venom-echo mcp``."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import AbstractContextManager, asynccontextmanager
from typing import Any, TextIO

import anyio
from anyio.from_thread import BlockingPortal, start_blocking_portal
from integration_kit import TIMEOUT, Daemon, mcp_tool_name
from mcp import ClientSession, types
from mcp.client.stdio import StdioServerParameters, stdio_client


def _decode_text(result: types.CallToolResult) -> Any:
    (block,) = result.content
    assert isinstance(block, types.TextContent)
    return json.loads(block.text)


class Mcp:
    """A synchronous face on an MCP ``ClientSession`` to ``venom-echo mcp``.

    The session lives in a blocking portal's event loop thread, so plain (sync) tests can share
    one adapter process instead of paying a start-up per test.
    """

    def __init__(self, daemon: Daemon, *extra: str) -> None:
        self._portal_cm: AbstractContextManager[BlockingPortal] = start_blocking_portal()
        self._portal = self._portal_cm.__enter__()
        self._errlog = (daemon.root / "mcp.err").open("a")
        params = StdioServerParameters(
            command=daemon.command[0], args=["mcp", *extra], env=daemon.env
        )
        self._session_cm = self._portal.wrap_async_context_manager(_session(params, self._errlog))
        try:
            self.session, self.init = self._session_cm.__enter__()
        except BaseException:
            self._portal_cm.__exit__(None, None, None)
            self._errlog.close()
            raise

    def close(self) -> None:
        """End the session (the adapter sees stdin close) and stop the portal."""
        try:
            self._session_cm.__exit__(None, None, None)
        finally:
            self._portal_cm.__exit__(None, None, None)
            self._errlog.close()

    def list_tools(self) -> list[types.Tool]:
        async def run() -> list[types.Tool]:
            with anyio.fail_after(TIMEOUT):
                return (await self.session.list_tools()).tools

        return self._portal.call(run)

    def call_tool(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        """``tools/call`` by MCP tool name; JSON-RPC errors raise ``mcp.MCPError``."""

        async def run() -> types.CallToolResult:
            with anyio.fail_after(TIMEOUT):
                result = await self.session.call_tool(name, arguments)
            assert isinstance(result, types.CallToolResult)
            return result

        return self._portal.call(run)

    def call(self, verb: str, arguments: dict[str, Any]) -> types.CallToolResult:
        """Call the tool of wire name ``verb``."""
        return self.call_tool(mcp_tool_name(verb), arguments)

    def ok(self, verb: str, arguments: dict[str, Any]) -> Any:
        """Call and assert success; the structured wrapper, checked against the text block."""
        result = self.call(verb, arguments)
        assert not result.is_error, result.content
        assert result.structured_content is not None
        assert _decode_text(result) == result.structured_content
        return result.structured_content

    def error(self, verb: str, arguments: dict[str, Any]) -> Any:
        """Call and assert an isError result (RFC-0004 §5); the ``error`` object."""
        result = self.call(verb, arguments)
        assert result.is_error, result.structured_content
        assert result.structured_content is None
        wrapper = _decode_text(result)
        assert list(wrapper) == ["error"]
        return wrapper["error"]


@asynccontextmanager
async def _session(
    params: StdioServerParameters, errlog: TextIO
) -> AsyncIterator[tuple[ClientSession, types.InitializeResult]]:
    async with stdio_client(params, errlog=errlog) as streams, ClientSession(*streams) as session:
        with anyio.fail_after(TIMEOUT):
            init = await session.initialize()
        yield session, init
