"""SyncClient and AsyncClient offer one surface: the same options, methods and attributes.

The one difference allowed is sync against async: a method that waits is ``async def`` on
the async side, ``close``/``__enter__``/``__exit__``/``__iter__`` are spelled
``aclose``/``__aenter__``/``__aexit__``/``__aiter__``, and annotations name the async twin of
a type (``AsyncStreamCall`` for ``StreamCall``).
"""

from __future__ import annotations

import inspect
from typing import Any

import anyio
import pytest

from venom_proto import AsyncClient, SyncClient
from venom_proto.client import AsyncStreamCall
from venom_proto.sync_client import StreamCall
from venom_proto.typed import AsyncTypedClient, TypedClient

#: async name -> sync name, for the members whose spelling says sync or async.
ASYNC_SPELLING = {
    "aclose": "close",
    "__aenter__": "__enter__",
    "__aexit__": "__exit__",
    "__aiter__": "__iter__",
}
#: async type names in annotations -> their sync twins.
ASYNC_TYPES = {
    "AsyncStreamCall": "StreamCall",
    "AsyncClient": "SyncClient",
    "AsyncIterator": "Iterator",
}
#: Private by spelling, public by role: the constructor's options are the surface too.
DUNDERS = ("__init__", *ASYNC_SPELLING, *ASYNC_SPELLING.values())
PAIRS = [
    (SyncClient, AsyncClient),
    (StreamCall, AsyncStreamCall),
    # The generated typed clients' bases: a product's two classes add one method per verb each.
    (TypedClient, AsyncTypedClient),
]


def _public(cls: type) -> dict[str, Any]:
    """Public members of ``cls`` (and its constructor and protocol dunders), by sync name."""
    members = {}
    for name, member in inspect.getmembers(cls):
        if name.startswith("_") and name not in DUNDERS:
            continue
        members[ASYNC_SPELLING.get(name, name)] = member
    return members


def _sync_spelling(annotation: Any) -> Any:
    if not isinstance(annotation, str):
        return annotation
    for name, twin in ASYNC_TYPES.items():
        annotation = annotation.replace(name, twin)
    return annotation


def _shape(function: Any) -> list[tuple[str, Any, Any, Any]]:
    signature = inspect.signature(function)
    return [
        (p.name, p.kind, p.default, _sync_spelling(p.annotation))
        for p in signature.parameters.values()
    ] + [("return", None, None, _sync_spelling(signature.return_annotation))]


@pytest.mark.parametrize(("sync", "async_"), PAIRS, ids=lambda cls: cls.__name__)
def test_the_same_member_names(sync: type, async_: type) -> None:
    assert sorted(_public(sync)) == sorted(_public(async_))


@pytest.mark.parametrize(("sync", "async_"), PAIRS, ids=lambda cls: cls.__name__)
def test_the_same_parameters_kinds_defaults_and_annotations(sync: type, async_: type) -> None:
    sync_members, async_members = _public(sync), _public(async_)
    for name in sorted(sync_members.keys() & async_members.keys()):
        s, a = sync_members[name], async_members[name]
        assert isinstance(s, property) == isinstance(a, property), name
        if isinstance(s, property):
            s, a = s.fget, a.fget
        if not callable(s):
            assert s == a, name
            continue
        assert _shape(s) == _shape(a), name


@pytest.mark.parametrize(("sync", "async_"), PAIRS, ids=lambda cls: cls.__name__)
def test_only_the_async_side_is_async(sync: type, async_: type) -> None:
    for name, member in _public(sync).items():
        assert not inspect.iscoroutinefunction(member), name
    waits = {
        name for name, member in _public(async_).items() if inspect.iscoroutinefunction(member)
    }
    blocking = {"call", "stream", "cancel", "ping", "send_frame", "receive_frame", "close"}
    expected = {
        AsyncClient: blocking | {"__enter__", "__exit__"},
        AsyncTypedClient: {"close", "__enter__", "__exit__"},
    }
    assert waits == expected.get(async_, set())


def test_a_connection_has_the_same_public_attributes(serve: Any, sock_path: str) -> None:
    """Instance attributes too: what a connected client of either kind exposes."""
    serve()
    with SyncClient(sock_path) as sync:
        sync_attributes = {k: v for k, v in vars(sync).items() if not k.startswith("_")}

    async def enter() -> dict[str, Any]:
        async with AsyncClient(sock_path) as client:
            return {k: v for k, v in vars(client).items() if not k.startswith("_")}

    async_attributes = anyio.run(enter)
    assert sorted(sync_attributes) == sorted(async_attributes) == ["hello_result", "socket_path"]
    assert sync_attributes["socket_path"] == async_attributes["socket_path"]
    assert sync_attributes["hello_result"] == async_attributes["hello_result"]
