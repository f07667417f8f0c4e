"""The adapter's own stdio transport: SDK-identical line parsing, flow control, fallbacks."""

from __future__ import annotations

import io
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import anyio
import mcp.types as mt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp.shared.message import SessionMessage
from mcp_testkit import (
    INITIALIZE,
    TESTS,
    WAIT,
    Daemon,
    adapter_command,
    raw_adapter,
    run_on_files,
)
from pydantic import ValidationError

from venom_mcp._pipe_streams import MAX_QUEUED, PipeReadStream
from venom_mcp._stdio import _LineParser

MESSAGE = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'
BIG = b'{"jsonrpc":"2.0","method":"x","params":{"t":"' + b"y" * 300000 + b'"}}\n'
PIECES = [MESSAGE, b"\n", b"\r", b"\r\n", b"\xff", b"\xc3", b"\xa9", b"{", b" ", b"x"]


def sdk_items(data: bytes) -> list[Any]:
    """What the SDK's stdio transport makes of ``data``: its text wrapper, line by line."""
    text = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace")
    out: list[Any] = []
    for line in text:
        try:
            out.append(mt.jsonrpc_message_adapter.validate_json(line, by_name=False))
        except Exception as exc:
            out.append(exc)
    return [_comparable(item) for item in out]


def parser_items(chunks: list[bytes]) -> list[Any]:
    """What our stdin protocol makes of ``chunks``, fed one by one, then EOF."""
    stream = PipeReadStream()
    parser = _LineParser(stream)
    for chunk in chunks:
        parser.data_received(chunk)
    parser.eof_received()
    items = []
    while stream.queued():
        items.append(stream._items.popleft())
    return [_comparable(i.message if isinstance(i, SessionMessage) else i) for i in items]


def _comparable(item: Any) -> Any:
    if isinstance(item, ValidationError):
        return ("invalid", item.errors(include_url=False))
    if isinstance(item, Exception):
        return ("exception", type(item), str(item))
    return ("message", item.model_dump(by_alias=True, exclude_unset=True))


@pytest.mark.parametrize(
    "chunks",
    [
        [MESSAGE + b"\n" + MESSAGE + b"\n"],
        [MESSAGE[:10], MESSAGE[10:] + b"\r", b"\n" + MESSAGE],
        [MESSAGE + b"\r" + MESSAGE + b"\r\n", b"\n"],
        [b"not json\n", b"\xff\xfe\n", b'{"jsonrpc":"2.0"}\n', b"\n"],
        [b'{"jsonrpc":"2.0","method":"x","params":{"t":"\xc3', b'\xa9"}}\n'],
        [BIG[i : i + 5000] for i in range(0, len(BIG), 5000)],
    ],
)
def test_lines_parse_as_the_sdk_parses_them(chunks: list[bytes]) -> None:
    """RFC-0004 §5: each stdin line becomes the message (or error item) the SDK would make."""
    assert parser_items(chunks) == sdk_items(b"".join(chunks))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=12), st.data())
def test_any_chunking_parses_as_the_sdk_does(pieces: list[bytes], data: st.DataObject) -> None:
    """Line splitting and decoding do not depend on how the bytes arrive."""
    whole = b"".join(pieces)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(whole)), max_size=4)))
    chunks = [whole[a:b] for a, b in zip([0, *cuts], [*cuts, len(whole)], strict=True)]
    assert parser_items(chunks) == sdk_items(whole)


class FakeReadTransport:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def pause_reading(self) -> None:
        self.calls.append("pause")

    def resume_reading(self) -> None:
        self.calls.append("resume")


@pytest.mark.anyio
async def test_a_flooding_client_pauses_stdin_until_drained() -> None:
    """Reading stops while too many lines wait, and resumes once they are consumed."""
    stream = PipeReadStream()
    parser = _LineParser(stream)
    transport = FakeReadTransport()
    parser.transport = transport  # type: ignore[assignment]
    parser.data_received((MESSAGE + b"\n") * (MAX_QUEUED + 10))
    assert transport.calls == ["pause"]
    with anyio.fail_after(WAIT):
        for _ in range(MAX_QUEUED + 9):
            assert isinstance(await stream.receive(), SessionMessage)
        assert transport.calls == ["pause"]  # not before the queue is empty
        assert isinstance(await stream.receive(), SessionMessage)
    assert transport.calls == ["pause", "resume"]
    parser.eof_received()
    with pytest.raises(anyio.EndOfStream):
        await stream.receive()


@pytest.mark.anyio
async def test_pipes_are_served_in_the_event_loop(daemon: Daemon) -> None:
    """On pipes no worker thread carries messages, and fd 0/1 are diverted as the SDK does."""
    async with raw_adapter(daemon.socket_path) as mcp:
        await mcp.initialize()
        reply = await mcp.call_tool("echo", {"text": "x"})
        assert reply["result"]["isError"] is False
        pid = mcp.process.pid
        assert len(os.listdir(f"/proc/{pid}/task")) == 1
        assert os.readlink(f"/proc/{pid}/fd/0") == os.devnull
        assert await mcp.close_stdin_and_wait() == 0


def _script() -> bytes:
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INITIALIZE},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    return "".join(json.dumps(line) + "\n" for line in lines).encode() + b"not json\n"


def _check_replies(out: bytes) -> None:
    replies = {r.get("id"): r for r in map(json.loads, out.splitlines())}
    assert sorted(replies, key=str) == [1, 2, None]  # "not json" may be answered first
    assert "echo" in {t["name"] for t in replies[2]["result"]["tools"]}
    assert replies[None]["error"]["code"] == -32700


def test_files_fall_back_to_the_blocking_transport(tmp_path: Path) -> None:
    """RFC-0004 §5: stdin and stdout as regular files (no epoll) still serve every line."""
    code, out = run_on_files(tmp_path, _script())
    assert code == 0
    _check_replies(out)


def test_stdout_shared_with_stderr_falls_back(tmp_path: Path) -> None:
    """With stdout and stderr one pipe, the blocking transport is used; all still works."""
    proc = subprocess.run(
        adapter_command(str(tmp_path / "none.sock")),
        input=_script(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        timeout=WAIT,
        cwd=str(TESTS),
        check=False,
    )
    assert proc.returncode == 0
    _check_replies(proc.stdout)
