"""`venom_proto.typed`: the run time of generated typed clients, against the test tool
(conftest ``serve``): absent arguments, results, streams, cancel, hello and the connect options."""

from __future__ import annotations

from typing import Any, TypedDict

import anyio
import pytest

from venom_proto import VenomError, typed
from venom_proto.typed import (
    ABSENT,
    Absent,
    AsyncStream,
    AsyncTypedClient,
    Stream,
    TypedClient,
    present,
)

WAIT = 5.0


class EchoResult(TypedDict):
    text: str | None


class CountResult(TypedDict):
    count: int


class Tool(TypedClient):
    """What ``venom-gen client`` generates, by hand, for two verbs of the test tool."""

    tool = "test-tool"
    schema_digest = "sha256:test"
    client_name = "test-tool-client"

    def echo(self, *, text: str | Absent | None = ABSENT) -> EchoResult:
        result: EchoResult = self._call("echo", {"text": text})
        return result

    def count(self, *, n: int) -> Stream[int, CountResult]:
        return self._stream("count", {"n": n})

    def events(self) -> Stream[dict[str, Any], None]:
        return self._stream("events", {})

    def whoami(self) -> dict[str, Any]:
        result: dict[str, Any] = self._call("whoami", {})
        return result


class AsyncTool(AsyncTypedClient):
    tool = "test-tool"
    schema_digest = "sha256:test"
    client_name = "test-tool-client"

    async def echo(self, *, text: str | Absent | None = ABSENT) -> EchoResult:
        result: EchoResult = await self._call("echo", {"text": text})
        return result

    async def count(self, *, n: int) -> AsyncStream[int, CountResult]:
        return await self._stream("count", {"n": n})


def test_present_leaves_out_absent_and_keeps_none() -> None:
    params = {"a": ABSENT, "b": None, "c": 0}
    assert present(params) == {"b": None, "c": 0}
    assert params["a"] is ABSENT  # the input is not changed
    assert ABSENT is Absent.ABSENT
    assert isinstance(ABSENT, Absent)


def test_sync_calls_streams_and_hello(serve: Any, sock_path: str) -> None:
    serve()
    with Tool.connect(sock_path, timeout=WAIT, auth={"token": "t"}) as client:
        assert client.echo(text="hi") == {"text": "hi"}
        assert client.echo() == {"text": None}  # absent: not sent
        assert client.echo(text=None) == {"text": None}  # JSON null
        stream = client.count(n=3)
        assert isinstance(stream, Stream)
        assert isinstance(stream.id, int | str)
        assert list(stream) == [0, 1, 2]
        assert stream.result == {"count": 3}
        assert client.hello_result["server"]["name"] == "test-tool"
        assert client.whoami()["auth"] == {"token": "t"}
        assert client.raw.socket_path == sock_path
    with pytest.raises(VenomError):
        client.echo(text="closed")
    client.close()  # idempotent


def test_connect_defaults(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """By default: the ``<TOOL>_SOCKET`` path, hello names the client by its class attributes
    at its schema digest, and ``<TOOL>_TOKEN`` is the auth; each can be given instead."""
    seen: list[tuple[str, dict[str, Any]]] = []

    def fake(path: str, **options: Any) -> Any:
        seen.append((path, options))
        return None

    monkeypatch.setattr(typed, "SyncClient", fake)
    monkeypatch.setenv("TEST_TOOL_SOCKET", str(tmp_path / "s.sock"))
    monkeypatch.setenv("TEST_TOOL_TOKEN", "tok")
    Tool.connect()
    Tool.connect("/x.sock", auth={}, timeout=1.0, client_name="n", client_version="v")
    default: dict[str, Any] = {"timeout": None, "client_name": "test-tool-client"}
    default |= {"client_version": "sha256:test", "auth": {"token": "tok"}}
    given = {"timeout": 1.0, "client_name": "n", "client_version": "v", "auth": {}}
    assert seen == [(str(tmp_path / "s.sock"), default), ("/x.sock", given)]


def test_sync_stream_cancel(serve: Any, sock_path: str, event_items: Any) -> None:
    serve()
    with Tool.connect(sock_path, timeout=WAIT) as client:
        stream = client.events()
        items = iter(stream)
        assert [next(items), next(items)] == list(event_items)
        stream.cancel()
        with pytest.raises(VenomError) as info:
            next(items)
        assert info.value.code == "cancelled"


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    backend: str = request.param
    return backend


@pytest.mark.anyio
async def test_async_calls_and_streams(serve: Any, sock_path: str) -> None:
    serve()
    with anyio.fail_after(WAIT):
        async with AsyncTool.connect(sock_path) as client:
            assert await client.echo(text="hi") == {"text": "hi"}
            assert await client.echo() == {"text": None}
            stream = await client.count(n=2)
            assert isinstance(stream, AsyncStream)
            assert [item async for item in stream] == [0, 1]
            assert stream.result == {"count": 2}
            assert client.hello_result["server"]["name"] == "test-tool"
        await client.aclose()  # idempotent
