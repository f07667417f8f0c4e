"""The MCP side of the integration suite: the official SDK client on ``venom-echo mcp``.

The client speaks each revision it offers: 2025-11-25 through ``initialize`` and 2026-07-28
(stateless) through ``server/discover`` (rfcs/0004 D-S70); 2025-06-18, which it no longer
offers, is driven with raw JSON-RPC (`venom_gen.testing.McpPeer`).
"""

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

    #: The revisions the SDK client offers, each by its own opening request.
    REVISIONS = ("2025-11-25", "2026-07-28")

    def __init__(self, daemon: Daemon, *extra: str, revision: str = "2025-11-25") -> None:
        assert revision in self.REVISIONS, revision
        self.revision = revision
        self._portal_cm: AbstractContextManager[BlockingPortal] = start_blocking_portal()
        self._portal = self._portal_cm.__enter__()
        self._errlog = (daemon.root / "mcp.err").open("a")
        params = StdioServerParameters(
            command=daemon.command[0], args=["mcp", *extra], env=daemon.env
        )
        self._session_cm = self._portal.wrap_async_context_manager(
            _session(params, self._errlog, revision)
        )
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

    @property
    def server_info(self) -> types.Implementation:
        """The server's name and version, from ``initialize`` or ``server/discover``."""
        info = self.session.server_info
        assert info is not None
        return info

    @property
    def instructions(self) -> str:
        return self.session.instructions or ""

    def call_tool(
        self,
        name: str,
        arguments: dict[str, Any],
        progress: list[tuple[float, float | None]] | None = None,
    ) -> types.CallToolResult:
        """``tools/call`` by MCP tool name; JSON-RPC errors raise ``mcp.MCPError``. With a
        ``progress`` list the call asks for progress and appends ``(progress, total)`` to it."""

        sink = progress

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            assert sink is not None
            sink.append((progress, total))

        async def run() -> types.CallToolResult:
            with anyio.fail_after(TIMEOUT):
                result = await self.session.call_tool(
                    name, arguments, progress_callback=None if sink is None else on_progress
                )
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
    params: StdioServerParameters, errlog: TextIO, revision: str
) -> AsyncIterator[tuple[ClientSession, types.InitializeResult | types.DiscoverResult]]:
    async with stdio_client(params, errlog=errlog) as streams, ClientSession(*streams) as session:
        opened: types.InitializeResult | types.DiscoverResult
        with anyio.fail_after(TIMEOUT):
            if revision == "2026-07-28":
                opened = await session.discover()
            else:
                opened = await session.initialize()
        assert session.protocol_version == revision
        yield session, opened
