"""The handler registry: start-up matching, and the wrappers called directly with a real `Call`
over a fake host (grant first, then params with defaults, then result/item validation)."""

from __future__ import annotations

import asyncio
import inspect
import os
from typing import Any, cast

import pytest

from venom_proto import Call, ConnectionInfo, VenomError, VerbHandler
from venom_schema import model as schema
from venom_schema.grants import (
    ALL_GRANTS,
    PUBLIC_GRANTS,
    STATIC_GRANT_CLASSES,
    grants_for_connection,
)
from venom_schema.model import Descriptor, Field, Model
from venom_schema.registry import RegistryError, build_verbs


def field(name: str, type_: Descriptor, *, required: bool = False, **extra: Any) -> Field:
    return cast(
        "Field",
        {"name": name, "summary": f"the {name}", "type": type_, "required": required, **extra},
    )


def verb(name: str, grant: str = "read", **extra: Any) -> schema.Verb:
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
    return cast("schema.Verb", {**base, **extra})


TEXT = {"kind": "object", "fields": [field("text", {"kind": "string"}, required=True)]}
ECHO = verb(
    "echo",
    params=[
        field("text", {"kind": "string"}, required=True),
        field("style", {"kind": "string", "choices": ["plain", "upper"]}, default="plain"),
    ],
    result=TEXT,
)
WRITE = verb("note.write", grant="write", params=[field("text", {"kind": "string"}, required=True)])
EVENTS = verb(
    "events",
    streams=True,
    item={"kind": "object", "fields": [field("seq", {"kind": "integer"}, required=True)]},
    result={"kind": "integer"},
)
FREE = verb("status", grant="none")
MODEL: Model = {
    "format": 1,
    "tool": "venom-echo",
    "summary": "test tool",
    "verbs": [
        verb("cancel", dispatch="transport"),
        ECHO,
        EVENTS,
        verb("hello", dispatch="transport"),
        verb("mcp", dispatch="local"),
        WRITE,
        verb("ping", shared="core"),
        verb("serve", dispatch="local"),
        FREE,
    ],
}


class FakeHost:
    """Stands in for the dispatcher: records emitted items."""

    def __init__(self) -> None:
        self.items: list[Any] = []

    async def emit_item(self, call: Call, item: Any) -> None:
        self.items.append(item)


def make_call(verb_name: str, *, owner: bool, streams: bool = False) -> tuple[Call, FakeHost]:
    info = ConnectionInfo(id=1, uid=os.getuid(), gid=os.getgid(), pid=None)
    info.hello = {"auth": {"owner": owner}}
    host = FakeHost()
    return Call(1, verb_name, info, host, streams=streams), host


def grants_for(info: ConnectionInfo) -> frozenset[str]:
    return ALL_GRANTS if info.hello["auth"]["owner"] else PUBLIC_GRANTS


def echo(call: Call, params: dict[str, Any]) -> Any:
    text = params["text"]
    return {"text": text.upper() if params["style"] == "upper" else text}


def build(**overrides: Any) -> dict[str, VerbHandler]:
    calls: list[dict[str, Any]] = []

    async def events(call: Call, params: dict[str, Any]) -> Any:
        for seq in (41, 42.0):
            await call.emit({"seq": seq})
        return 2

    def note(call: Call, params: dict[str, Any]) -> Any:
        calls.append(params)
        return None

    handlers: dict[str, Any] = {
        "echo": echo,
        "events": events,
        "note.write": note,
        "status": lambda c, p: None,
    }
    handlers.update(overrides)
    return build_verbs(MODEL, handlers, grants_for=grants_for)


def test_registry_skips_transport_local_and_proto_verbs() -> None:
    """RFC-0004 §7: hello/cancel (transport), serve/mcp (local) and proto's ping need no handler."""
    verbs = build()
    assert sorted(verbs) == ["echo", "events", "note.write", "status"]
    assert verbs["events"].streams
    assert not verbs["echo"].streams


def test_missing_and_extra_handlers_are_all_listed() -> None:
    """RFC-0004 §2: the build fails for missing or extra handlers."""
    with pytest.raises(RegistryError) as info:
        build_verbs(
            MODEL, {"echo": echo, "ping": echo, "serve": echo, "bogus": echo}, grants_for=grants_for
        )
    assert info.value.missing == ["events", "note.write", "status"]
    assert info.value.extra == ["bogus", "ping", "serve"]
    assert "missing handlers: events, note.write, status" in str(info.value)


def test_model_defects_are_registry_errors() -> None:
    # A hand-broken model: the registry must report what the validator would have refused.
    model = cast(
        "Model", {**MODEL, "verbs": [verb("x", grant="root"), verb("y", result={"kind": "map"})]}
    )
    with pytest.raises(RegistryError) as info:
        build_verbs(model, {"x": echo, "y": echo}, grants_for=grants_for)
    assert info.value.problems == [
        "verb 'x': unknown grant 'root'",
        "verb 'y': result: unknown kind 'map'",
    ]


def test_sync_stays_sync_and_async_stays_async() -> None:
    """Sync handlers must stay plain functions so proto runs them inline."""
    verbs = build()
    assert not inspect.iscoroutinefunction(verbs["echo"].handler)
    assert not verbs["echo"].is_async
    assert inspect.iscoroutinefunction(verbs["events"].handler)
    assert verbs["events"].is_async


def test_params_get_defaults_and_results_pass() -> None:
    handler = build()["echo"].handler
    call, _ = make_call("echo", owner=False)
    assert handler(call, {"text": "hi"}) == {"text": "hi"}
    assert handler(call, {"text": "hi", "style": "upper"}) == {"text": "HI"}


def test_invalid_params_never_reach_the_handler() -> None:
    """RFC-0002 §4.6: params failing validation give invalid_params refinements."""
    seen: list[Any] = []
    handler = build(echo=lambda c, p: seen.append(p))["echo"].handler
    call, _ = make_call("echo", owner=True)
    with pytest.raises(VenomError) as info:
        handler(call, {})
    assert info.value.to_object() == {
        "code": "invalid_params.missing",
        "message": "missing required param 'text'",
        "data": {"param": "text"},
    }
    assert seen == []


def test_grant_is_checked_before_params_and_handler() -> None:
    """RFC-0004 §2: the daemon enforces the grant before invoking a handler."""
    seen: list[Any] = []
    handler = build(**{"note.write": lambda c, p: seen.append(p)})["note.write"].handler
    call, _ = make_call("note.write", owner=False)
    with pytest.raises(VenomError) as info:
        handler(call, {"bogus": 1})  # invalid params too: the grant refusal comes first
    assert info.value.code == "denied.grant"
    assert info.value.data == {"verb": "note.write", "grant": "write", "identity": "peer"}
    assert seen == []
    owner_call, _ = make_call("note.write", owner=True)
    assert handler(owner_call, {"text": "x"}) is None
    assert seen == [{"text": "x"}]


def test_invalid_result_is_internal_result() -> None:
    """RFC-0004 §3: invalid handler results produce internal.result, never success."""
    handler = build(echo=lambda c, p: {"text": 5})["echo"].handler
    call, _ = make_call("echo", owner=False)
    with pytest.raises(VenomError) as info:
        handler(call, {"text": "hi"})
    assert info.value.code == "internal.result"
    assert info.value.data == {"path": "text", "reason": "type"}


def test_stream_items_are_validated_and_normalized() -> None:
    verbs = build()
    call, host = make_call("events", owner=False, streams=True)
    assert asyncio.run(verbs["events"].handler(call, {})) == 2
    assert host.items == [{"seq": 41}, {"seq": 42}]
    assert type(host.items[1]["seq"]) is int


def test_invalid_stream_item_fails_the_call() -> None:
    """RFC-0004 §3: invalid stream items produce internal.result."""

    async def events(call: Call, params: dict[str, Any]) -> Any:
        await call.emit({"seq": 1})
        await call.emit({"seq": "two"})
        return 2

    call, host = make_call("events", owner=False, streams=True)
    with pytest.raises(VenomError) as info:
        asyncio.run(build(events=events)["events"].handler(call, {}))
    assert info.value.code == "internal.result"
    assert info.value.message == "invalid item at 'seq': expected integer, got string"
    assert host.items == [{"seq": 1}]


def test_streaming_handler_sees_cancellation() -> None:
    observed: list[bool] = []

    async def events(call: Call, params: dict[str, Any]) -> Any:
        observed.append(call.cancelled)
        outer.cancelled = True
        observed.append(call.cancelled)
        return 0

    outer, _ = make_call("events", owner=False, streams=True)
    asyncio.run(build(events=events)["events"].handler(outer, {}))
    assert observed == [False, True]


def test_sync_handler_returning_an_awaitable_is_checked_when_awaited() -> None:
    async def later() -> Any:
        return {"text": 1}

    handler = build(echo=lambda c, p: later())["echo"].handler
    call, _ = make_call("echo", owner=False)
    awaitable = handler(call, {"text": "x"})
    with pytest.raises(VenomError, match=r"internal\.result"):
        asyncio.run(awaitable)


def test_grant_none_needs_no_grant() -> None:
    """Even a policy granting nothing at all lets a `none` verb run."""
    verbs = build_verbs(
        MODEL,
        {"echo": echo, "events": echo, "note.write": echo, "status": lambda c, p: None},
        grants_for=lambda info: frozenset(),
    )
    call, _ = make_call("status", owner=False)
    assert verbs["status"].handler(call, {}) is None
    with pytest.raises(VenomError, match=r"denied\.grant"):
        verbs["echo"].handler(call, {"text": "x"})


def test_sets_decided_once_take_the_generated_path_and_live_ones_the_general() -> None:
    """The daemon's hot path (docs/benchmarks.md, per-request instructions): a plain sync
    verb admits a connection whose grants were decided once (the owner's set, the peer's
    floor: `STATIC_GRANT_CLASSES`) inline; only live grants (an issued token's, re-read
    before each admission) go to the general wrapper. The floor once went there on every call
    (+9k instructions per request for a caller without a token)."""

    class Live(frozenset[str]):
        async def refresh(self) -> None:
            return None

    held: dict[str, Any] = {}
    handler = build_verbs(
        MODEL,
        {"echo": echo, "events": echo, "note.write": echo, "status": echo},
        grants_for=lambda info: held["grants"],
    )["echo"].handler
    general_calls: list[str] = []
    general = handler.__globals__["_general"]

    def spy(call: Call, raw: Any) -> Any:
        general_calls.append(type(held["grants"]).__name__)
        return general(call, raw)

    handler.__globals__["_general"] = spy
    peer = ConnectionInfo(id=1, uid=os.getuid(), gid=os.getgid(), pid=None)
    peer.hello = {"proto": [1]}  # no token: the peer's floor
    for grants in (grants_for_connection(peer, None), ALL_GRANTS, Live(PUBLIC_GRANTS)):
        assert grants.__class__ in STATIC_GRANT_CLASSES or isinstance(grants, Live)
        held["grants"] = grants
        call, _ = make_call("echo", owner=False)
        value = handler(call, {"text": "hi"})
        if inspect.iscoroutine(value):
            value = asyncio.run(value)
        assert value == {"text": "hi"}
    assert general_calls == ["Live"]
