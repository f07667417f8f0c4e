"""RFC-0004 §5 as the daemon sees it: the MCP adapter against a recording fake daemon.

The adapter is the target's own (``TOOL mcp --socket FAKE``); the fake answers with the real
daemon's hello and records every request, so defaults and cancels are observed upstream.
"""

from __future__ import annotations

import json
import time
from typing import Any

import anyio
import pytest

from venom_mcp.conformance._fake import RecordingDaemon
from venom_mcp.conformance._kit import TIMEOUT, Daemon, exchange, not_applicable
from venom_mcp.conformance._model import TargetModel, mcp_name, valid_value


def _hello(daemon: Daemon) -> dict[str, Any]:
    line = b'{"id":1,"verb":"hello","params":{"proto":[1],"caps":["cancel"]}}'
    hello: dict[str, Any] = json.loads(exchange(daemon, line)[0])["ok"]
    return hello


def _required(verb: dict[str, Any]) -> dict[str, Any]:
    return {p["name"]: valid_value(p["type"]) for p in verb.get("params", []) if p.get("required")}


def _mcp_call(d: Daemon, socket_path: str, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    async def main() -> dict[str, Any]:
        params = StdioServerParameters(
            command=d.target.cli[0],
            args=[*d.target.cli[1:], "mcp", "--socket", socket_path],
            env=d.env,
        )
        with anyio.fail_after(TIMEOUT * 3):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
                await s.initialize()
                result = await s.call_tool(tool, args)
                out: dict[str, Any] = result.model_dump(by_alias=True, exclude_none=True)
                return out

    result: dict[str, Any] = anyio.run(main)
    return result


@pytest.mark.rfc("RFC-0004 §5")
def test_mcp_inserts_defaults_upstream(daemon: Daemon, model: TargetModel) -> None:
    """RFC-0004 §5: the adapter MUST insert defaults itself; the daemon receives them."""
    verbs = [
        v for v in model.mcp_verbs()
        if not v.get("streams") and any("default" in p for p in v.get("params", []))
    ]  # fmt: skip
    if not verbs:
        not_applicable("the model declares no non-streaming daemon verb with a default")
    verb = verbs[0]
    path = str(daemon.root / "fake-defaults.sock")
    ok = valid_value(verb["result"])
    with RecordingDaemon(path, lambda req: ok, _hello(daemon)) as fake:
        _mcp_call(daemon, path, mcp_name(verb["name"]), _required(verb))
        seen = fake.seen(verb["name"])
    assert len(seen) == 1
    sent = seen[0].get("params", {})
    for p in verb["params"]:
        if "default" in p:
            assert p["name"] in sent, f"{p['name']} not inserted: {sent}"
            assert sent[p["name"]] == p["default"]


@pytest.mark.rfc("RFC-0004 §5")
def test_mcp_cancels_upstream_when_the_stream_limit_is_crossed(
    daemon: Daemon, model: TargetModel
) -> None:
    """RFC-0004 §5: crossing 1024 items cancels upstream and returns unsupported.stream_limit."""
    verbs = [v for v in model.mcp_verbs() if v.get("streams")]
    if not verbs:
        not_applicable("the model declares no streaming daemon verb")
    verb = verbs[0]
    path = str(daemon.root / "fake-limit.sock")
    item = valid_value(verb["item"])
    flood = RecordingDaemon.FLOOD
    with RecordingDaemon(path, lambda req: flood, _hello(daemon), item) as fake:
        out = _mcp_call(daemon, path, mcp_name(verb["name"]), _required(verb))
        deadline = time.monotonic() + TIMEOUT
        while not fake.cancelled.is_set() and time.monotonic() < deadline:
            time.sleep(0.02)
        calls = fake.seen(verb["name"])
        cancels = fake.seen("cancel")
    assert out["isError"] is True
    assert "structuredContent" not in out
    assert json.loads(out["content"][0]["text"])["error"]["code"] == "unsupported.stream_limit"
    assert [c.get("params", {}).get("id") for c in cancels] == [calls[0]["id"]]
