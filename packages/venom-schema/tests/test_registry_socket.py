"""One end-to-end run: registry-built verbs served by venom-proto's real server on a Unix socket,
with the owner token written beside it (rfcs/0005-local-grants.md)."""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
import tempfile
import threading
from collections.abc import Container, Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from venom_proto import Call, ConnectionInfo, Server
from venom_proto.owner_token import install_owner_token
from venom_schema.grants import grants_for_connection
from venom_schema.model import Descriptor, Field, Model, Verb
from venom_schema.registry import build_verbs

TIMEOUT = 5.0


def field(name: str, type_: Descriptor, *, required: bool = False, **extra: Any) -> Field:
    return cast(
        "Field",
        {"name": name, "summary": f"the {name}", "type": type_, "required": required, **extra},
    )


def verb(name: str, grant: str, **extra: Any) -> Verb:
    base: dict[str, Any] = {
        "name": name,
        "summary": name,
        "params": [],
        "result": {"kind": "null"},
        "errors": [],
        "grant": grant,
        "streams": False,
        "exit": {"kind": "standard"},
        "examples": [],
    }
    return cast("Verb", {**base, **extra})


MODEL: Model = {
    "format": 1,
    "tool": "venom-echo",
    "summary": "test",
    "verbs": [
        verb(
            "echo",
            "read",
            params=[
                field("text", {"kind": "string"}, required=True),
                field("style", {"kind": "string", "choices": ["plain", "upper"]}, default="plain"),
            ],
            result={"kind": "object", "fields": [field("text", {"kind": "string"}, required=True)]},
        ),
        verb(
            "count",
            "read",
            params=[field("n", {"kind": "integer", "min": 0, "max": 5}, default=2)],
            streams=True,
            item={"kind": "integer"},
            result={
                "kind": "object",
                "fields": [field("count", {"kind": "integer"}, required=True)],
            },
        ),
        verb("wipe", "admin"),
        verb("ping", "none", shared="core"),
    ],
}


def echo(call: Call, params: dict[str, Any]) -> Any:
    text = params["text"]
    return {"text": text.upper() if params["style"] == "upper" else text}


async def count(call: Call, params: dict[str, Any]) -> Any:
    for i in range(params["n"]):
        await call.emit(i)
    return {"count": params["n"]}


def wipe(call: Call, params: dict[str, Any]) -> Any:
    return None


@pytest.fixture
def daemon() -> Iterator[tuple[str, str]]:
    """The registry's verbs served on a short socket path; yields (socket path, owner token)."""
    directory = Path(tempfile.mkdtemp(prefix="vs", dir="/tmp"))
    path = str(directory / "e.sock")
    token = install_owner_token(path)

    def grants_for(info: ConnectionInfo) -> Container[str]:
        return grants_for_connection(info, token)

    verbs = build_verbs(MODEL, {"echo": echo, "count": count, "wipe": wipe}, grants_for=grants_for)
    server = Server("venom-echo", "0.1.0", verbs)
    ready = threading.Event()
    errors: list[BaseException] = []

    def main() -> None:
        try:
            asyncio.run(server.run(path, ready=lambda _: ready.set(), handle_signals=False))
        except BaseException as exc:
            errors.append(exc)
            ready.set()

    thread = threading.Thread(target=main, daemon=True)
    thread.start()
    try:
        assert ready.wait(TIMEOUT)
        assert not errors, errors
        yield path, token.value
    finally:
        server.stop()
        thread.join(TIMEOUT)
        shutil.rmtree(directory, ignore_errors=True)
    assert not thread.is_alive()


def converse(path: str, requests: list[dict[str, Any]], replies: int) -> list[Any]:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(TIMEOUT)
        sock.connect(path)
        sock.sendall(b"".join(json.dumps(r).encode() + b"\n" for r in requests))
        buffer = b""
        while buffer.count(b"\n") < replies:
            chunk = sock.recv(65536)
            assert chunk, f"connection closed early: {buffer!r}"
            buffer += chunk
    return [json.loads(line) for line in buffer.splitlines()]


def hello(auth: dict[str, Any] | None) -> dict[str, Any]:
    params: dict[str, Any] = {"proto": [1], "caps": ["cancel"]}
    if auth is not None:
        params["auth"] = auth
    return {"id": 0, "verb": "hello", "params": params}


def test_unknown_caller_reads_but_cannot_wipe(daemon: tuple[str, str]) -> None:
    """RFC-0002 §1 transcript; RFC-0004 §2: unknown callers get at most read-only access."""
    path, _ = daemon
    replies = converse(
        path,
        [
            hello(None),
            {"id": 2, "verb": "echo", "params": {"text": "hi"}},
            {"id": 3, "verb": "echo", "params": {}},
            {"id": 4, "verb": "wipe"},
            {"id": 5, "verb": "ping"},
            {"id": 6, "verb": "count", "params": {}},
        ],
        replies=8,
    )
    by_id: dict[Any, list[Any]] = {}
    for reply in replies:
        by_id.setdefault(reply["id"], []).append(reply)
    assert by_id[2] == [{"id": 2, "ok": {"text": "hi"}}]
    assert by_id[3] == [
        {
            "id": 3,
            "error": {
                "code": "invalid_params.missing",
                "message": "missing required param 'text'",
                "data": {"param": "text"},
            },
        }
    ]
    assert by_id[4][0]["error"]["code"] == "denied.grant"
    assert by_id[4][0]["error"]["data"] == {"verb": "wipe", "grant": "admin", "identity": "peer"}
    assert by_id[5] == [{"id": 5, "ok": {}}]  # proto's built-in ping
    assert by_id[6] == [{"id": 6, "item": 0}, {"id": 6, "item": 1}, {"id": 6, "ok": {"count": 2}}]


def test_owner_token_holds_every_grant(daemon: tuple[str, str]) -> None:
    """rfcs/0005-local-grants.md: hello.auth with the owner token unlocks every grant."""
    path, token = daemon
    replies = converse(path, [hello({"token": token}), {"id": 1, "verb": "wipe", "params": {}}], 2)
    assert replies[1] == {"id": 1, "ok": None}
    wrong = converse(path, [hello({"token": "0" * 64}), {"id": 1, "verb": "wipe"}], 2)
    assert wrong[1]["error"]["code"] == "denied.grant"
