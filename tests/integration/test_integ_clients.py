"""venom_proto's AsyncClient and SyncClient against the real daemon (RFC-0002; rfcs/0005)."""

from __future__ import annotations

import gc
import json
import warnings
from pathlib import Path
from typing import Any

import anyio
import pytest
from integration_kit import TIMEOUT, Daemon

from venom_echo.handlers import ECHO_BYTES, ECHO_BYTES_CAP
from venom_proto import VenomError
from venom_proto.client import AsyncClient
from venom_proto.sync_client import SyncClient

CLIENT = "integration"


def _sync(d: Daemon, *, token: str | None = None) -> SyncClient:
    auth = None if token is None else {"token": token}
    return SyncClient(d.socket, client_name=CLIENT, client_version="0", auth=auth, timeout=TIMEOUT)


@pytest.mark.covers("socket", "hello", "echo", "echo.types", "ping")
def test_sync_client_calls(daemon: Daemon) -> None:
    """RFC-0002 §6.2: hello is done on construction; calls return ok values."""
    with _sync(daemon) as client:
        assert client.hello_result["server"]["name"] == "venom-echo"
        assert client.call("echo", {"text": "s", "style": "upper"}) == {"text": "S"}
        assert client.call("echo.types", {"mode": "safe"})["mode"] == "safe"
        client.ping()


@pytest.mark.covers("socket", "echo.fail", "echo.exit")
def test_sync_client_raises_venom_error(daemon: Daemon) -> None:
    """RFC-0002 §7.1: a daemon error surfaces as VenomError with code and data."""
    with _sync(daemon) as client:
        with pytest.raises(VenomError) as info:
            client.call("echo.fail", {"code": "conflict.echo_busy"})
        assert (info.value.code, info.value.data) == ("conflict.echo_busy", {"retry_after_ms": 100})
        assert client.call("echo.exit", {"status": 255}) == {"status": 255}


@pytest.mark.covers("socket", "echo.repeat", "events", "cancel", "echo")
def test_sync_client_stream_and_cancel(daemon: Daemon) -> None:
    """RFC-0002 §4.4: stream items then result; cancel ends an events stream with cancelled."""
    with _sync(daemon) as client:
        call = client.stream("echo.repeat", {"text": "r", "count": 2})
        assert list(call) == [{"index": 0, "text": "r"}, {"index": 1, "text": "r"}]
        assert call.result == {"count": 2}
        client.call("echo", {"text": "sync-sub"})
        # Replay from the start so the echo is found whenever the subscription begins.
        events = client.stream("events", {"cursor": 0, "types": ["echo.echoed"], "follow": True})
        iterator = iter(events)
        while json.loads(next(iterator)["data"]) != {"text": "sync-sub"}:
            pass
        client.cancel(events.id)
        with pytest.raises(VenomError) as info:
            for _ in iterator:
                pass
        assert info.value.code == "cancelled"


@pytest.mark.covers("socket", "config.set", "skill.install")
def test_sync_client_grants(daemon: Daemon, tmp_path: Path) -> None:
    """rfcs/0005 §2: read-only without the token (denied.grant), files with it."""
    with _sync(daemon) as anonymous, pytest.raises(VenomError) as info:
        anonymous.call("config.set", {"key": "greeting", "value": "no"})
    assert (info.value.code, info.value.data) == (
        "denied.grant",
        {"verb": "config.set", "grant": "write", "identity": "peer"},
    )
    with _sync(daemon, token=daemon.token()) as owner:
        ok = owner.call("skill.install", {"dir": str(tmp_path)})
    assert ok == {"path": str(tmp_path / "SKILL.md"), "written": True}


@pytest.mark.covers("socket", "ping")
def test_clients_report_not_running(tmp_path: Path) -> None:
    """RFC-0002 §7.3: no daemon is unavailable.not_running with data.socket."""
    missing = str(tmp_path / "none.sock")
    with pytest.raises(VenomError) as info:
        SyncClient(missing, client_name=CLIENT, client_version="0", timeout=TIMEOUT)
    assert (info.value.code, info.value.data) == ("unavailable.not_running", {"socket": missing})

    async def main() -> None:
        with anyio.fail_after(TIMEOUT):
            async with AsyncClient(missing, client_name=CLIENT, client_version="0") as client:
                await client.ping()

    with pytest.raises(VenomError) as ainfo:
        anyio.run(main)
    assert ainfo.value.code == "unavailable.not_running"


@pytest.mark.covers("socket", "hello", "echo", "echo.repeat", "events", "cancel", "doctor")
def test_async_client_ndjson(daemon: Daemon) -> None:
    """RFC-0002 §4.3, §4.4: concurrent calls, a stream, and cancel over one connection."""
    seen: dict[str, Any] = {}

    async def main() -> None:
        with anyio.fail_after(TIMEOUT):
            await drive()

    async def drive() -> None:
        async with AsyncClient(daemon.socket, client_name=CLIENT, client_version="0") as client:
            seen["hello"] = client.hello_result
            seen["echo"] = await client.call("echo", {"text": "async"})
            seen["doctor"] = await client.call("doctor")
            repeat = await client.stream("echo.repeat", {"text": "a", "count": 2})
            seen["items"] = [item async for item in repeat]
            seen["result"] = repeat.result
            await client.call("echo", {"text": "async-sub"})
            events = await client.stream(
                "events", {"cursor": 0, "types": ["echo.echoed"], "follow": True}
            )
            async for item in events:
                if json.loads(item["data"]) == {"text": "async-sub"}:
                    seen["event"] = json.loads(item["data"])
                    await client.cancel(events.id)
            # iteration ends by raising cancelled, so this line is never reached
            seen["not_cancelled"] = True

    with pytest.raises(VenomError) as info:
        anyio.run(main)
    assert info.value.code == "cancelled"
    assert "not_cancelled" not in seen
    assert seen["hello"]["caps"] == ["cancel"]
    assert seen["echo"] == {"text": "async"}
    assert seen["doctor"]["exit"] == 0
    assert seen["items"] == [{"index": 0, "text": "a"}, {"index": 1, "text": "a"}]
    assert seen["result"] == {"count": 2}
    assert seen["event"] == {"text": "async-sub"}


@pytest.mark.covers("socket", "hello", "echo", "config.get")
def test_async_client_binary_echo_bytes(daemon: Daemon) -> None:
    """RFC-0002 §5.3: binary mode negotiates venom-echo.bytes; ECHO_BYTES comes back unchanged."""
    seen: dict[str, Any] = {}

    async def main() -> None:
        with anyio.fail_after(TIMEOUT):
            caps = ("cancel", ECHO_BYTES_CAP)
            async with AsyncClient(
                daemon.socket, client_name=CLIENT, client_version="0", caps=caps, binary=True
            ) as client:
                seen["caps"] = client.hello_result["caps"]
                stream = client.open_stream()
                await client.send_frame(ECHO_BYTES, stream, b"\x00\xffbytes")
                seen["frame"] = await client.receive_frame()
                seen["stream"] = stream
                seen["echo"] = await client.call("echo", {"text": "over control"})
                seen["config"] = await client.call("config.get", {"key": "log_level"})

    anyio.run(main)
    assert seen["caps"] == ["cancel", ECHO_BYTES_CAP]
    assert seen["stream"] % 2 == 1
    got = seen["frame"]
    assert (got.type, got.stream, got.payload) == (ECHO_BYTES, seen["stream"], b"\x00\xffbytes")
    assert seen["echo"] == {"text": "over control"}
    assert seen["config"] == {"key": "log_level", "value": '"info"'}


@pytest.mark.covers("socket", "ping")
def test_async_client_closes_cleanly(daemon: Daemon) -> None:
    """STYLE (anyio hygiene): a closed client leaves no unclosed anyio stream behind."""

    async def main() -> None:
        with anyio.fail_after(TIMEOUT):
            async with AsyncClient(daemon.socket, client_name=CLIENT, client_version="0") as c:
                await c.ping()

    gc.collect()  # garbage of earlier tests must not be blamed on this client
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        anyio.run(main)
        gc.collect()
    assert [str(w.message) for w in caught if w.category is ResourceWarning] == []
