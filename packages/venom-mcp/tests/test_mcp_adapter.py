"""The adapter in memory against a fake upstream: catalog, call results, errors, cancellation,
at every MCP revision it is held to (the ``revision`` fixture, rfcs/0004 D-S70)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import anyio
import pytest
from mcp_testkit import WAIT, raw_session, tool_text

from venom_mcp.adapter import OnItem, Tools, build_server
from venom_proto import VenomError
from venom_schema.model import Model

pytestmark = pytest.mark.anyio

RFC_ECHO_ENTRY = {
    "name": "echo",
    "description": "Return the supplied text",
    "inputSchema": {
        "type": "object",
        "properties": {
            "text": {"type": "string", "description": "Text to return"},
            "style": {
                "type": "string",
                "enum": ["plain", "upper"],
                "description": "Output casing",
                "default": "plain",
            },
        },
        "required": ["text"],
        "additionalProperties": False,
    },
    "outputSchema": {
        "type": "object",
        "properties": {
            "result": {
                "type": "object",
                "properties": {"text": {"type": "string", "description": "Returned text"}},
                "required": ["text"],
                "additionalProperties": False,
            }
        },
        "required": ["result"],
        "additionalProperties": False,
    },
}


#: A valid result per verb of the fixture model, from the validated params.
VALID_RESULTS: dict[str, Any] = {
    "echo": lambda p: {"text": p["text"]},
    "cancels": lambda p: {"verbs": []},
    "whoami": lambda p: {"token": None},
}


class FakeUpstream:
    """Echoes params, or raises what it was told to; records calls and cancellations."""

    def __init__(self, raises: BaseException | None = None, block: bool = False) -> None:
        self.raises = raises
        self.block = block
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.started = anyio.Event()
        self.cancelled = anyio.Event()
        #: Set to let a blocked call go on.
        self.release = anyio.Event()
        #: Items streamed so far (by every call).
        self.items = 0

    async def between_items(self) -> None:
        """What a streaming call awaits after each item (a test may make it slow)."""

    async def invoke(
        self, verb: Mapping[str, Any], params: dict[str, Any], *, on_item: OnItem | None = None
    ) -> dict[str, Any]:
        self.calls.append((verb["name"], params))
        self.started.set()
        if self.block:
            try:
                await self.release.wait()
            except anyio.get_cancelled_exc_class():
                self.cancelled.set()
                raise
        if self.raises is not None:
            raise self.raises
        if verb["streams"]:
            count = params.get("count", 1)
            for _ in range(count):
                self.items += 1
                if on_item is not None:
                    await on_item()
                await self.between_items()
            items = [{"n": n, "pad": ""} for n in range(count)]
            return {"items": items, "result": {"count": count}}
        return {"result": VALID_RESULTS.get(verb["name"], lambda p: None)(params)}


def _server(
    model: Model, upstream: FakeUpstream, max_grant: str | None = None, **options: Any
) -> Any:
    totals = options.pop("item_totals", None)
    tools = Tools(model, max_grant=max_grant, item_totals=totals)
    return build_server(tools, upstream, name="venom-echo", version="0.1.0", **options)


async def test_tools_list_is_the_catalog(model: Model, revision: str) -> None:
    """RFC-0004 §5: the echo entry is the RFC's; transport and local verbs are not tools."""
    async with raw_session(_server(model, FakeUpstream()), revision) as peer:
        reply = await peer.request("tools/list")
    tools = {t["name"]: t for t in reply["result"]["tools"]}
    echo = tools["echo"]
    assert {member: echo[member] for member in RFC_ECHO_ENTRY} == RFC_ECHO_ENTRY
    assert set(echo) - set(RFC_ECHO_ENTRY) == {"title", "annotations"}
    assert sorted(tools) == ["cancels", "echo", "fail", "repeat", "set__value", "stall", "whoami"]
    assert "1024 items" in tools["repeat"]["description"]


async def test_catalog_entries_reach_the_client_unchanged(model: Model, revision: str) -> None:
    """RFC-0004 §5: name, description, inputSchema and outputSchema are not rewritten."""
    from venom_gen.render.catalog import build_catalog

    async with raw_session(_server(model, FakeUpstream()), revision) as peer:
        reply = await peer.request("tools/list")
    assert reply["result"]["tools"] == build_catalog(model)


async def test_success_matches_the_rfc_example(model: Model, revision: str) -> None:
    """RFC-0004 §5: structuredContent wrapper plus the same wrapper as compact JSON text."""
    upstream = FakeUpstream()
    async with raw_session(_server(model, upstream), revision) as peer:
        reply = await peer.call_tool("echo", {"text": "hi"})
    # The default was inserted by the adapter.
    assert upstream.calls == [("echo", {"text": "hi", "style": "plain"})]
    result = reply["result"]
    assert result["isError"] is False
    assert result["structuredContent"] == {"result": {"text": "hi"}}
    assert result["content"] == [{"type": "text", "text": '{"result":{"text":"hi"}}'}]


async def test_streaming_wrapper(model: Model, revision: str) -> None:
    """RFC-0004 §5: streaming output is {"items": [...], "result": ok}."""
    async with raw_session(_server(model, FakeUpstream()), revision) as peer:
        reply = await peer.call_tool("repeat", {"count": 1})
    wrapper = {"items": [{"n": 0, "pad": ""}], "result": {"count": 1}}
    assert reply["result"]["structuredContent"] == wrapper
    assert tool_text(reply["result"]) == wrapper


async def test_validation_failure_is_a_tool_error(model: Model, revision: str) -> None:
    """RFC-0004 §5: invalid_params.missing with data.param, isError, no structuredContent."""
    upstream = FakeUpstream()
    async with raw_session(_server(model, upstream), revision) as peer:
        reply = await peer.call_tool("echo", {})
        enum = await peer.call_tool("echo", {"text": "x", "style": "loud"})
    result = reply["result"]
    assert result["isError"] is True
    assert "structuredContent" not in result
    error = tool_text(result)["error"]
    assert error["code"] == "invalid_params.missing"
    assert error["data"] == {"param": "text"}
    assert tool_text(enum["result"])["error"]["code"] == "invalid_params.enum"
    assert upstream.calls == []  # never dispatched


@pytest.mark.parametrize("name", ["nope", "hello", "mcp", "set_value", "echo "])
async def test_unknown_tool_is_invalid_params(model: Model, revision: str, name: str) -> None:
    """RFC-0004 §5 and §7: unknown tools (and transport/local verbs) are JSON-RPC -32602."""
    async with raw_session(_server(model, FakeUpstream()), revision) as peer:
        reply = await peer.call_tool(name, {})
    assert reply["error"]["code"] == -32602
    assert "result" not in reply


async def test_daemon_error_is_passed_verbatim(model: Model, revision: str) -> None:
    """RFC-0004 §5: the Venom error code and data are preserved verbatim."""
    err = VenomError("conflict.echo_busy", "busy", {"retry": 3, "nested": {"a": [1]}})
    async with raw_session(_server(model, FakeUpstream(raises=err)), revision) as peer:
        reply = await peer.call_tool("fail")
    assert reply["result"]["isError"] is True
    assert "structuredContent" not in reply["result"]
    assert tool_text(reply["result"]) == {"error": err.to_object()}


async def test_unexpected_exception_becomes_internal(
    model: Model, revision: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """No handler exception leaks as a JSON-RPC error or traceback: it is an internal wrapper."""
    upstream = FakeUpstream(raises=RuntimeError("secret detail"))
    async with raw_session(_server(model, upstream), revision) as peer:
        reply = await peer.call_tool("echo", {"text": "x"})
    result = reply["result"]
    assert result["isError"] is True
    assert tool_text(result)["error"]["code"] == "internal"
    assert "secret detail" not in json.dumps(reply)


async def test_max_grant_hides_and_refuses(model: Model, revision: str) -> None:
    """rfcs/0005-local-grants.md §5: a verb above --max-grant is not listed and is refused
    like an unknown tool (-32602), never dispatched."""
    upstream = FakeUpstream()
    async with raw_session(_server(model, upstream, max_grant="read"), revision) as peer:
        listed = await peer.request("tools/list")
        reply = await peer.call_tool("set__value", {"value": "v"})
        none_only = await peer.call_tool("echo", {"text": "read is within read"})
    assert "set__value" not in {t["name"] for t in listed["result"]["tools"]}
    assert reply["error"]["code"] == -32602
    assert none_only["result"]["isError"] is False
    assert upstream.calls == [("echo", {"text": "read is within read", "style": "plain"})]


async def test_max_grant_none_offers_only_none_verbs(model: Model, revision: str) -> None:
    """rfcs/0005-local-grants.md §5: --max-grant none offers only verbs declaring none."""
    async with raw_session(_server(model, FakeUpstream(), max_grant="none"), revision) as peer:
        listed = await peer.request("tools/list")
    assert [t["name"] for t in listed["result"]["tools"]] == ["whoami"]


async def test_mcp_cancel_cancels_the_upstream_call(model: Model, revision: str) -> None:
    """RFC-0004 §5: notifications/cancelled reaches the in-flight upstream call."""
    upstream = FakeUpstream(block=True)
    async with raw_session(_server(model, upstream), revision) as peer:
        await peer.send(
            {
                "jsonrpc": "2.0",
                "id": 7,
                "method": "tools/call",
                "params": peer.params({"name": "stall", "arguments": {}}),
            }
        )
        with anyio.fail_after(WAIT):
            await upstream.started.wait()
        await peer.send(
            {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}}
        )
        with anyio.fail_after(WAIT):
            await upstream.cancelled.wait()
        # The connection still serves other calls afterwards.
        upstream.block = False
        upstream.release.set()
        reply = await peer.call_tool("echo", {"text": "after"})
    assert reply["result"]["isError"] is False
