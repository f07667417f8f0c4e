"""Every JSON-RPC request gets an answer, and no stdin line can grow the adapter without bound.

JSON-RPC 2.0 §5: a request that is not valid gets ``-32600`` with ``id: null``; MCP narrows
request ids to strings and integers, so an object, array, float, boolean or null id makes the
message invalid (it used to be read as a notification, which is never answered). A stdin line
longer than ``MAX_LINE`` bytes is dropped while it streams in and answered ``-32600``
(rfcs/0004-schema-decisions.md). Both stdin transports are checked: pipes served from the
event loop, and the blocking fallback for regular files and ttys.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp_testkit import INITIALIZE, raw_adapter, run_on_files

from venom_mcp._lines import MAX_LINE, LineSplitter

pytestmark = pytest.mark.anyio

#: Request ids that are not a string or an integer, as JSON text.
BAD_IDS = ['{"a":1}', "{}", "[1]", "[]", "1.5", "-0.5", "1.0", "1e3", "true", "false", "null"]
METHODS = ["ping", "tools/list", "tools/call", "initialize", "no/such/method"]


def _request(id_text: str, method: str) -> bytes:
    return b'{"jsonrpc":"2.0","id":%s,"method":"%s","params":{}}\n' % (
        id_text.encode(),
        method.encode(),
    )


def _invalid_request(reply: dict[str, Any]) -> bool:
    return reply["id"] is None and reply["error"]["code"] == -32600


@pytest.mark.parametrize("id_text", BAD_IDS)
async def test_a_request_with_an_unusable_id_is_answered(socket_path: str, id_text: str) -> None:
    """Each such request gets exactly one -32600 reply with id null; the session goes on."""
    async with raw_adapter(socket_path) as mcp:
        await mcp.initialize()
        for method in METHODS:
            await mcp.send_line(_request(id_text, method))
            assert _invalid_request(await mcp.receive())
        assert (await mcp.request("ping"))["result"] == {}
        assert await mcp.close_stdin_and_wait() == 0


async def test_notifications_stay_unanswered(socket_path: str) -> None:
    """The fix answers bad ids only: a real notification still gets no reply."""
    async with raw_adapter(socket_path) as mcp:
        await mcp.initialize()
        await mcp.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        await mcp.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}})
        reply = await mcp.request("ping")  # the next line out is the ping's own reply
        assert reply["result"] == {}
        assert await mcp.close_stdin_and_wait() == 0


def _padded_ping(id_: int, size: int) -> bytes:
    """A ping request line of exactly ``size`` bytes before its newline."""
    head, tail = (
        b'{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"_meta":{"pad":"' % id_,
        b'"}}}',
    )
    return head + b"x" * (size - len(head) - len(tail)) + tail


@pytest.mark.parametrize("newline", [b"\n", b"\r\n", b"\r"])
async def test_a_line_over_the_limit_is_refused_before_parsing(
    socket_path: str, newline: bytes
) -> None:
    """MAX_LINE bytes are parsed; one more is -32600 with id null; the next line is served."""
    async with raw_adapter(socket_path) as mcp:
        await mcp.initialize()
        await mcp.send_line(_padded_ping(7, MAX_LINE) + newline)
        assert (await mcp.receive()) == {"jsonrpc": "2.0", "id": 7, "result": {}}
        await mcp.send_line(_padded_ping(8, MAX_LINE + 1) + newline)
        refused = await mcp.receive()
        assert _invalid_request(refused)
        assert str(MAX_LINE) in refused["error"]["message"]
        assert refused["error"]["data"] == {"max_line": MAX_LINE}
        assert (await mcp.request("ping"))["result"] == {}
        assert await mcp.close_stdin_and_wait() == 0


async def test_an_unterminated_long_line_at_eof_is_refused(socket_path: str) -> None:
    async with raw_adapter(socket_path) as mcp:
        await mcp.initialize()
        await mcp.send_line(_padded_ping(9, 2 * MAX_LINE))
        assert mcp.process.stdin is not None
        await mcp.process.stdin.aclose()
        assert _invalid_request(await mcp.receive())


def test_the_blocking_transport_answers_the_same(tmp_path: Path) -> None:
    """stdin and stdout regular files (the fallback transport): the same answers, in order."""
    lines = [
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INITIALIZE}),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        *(_request(i, "ping").decode().rstrip("\n") for i in BAD_IDS),
        _padded_ping(2, MAX_LINE + 1).decode(),
        _padded_ping(3, MAX_LINE).decode(),
        json.dumps({"jsonrpc": "2.0", "id": 4, "method": "ping"}),
        "not json",  # answered by the transport itself, so the ping above was answered first
    ]
    code, out = run_on_files(tmp_path, ("\n".join(lines) + "\n").encode())
    assert code == 0
    replies = [json.loads(line) for line in out.splitlines()]
    answered = sorted(r["id"] for r in replies if r["id"] is not None)
    assert answered == [1, 3, 4]  # every request with a usable id, whatever the order
    refused = [r for r in replies if r["id"] is None]
    assert len(refused) == len(BAD_IDS) + 2  # the bad ids, the long line and "not json"
    assert sum(_invalid_request(r) for r in refused) == len(BAD_IDS) + 1


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from([b"a", b"bb", b"\n", b"\r", b"\r\n", b"\xff", b"x" * 9]), max_size=16),
    st.integers(0, 12),
    st.data(),
)
def test_the_splitter_bounds_lines_under_any_chunking(
    pieces: list[bytes], max_line: int, data: st.DataObject
) -> None:
    """Universal newlines as the SDK splits them; a line over the bound is None, whole."""
    whole = b"".join(pieces)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(whole)), max_size=5)))
    splitter = LineSplitter(max_line)
    got: list[bytes | None] = []
    for a, b in zip([0, *cuts], [*cuts, len(whole)], strict=True):
        got += splitter.feed(whole[a:b])
    got += splitter.finish()
    assert got == [line if len(line) <= max_line else None for line in whole.splitlines()]
