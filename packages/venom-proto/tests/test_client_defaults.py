"""Both clients need only a socket path or a tool name: hello names them ``venom-proto``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from venom_proto import AsyncClient, SyncClient, resolve_socket_path
from venom_proto._version import VERSION


def test_the_sync_client_takes_just_a_socket_path(serve: Any, sock_path: str) -> None:
    serve()
    with SyncClient(sock_path) as client:
        assert client.call("whoami")["auth"] is None
        assert client.call("echo", {"text": "hi"}) == {"text": "hi"}


def test_the_sync_client_finds_a_tool_by_its_default_socket(
    serve: Any, sock_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    serve()
    monkeypatch.setenv("TEST_TOOL_SOCKET", sock_path)
    assert resolve_socket_path("test-tool") == sock_path
    with SyncClient(tool="test-tool") as client:
        assert client.socket_path == sock_path
        assert client.call("echo", {"text": "hi"}) == {"text": "hi"}


def test_the_default_socket_is_the_runtime_dirs(
    short_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TEST_TOOL_SOCKET", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(short_dir))
    expected = resolve_socket_path("test-tool")
    assert expected.startswith(str(short_dir))
    assert expected.endswith("/test-tool.sock")
    client = AsyncClient(tool="test-tool")
    assert client.socket_path == expected


def test_an_explicit_path_wins_over_the_tool(short_dir: Path) -> None:
    client = AsyncClient(short_dir / "x.sock", tool="test-tool")
    assert client.socket_path == str(short_dir / "x.sock")


def test_a_client_needs_a_path_or_a_tool() -> None:
    with pytest.raises(TypeError, match="socket path or a tool name"):
        SyncClient()
    with pytest.raises(TypeError, match="socket path or a tool name"):
        AsyncClient()


def test_a_bad_tool_name_is_refused() -> None:
    with pytest.raises(ValueError, match="tool"):
        AsyncClient(tool="Not A Tool")


def _recording_server() -> Any:
    from venom_proto import Call, Server, VerbHandler

    def whoami(call: Call, params: Any) -> Any:
        return call.connection.hello["client"]

    return Server("test-tool", "1", {"client": VerbHandler(whoami)})


def test_hello_names_the_library_by_default(serve: Any, sock_path: str) -> None:
    serve(_recording_server())
    with SyncClient(sock_path) as client:
        assert client.call("client") == {"name": "venom-proto", "version": VERSION}
    with SyncClient(sock_path, client_name="mine", client_version="2") as client:
        assert client.call("client") == {"name": "mine", "version": "2"}


@pytest.mark.anyio
async def test_the_async_client_defaults_too(serve: Any, sock_path: str) -> None:
    serve(_recording_server())
    with anyio.fail_after(5):
        async with AsyncClient(sock_path) as client:
            assert await client.call("client") == {"name": "venom-proto", "version": VERSION}
