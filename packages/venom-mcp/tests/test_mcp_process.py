"""The adapter as a real process, driven by the SDK's own client, against the test daemon, at
both revisions the client offers (2025-11-25 by ``initialize``, 2026-07-28 by ``server/discover``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp.types as mt
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError
from mcp_testkit import MODEL_PATH, TESTS, WAIT, Daemon, wait_for_daemon

pytestmark = pytest.mark.anyio


#: The revisions the SDK client offers (rfcs/0004 D-S70).
SDK_REVISIONS = ("2025-11-25", "2026-07-28")


@pytest.fixture(params=SDK_REVISIONS)
def sdk_revision(request: pytest.FixtureRequest) -> str:
    version: str = request.param
    return version


@asynccontextmanager
async def sdk_session(
    socket_path: str, *extra: str, revision: str = "2025-11-25"
) -> AsyncIterator[ClientSession]:
    """An SDK client session with the adapter at ``revision``, initialized or discovered;
    fails on any non-JSON-RPC stdout."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "venom_mcp", str(MODEL_PATH), "--socket", socket_path, *extra],
        cwd=str(TESTS),
    )
    stray: list[Exception] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, Exception):  # a stdout line that was not a JSON-RPC message
            stray.append(message)

    async with (
        stdio_client(params) as (read, write),
        ClientSession(
            read, write, read_timeout_seconds=WAIT, message_handler=on_message
        ) as session,
    ):
        with anyio.fail_after(WAIT):
            if revision == "2026-07-28":
                await session.discover()
            else:
                await session.initialize()
        assert session.protocol_version == revision
        yield session
    assert stray == []


def text_of(result: mt.CallToolResult) -> Any:
    assert len(result.content) == 1
    block = result.content[0]
    assert isinstance(block, mt.TextContent)
    return json.loads(block.text)


async def test_list_and_call_through_the_sdk(daemon: Daemon, sdk_revision: str) -> None:
    """RFC-0004 §5: catalog, success wrapper, validation and tool errors, unknown tool."""
    async with sdk_session(daemon.socket_path, revision=sdk_revision) as session:
        tools = {t.name: t for t in (await session.list_tools()).tools}
        echo = tools["echo"].model_dump(by_alias=True, mode="json", exclude_none=True)
        assert echo["inputSchema"]["required"] == ["text"]
        assert echo["outputSchema"]["required"] == ["result"]

        ok = await session.call_tool("echo", {"text": "hi", "style": "upper"})
        assert ok.is_error is False
        assert ok.structured_content == {"result": {"text": "HI"}}
        assert text_of(ok) == {"result": {"text": "HI"}}

        missing = await session.call_tool("echo", {})
        assert missing.is_error is True
        assert missing.structured_content is None
        assert text_of(missing)["error"]["code"] == "invalid_params.missing"
        assert text_of(missing)["error"]["data"] == {"param": "text"}

        failed = await session.call_tool("fail", {})
        assert failed.is_error is True
        assert text_of(failed) == {
            "error": {
                "code": "conflict.echo_busy",
                "message": "the echo is busy",
                "data": {"retry": 3},
            }
        }

        with pytest.raises(MCPError) as info:
            await session.call_tool("no_dsuch", {})
        assert info.value.code == -32602


async def test_stream_within_the_limits(daemon: Daemon, sdk_revision: str) -> None:
    """RFC-0004 §5: exactly 1024 items, or just under 1 MiB of item bytes, succeed whole."""
    async with sdk_session(daemon.socket_path, revision=sdk_revision) as session:
        many = await session.call_tool("repeat", {"count": 1024})
        assert many.is_error is False
        assert many.structured_content is not None
        assert len(many.structured_content["items"]) == 1024
        assert many.structured_content["result"] == {"count": 1024}
        # Two items of {"n":i,"pad":"x..."}: 17 bytes of JSON around the padding each.
        pad = (1048576 - 2 * 17) // 2
        big = await session.call_tool("repeat", {"count": 2, "size": pad})
        assert big.is_error is False
        assert big.structured_content is not None
        assert [i["n"] for i in big.structured_content["items"]] == [0, 1]


@pytest.mark.parametrize(
    "arguments",
    [{"count": 1025}, {"count": 2, "size": 600000}, {"count": 100000}],
    ids=["items", "bytes", "long"],
)
async def test_stream_over_a_limit_fails_whole(
    daemon: Daemon, sdk_revision: str, arguments: dict[str, Any]
) -> None:
    """RFC-0004 §5: crossing a limit returns unsupported.stream_limit, never a truncated success."""
    async with sdk_session(daemon.socket_path, revision=sdk_revision) as session:
        result = await session.call_tool("repeat", arguments)
        assert result.is_error is True
        assert result.structured_content is None
        assert text_of(result)["error"]["code"] == "unsupported.stream_limit"
        if arguments["count"] == 100000:
            # The daemon could not have finished 100000 items: it saw our cancel.
            seen = await session.call_tool("cancels", {})
            assert seen.structured_content == {"result": {"verbs": ["repeat"]}}


async def test_sdk_cancellation_reaches_the_daemon(daemon: Daemon, sdk_revision: str) -> None:
    """RFC-0004 §5: an MCP client cancelling a call cancels the upstream request."""
    async with sdk_session(daemon.socket_path, revision=sdk_revision) as session:
        async with anyio.create_task_group() as tg:
            tg.start_soon(session.call_tool, "stall", {"seconds": 30})
            await wait_for_daemon(daemon.socket_path, "active", {"stalls": 1})
            tg.cancel_scope.cancel()
        await wait_for_daemon(daemon.socket_path, "cancels", {"verbs": ["stall"]})
        # The session stays usable after the cancellation.
        again = await session.call_tool("echo", {"text": "again"})
        assert again.structured_content == {"result": {"text": "again"}}
