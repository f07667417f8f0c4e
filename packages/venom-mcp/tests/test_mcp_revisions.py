"""What differs between the MCP revisions the adapter serves (rfcs/0004 D-S70..D-S73).

The shared behaviour (catalog, results, error mapping, cancellation) is held at every revision
by the ``revision`` fixture in the other tests; here are the members one revision adds or
drops, the handshake, and the catalog's JSON Schema dialects.
"""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft7Validator, Draft202012Validator  # type: ignore[import-untyped]
from mcp_testkit import STATELESS, envelope, raw_session
from test_mcp_adapter import FakeUpstream, _server

from venom_gen.render.catalog import build_catalog
from venom_mcp.adapter import CATALOG_CACHE
from venom_schema.model import Model

pytestmark = pytest.mark.anyio

#: The 2026-07-28 members a result gains over the handshake revisions.
STATELESS_RESULT = {"resultType", "_meta"}
CACHE = {"ttlMs", "cacheScope"}
SERVER_INFO = "io.modelcontextprotocol/serverInfo"

#: JSON Schema keywords the catalog may use: each means the same under draft-07 (what 2025-06-18
#: clients assume) and 2020-12 (2025-11-25's default dialect), so one schema serves both.
PORTABLE_KEYWORDS = {
    "type", "properties", "required", "additionalProperties", "items", "enum", "minimum",
    "maximum", "anyOf", "description", "default", "title",
}  # fmt: skip


async def test_tools_list_members(model: Model, revision: str) -> None:
    """The catalog is the same tools in the same (sorted) order; 2026-07-28 adds resultType
    and the cache hint (D-S72), the handshake revisions carry neither."""
    async with raw_session(_server(model, FakeUpstream()), revision) as peer:
        first = (await peer.request("tools/list"))["result"]
        again = (await peer.request("tools/list"))["result"]
    assert first == again
    assert first["tools"] == build_catalog(model)
    names = [tool["name"] for tool in first["tools"]]
    assert names == sorted(names)
    if revision in STATELESS:
        assert set(first) == {"tools", *STATELESS_RESULT, *CACHE}
        assert first["resultType"] == "complete"
        assert (first["ttlMs"], first["cacheScope"]) == (CATALOG_CACHE.ttl_ms, "private")
        assert first["_meta"][SERVER_INFO] == {"name": "venom-echo", "version": "0.1.0"}
    else:
        assert set(first) == {"tools"}


async def test_call_results_differ_only_by_the_stateless_members(
    model: Model, revision: str
) -> None:
    """A success and a tool error are the same wrapper at every revision (RFC-0004 §5);
    2026-07-28 adds only resultType and the serverInfo stamp."""
    async with raw_session(_server(model, FakeUpstream()), revision) as peer:
        ok = (await peer.call_tool("echo", {"text": "hi"}))["result"]
        bad = (await peer.call_tool("echo", {}))["result"]
    extra = STATELESS_RESULT if revision in STATELESS else set()
    assert set(ok) == {"content", "structuredContent", "isError", *extra}
    assert set(bad) == {"content", "isError", *extra}
    if extra:
        assert ok["resultType"] == bad["resultType"] == "complete"


@pytest.mark.parametrize("method", ["ping", "logging/setLevel"])
async def test_utilities(model: Model, revision: str, method: str) -> None:
    """ping answers at the handshake revisions and is gone at 2026-07-28; logging/setLevel is
    never offered (the adapter declares no logging capability)."""
    params = {"level": "info"} if method == "logging/setLevel" else None
    async with raw_session(_server(model, FakeUpstream()), revision) as peer:
        reply = await peer.request(method, params)
    if method == "ping" and revision not in STATELESS:
        assert reply["result"] == {}
    else:
        assert reply["error"]["code"] == -32601


async def test_server_discover_is_stateless_only(model: Model, revision: str) -> None:
    """server/discover names 2026-07-28, the fixed catalog's capabilities, the same
    instructions, and the catalog's cache hint; a handshake session has no such method."""
    async with raw_session(_server(model, FakeUpstream()), revision) as peer:
        reply = await peer.request("server/discover")
    if revision not in STATELESS:
        assert reply["error"]["code"] == -32601
        return
    found = reply["result"]
    assert "2026-07-28" in found["supportedVersions"]
    assert found["capabilities"] == {"tools": {"listChanged": False}}
    assert found["instructions"].startswith("venom-echo: ")
    assert (found["ttlMs"], found["cacheScope"]) == (CATALOG_CACHE.ttl_ms, "private")
    assert found["_meta"][SERVER_INFO]["name"] == "venom-echo"


async def test_the_handshake_names_the_revision(model: Model) -> None:
    """initialize answers each handshake revision with itself, and a newer or unknown one with
    2025-11-25, the newest handshake revision; older ones the SDK still negotiates are kept."""
    for asked, answered in [
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("2026-07-28", "2025-11-25"),
        ("2099-01-01", "2025-11-25"),
        ("2024-11-05", "2024-11-05"),
    ]:
        async with raw_session(_server(model, FakeUpstream()), "2026-07-28") as peer:
            peer.revision = "2025-06-18"  # no envelope: a plain initialize
            init = await peer.request(
                "initialize",
                {
                    "protocolVersion": asked,
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "0"},
                },
            )
        assert init["result"]["protocolVersion"] == answered, asked


async def test_stateless_requests_need_the_envelope(model: Model) -> None:
    """At 2026-07-28 a request without the _meta envelope is -32602 and an initialize after a
    stateless request is refused with -32022; a handshake session refuses enveloped requests."""
    async with raw_session(_server(model, FakeUpstream()), "2026-07-28") as peer:
        assert "result" in await peer.request("tools/list")
        peer.revision = "2025-06-18"
        bare = await peer.request("tools/list")
        late_init = await peer.request(
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "0"},
            },
        )
    assert bare["error"]["code"] == -32602
    assert late_init["error"]["code"] == -32022
    async with raw_session(_server(model, FakeUpstream()), "2025-11-25") as peer:
        mixed = await peer.request("tools/list", {"_meta": envelope("2026-07-28")})
    assert mixed["error"]["code"] == -32600


def _keywords(schema: Any) -> set[str]:
    """Every keyword used in ``schema`` (property names are names, not keywords)."""
    if not isinstance(schema, dict):
        return set()
    found = set(schema)
    for key, value in schema.items():
        if key == "properties":
            for sub in value.values():
                found |= _keywords(sub)
        elif key in ("items", "additionalProperties"):
            found |= _keywords(value)
        elif key == "anyOf":
            for sub in value:
                found |= _keywords(sub)
    return found


def test_catalog_schemas_are_valid_in_both_dialects(model: Model) -> None:
    """Every input and output schema is a valid draft-07 and 2020-12 schema, declares no
    $schema (2025-11-25: 2020-12 by default) and uses only keywords both read alike (D-S71)."""
    for tool in build_catalog(model):
        for member in ("inputSchema", "outputSchema"):
            schema = tool[member]
            Draft7Validator.check_schema(schema)
            Draft202012Validator.check_schema(schema)
            assert "$schema" not in schema
            assert _keywords(schema) <= PORTABLE_KEYWORDS, (tool["name"], member)
