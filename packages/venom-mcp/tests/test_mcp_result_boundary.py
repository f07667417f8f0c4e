"""The adapter is a validating boundary (RFC-0004 §3): what a daemon answers must match the
verb's result and item descriptors before it reaches an MCP client as success.

A misbehaving or older daemon used to pass a wrong result through as structuredContent that
broke the advertised outputSchema, and an item for a verb that does not stream was dropped
silently. Both now give ``internal.result`` with ``isError``, as the generated CLI does: in
memory against fake upstreams (every wrapper shape), and over a real socket against a scripted
daemon that sends the wrong things (the item case also cancels the call upstream).
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pytest
from mcp_testkit import WAIT, raw_session, tool_text

from venom_gen.testing import PrivateDirs
from venom_mcp._dispatch import DaemonUpstream
from venom_mcp.adapter import Tools, build_server
from venom_schema.model import Model

pytestmark = pytest.mark.anyio


class Canned:
    """An upstream that answers every call with one canned success wrapper."""

    def __init__(self, wrapper: Any) -> None:
        self.wrapper = wrapper

    async def invoke(
        self, verb: Mapping[str, Any], params: dict[str, Any], *, on_item: Any = None
    ) -> Any:
        return self.wrapper


def _internal_result(reply: dict[str, Any]) -> dict[str, Any]:
    result = reply["result"]
    assert result["isError"] is True, result
    assert "structuredContent" not in result
    error: dict[str, Any] = tool_text(result)["error"]
    assert error["code"] == "internal.result", error
    return error


BAD_WRAPPERS: dict[str, list[Any]] = {
    "echo": [
        {"result": {}},  # required field missing
        {"result": {"text": 5}},  # wrong type
        {"result": {"text": "x", "extra": 1}},  # unknown field
        {"result": {"text": None}},  # null where not nullable
        {"result": None},
        {"result": [{"text": "x"}]},
        {"result": {"text": "x"}, "items": [{"text": "x"}]},  # items for a non-streaming verb
        {},  # no result at all
        {"items": []},
    ],
    "whoami": [{"result": {"token": 1}}, {"result": {}}],
    "repeat": [
        {"items": [{"n": "0", "pad": ""}], "result": {"count": 1}},  # a bad item
        {"items": [{"n": 0, "pad": ""}, {"n": 1}], "result": {"count": 2}},  # a later bad item
        {"items": [], "result": {"count": 1.5}},
        {"items": {"n": 0}, "result": {"count": 1}},  # items not a list
        {"result": {"count": 0}},  # no items member
    ],
}
GOOD_WRAPPERS: dict[str, list[Any]] = {
    "echo": [{"result": {"text": "x"}}],
    "whoami": [{"result": {"token": None}}, {"result": {"token": "t"}}],
    "repeat": [
        {"items": [], "result": {"count": 0}},
        {"items": [{"n": 1, "pad": ""}], "result": {"count": 1.0}},
    ],
}
ARGUMENTS: dict[str, dict[str, Any]] = {"echo": {"text": "x"}, "whoami": {}, "repeat": {"count": 1}}


CASES = [(t, w, False) for t, ws in BAD_WRAPPERS.items() for w in ws]
CASES += [(t, w, True) for t, ws in GOOD_WRAPPERS.items() for w in ws]


@pytest.mark.parametrize(("tool", "wrapper", "valid"), CASES)
async def test_only_a_valid_success_reaches_the_client(
    model: Model, tool: str, wrapper: Any, valid: bool
) -> None:
    """A valid wrapper passes unchanged; any other is internal.result."""
    server = build_server(Tools(model), Canned(wrapper), name="venom-echo", version="0")
    async with raw_session(server) as peer:
        reply = await peer.call_tool(tool, ARGUMENTS[tool])
    if valid:
        assert reply["result"]["isError"] is False
        assert reply["result"]["structuredContent"] == wrapper
    else:
        _internal_result(reply)


# -- over a real socket, against a scripted daemon -------------------------------------------

HELLO_OK = {
    "proto": 1,
    "server": {"name": "venom-echo", "version": "0"},
    "caps": ["cancel"],
    "max_frame": 1048576,
}
Answer = Callable[[dict[str, Any]], list[dict[str, Any]]]


class ScriptedDaemon:
    """Answers hello, then each request with the lines ``answer(request)`` returns."""

    def __init__(self, path: str, answer: Answer) -> None:
        self.answer = answer
        self.requests: list[dict[str, Any]] = []
        self.conn: socket.socket | None = None
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(path)
        self.listener.listen(4)
        self.listener.settimeout(WAIT)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return
        self.conn = conn
        with conn, conn.makefile("rwb") as stream:
            for line in stream:
                request = json.loads(line)
                self.requests.append(request)
                if request["verb"] == "hello":
                    replies = [{"id": request["id"], "ok": HELLO_OK}]
                elif request["verb"] == "cancel":
                    replies = [{"id": request["id"], "ok": None}]
                else:
                    replies = [{"id": request["id"], **r} for r in self.answer(request)]
                for reply in replies:
                    stream.write(json.dumps(reply).encode() + b"\n")
                stream.flush()

    def close(self) -> None:
        self.listener.close()
        if self.conn is not None:  # ends the serving loop even if the adapter kept it open
            with contextlib.suppress(OSError):
                self.conn.shutdown(socket.SHUT_RDWR)
        self.thread.join(WAIT)


@pytest.fixture
def scripted(venom_dirs: PrivateDirs) -> Iterator[Callable[[Answer], tuple[ScriptedDaemon, str]]]:
    made: list[ScriptedDaemon] = []
    directory = venom_dirs.root

    def make(answer: Answer) -> tuple[ScriptedDaemon, str]:
        path = f"{directory}/d{len(made)}.sock"
        made.append(ScriptedDaemon(path, answer))
        return made[-1], path

    yield make
    for daemon in made:
        daemon.close()


@pytest.mark.parametrize(
    ("tool", "answer"),
    [
        ("echo", [{"ok": {"text": 1}}]),
        ("echo", [{"ok": {"text": "x", "older": True}}]),
        ("echo", [{"item": {"text": "x"}}]),  # an item for a verb that does not stream
        ("repeat", [{"item": {"n": 0}}]),  # an item without its required pad
        ("repeat", [{"item": {"n": 0, "pad": ""}}, {"ok": {"count": "1"}}]),
    ],
)
async def test_a_misbehaving_daemon_is_caught_at_the_adapter(
    model: Model,
    scripted: Callable[[Answer], tuple[ScriptedDaemon, str]],
    tool: str,
    answer: list[dict[str, Any]],
) -> None:
    daemon, path = scripted(lambda request: answer)
    upstream = DaemonUpstream(path, client_name="venom-echo-mcp", client_version="0")
    server = build_server(Tools(model), upstream, name="venom-echo", version="0")
    async with raw_session(server) as peer:
        reply = await peer.call_tool(tool, ARGUMENTS[tool])
        _internal_result(reply)
        if "ok" not in answer[-1]:  # the call was still running upstream: it is cancelled
            verbs = [r["verb"] for r in daemon.requests]
            assert verbs[-1] == "cancel", verbs
            assert daemon.requests[-1]["params"] == {"id": daemon.requests[-2]["id"]}
