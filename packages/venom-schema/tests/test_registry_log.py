"""An invalid handler result or item logs one line for the author naming the verb and the path."""

from __future__ import annotations

import asyncio
import logging
import os
from typing import Any, cast

import pytest

from venom_proto import Call, ConnectionInfo, VenomError, VerbHandler
from venom_schema.grants import PUBLIC_GRANTS
from venom_schema.model import Model
from venom_schema.registry import build_verbs


def _verb(name: str, result: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "summary": name,
        "params": [],
        "result": result,
        "errors": [],
        "grant": "read",
        "streams": False,
        "exit": {"kind": "standard"},
        "examples": [],
        **extra,
    }


def _field(name: str, kind: str) -> dict[str, Any]:
    return {"name": name, "summary": name, "type": {"kind": kind}, "required": True}


_MODEL = {
    "format": 1,
    "tool": "t",
    "summary": "t",
    "verbs": [
        _verb("echo", {"kind": "object", "fields": [_field("text", "string")]}),
        _verb(
            "events",
            {"kind": "integer"},
            streams=True,
            item={"kind": "object", "fields": [_field("seq", "integer")]},
        ),
    ],
}


async def _events(call: Call, params: Any) -> Any:
    await call.emit({"seq": 1})
    return 1


def build(**overrides: Any) -> dict[str, VerbHandler]:
    handlers: dict[str, Any] = {"echo": lambda c, p: {"text": "hi"}, "events": _events}
    handlers.update(overrides)
    return build_verbs(cast("Model", _MODEL), handlers, grants_for=lambda c: PUBLIC_GRANTS)


class _Host:
    async def emit_item(self, call: Call, item: Any) -> None:
        pass


def make_call(verb: str, *, owner: bool, streams: bool = False) -> tuple[Call, _Host]:
    info = ConnectionInfo(id=1, uid=os.getuid(), gid=os.getgid(), pid=None)
    host = _Host()
    return Call(1, verb, info, host, streams=streams), host


def _errors(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "venom_schema.registry"]


@pytest.mark.parametrize("kind", ["sync", "async", "sync-returning-awaitable"])
def test_an_invalid_result_logs_the_verb_and_the_path(
    kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    def bad_sync(call: Call, params: Any) -> Any:
        return {"text": 5}

    async def bad_async(call: Call, params: Any) -> Any:
        return {"text": 5}

    handler = {
        "sync": bad_sync,
        "async": bad_async,
        "sync-returning-awaitable": lambda c, p: bad_async(c, p),
    }[kind]
    wrapped = build(echo=handler)["echo"].handler
    call, _ = make_call("echo", owner=False)

    def run() -> Any:
        value = wrapped(call, {})
        return asyncio.run(value) if asyncio.iscoroutine(value) else value

    with caplog.at_level(logging.ERROR), pytest.raises(VenomError) as info:
        run()
    assert info.value.code == "internal.result"
    [record] = _errors(caplog)
    assert record.levelno == logging.ERROR
    assert record.getMessage() == (
        "verb 'echo' returned an invalid result (path 'text'): "
        "invalid result at 'text': expected string, got integer"
    )


def test_an_invalid_item_logs_the_verb_and_the_path(caplog: pytest.LogCaptureFixture) -> None:
    async def events(call: Call, params: Any) -> Any:
        await call.emit({"seq": "two"})
        return 1

    call, _ = make_call("events", owner=False, streams=True)
    with caplog.at_level(logging.ERROR), pytest.raises(VenomError):
        asyncio.run(build(events=events)["events"].handler(call, {}))
    [record] = _errors(caplog)
    assert "verb 'events' returned an invalid item (path 'seq')" in record.getMessage()


def test_a_valid_result_logs_nothing(caplog: pytest.LogCaptureFixture) -> None:
    call, _ = make_call("echo", owner=False)
    with caplog.at_level(logging.DEBUG):
        assert build()["echo"].handler(call, {}) == {"text": "hi"}
    assert _errors(caplog) == []
