"""The generated venom-echo client (``venom_echo.client``) against a real ``venom-echo serve``:
every method of the blocking and the anyio class, streams, cancellation, errors and auth."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from venom_echo.client import ABSENT, SCHEMA_DIGEST, AsyncVenomEchoClient, VenomEchoClient
from venom_gen.testing import DaemonProcess
from venom_proto import VenomError

TIMEOUT = 10.0


@pytest.fixture(scope="module")
def daemon() -> Iterator[DaemonProcess]:
    """``venom-echo serve`` on private directories (the test kit), shared by the module."""
    with DaemonProcess("venom_echo.product:PRODUCT") as running:
        yield running


@pytest.fixture
def client(daemon: DaemonProcess) -> Iterator[VenomEchoClient]:
    with VenomEchoClient.connect(daemon.socket, timeout=TIMEOUT) as connected:
        yield connected


def test_hello_reports_the_generated_schema(client: VenomEchoClient) -> None:
    """The daemon's schema digest is the one the client was generated from (RFC-0002 §6.2)."""
    assert client.hello_result["schema"] == SCHEMA_DIGEST
    assert client.ping() == {}


def test_echo_and_absent_defaults(client: VenomEchoClient) -> None:
    assert client.echo(text="hi") == {"text": "hi"}
    assert client.echo(text="hi", style="upper") == {"text": "HI"}
    assert client.echo(text="hi", style=ABSENT) == {"text": "hi"}
    assert client.echo_exit(status=3) == {"status": 3}


def test_absent_and_null_differ(client: VenomEchoClient) -> None:
    """Left-out params get the daemon's defaults; ``None`` is sent as JSON null (RFC-0004 §3)."""
    expected = {"count": 1, "ratio": 0.5, "flag": False, "tags": None, "nested": None, "mode": None}
    assert client.echo_types() == expected
    got = client.echo_types(count=-2, ratio=1, flag=True, tags=[1], nested={}, mode="safe")
    assert got["nested"] == {"name": "anon", "level": 0}  # nested defaults inserted
    assert [got["count"], got["ratio"], got["flag"], got["tags"], got["mode"]] == [
        -2,
        1,
        True,
        [1],
        "safe",
    ]
    with pytest.raises(VenomError) as caught:
        client.echo_types(tags=None)  # type: ignore[arg-type]  # tags is not nullable
    assert caught.value.code.startswith("invalid_params")


@pytest.mark.parametrize(
    ("code", "data_key"),
    [
        ("failed.echo", "reason"),
        ("not_found.echo", "what"),
        ("conflict.echo_busy", "retry_after_ms"),
        ("timeout.echo", "waited_ms"),
    ],
)
def test_declared_errors(client: VenomEchoClient, code: str, data_key: str) -> None:
    """Each declared error arrives as ``VenomError`` with its code and data (RFC-0002 §7)."""
    with pytest.raises(VenomError) as caught:
        client.echo_fail(code=code)  # type: ignore[arg-type]  # parametrized str
    assert caught.value.code == code
    assert data_key in (caught.value.data or {})


def test_stream_items_then_result(client: VenomEchoClient) -> None:
    stream = client.echo_repeat(text="ab", count=3)
    items = list(stream)
    assert items == [{"index": i, "text": "ab"} for i in range(3)]
    assert stream.result == {"count": 3}
    assert client.echo_repeat(text="x").result == {"count": 3}  # result drains the items


def test_stream_cancel(client: VenomEchoClient) -> None:
    """Cancelling a stream ends it with ``cancelled`` (RFC-0002 §4.4)."""
    stream = client.echo_repeat(text="x", count=1000, interval_ms=20)
    iterator = iter(stream)
    assert next(iterator)["index"] == 0
    stream.cancel()
    with pytest.raises(VenomError) as caught:
        for _ in iterator:
            pass
    assert caught.value.code == "cancelled"
    assert client.echo(text="still") == {"text": "still"}


def test_config_verbs(client: VenomEchoClient) -> None:
    assert json.loads(client.config_schema()["schema"])["type"] == "object"
    assert client.config_set(key="greeting", value="hey")["value"] == '"hey"'
    assert json.loads(client.config_get()["value"])["greeting"] == "hey"
    assert client.config_get(key="greeting") == {"key": "greeting", "value": '"hey"'}
    assert client.config_check()["valid"] is True
    assert client.config_reload()["changed"] == []
    with pytest.raises(VenomError) as caught:
        client.config_get(key="nope")
    assert caught.value.code == "not_found.config_key"


def test_skill_events_doctor(client: VenomEchoClient, tmp_path: Path) -> None:
    assert client.skill()["content"].startswith("---\n")
    installed = client.skill_install(dir=str(tmp_path))
    assert installed["written"] is True
    assert Path(installed["path"]).read_text(encoding="utf-8") == client.skill()["content"]
    client.config_set(key="log_level", value="debug")  # emits at least one event
    events = client.events(cursor=0, follow=False)  # replay everything retained, then stop
    seqs = [event["seq"] for event in events]
    assert seqs
    assert seqs == sorted(seqs)
    assert events.result["last"] == seqs[-1]
    assert client.doctor()["status"] in ("ok", "warn", "fail")


def test_default_socket_from_environment(
    daemon: DaemonProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``connect()`` without a path uses ``$VENOM_ECHO_SOCKET`` (RFC-0002 §2.3)."""
    monkeypatch.setenv("VENOM_ECHO_SOCKET", daemon.socket)
    with VenomEchoClient.connect() as client:
        assert client.echo(text="env") == {"text": "env"}


def test_owner_token_read_and_auth_override(daemon: DaemonProcess) -> None:
    """The owner token beside the socket is presented by default; ``auth={}`` presents none, so
    a write verb is refused (rfcs/0005-local-grants.md)."""
    with VenomEchoClient.connect(daemon.socket, auth={}, timeout=TIMEOUT) as anonymous:
        assert anonymous.echo(text="read") == {"text": "read"}
        with pytest.raises(VenomError) as caught:
            anonymous.config_set(key="greeting", value="no")
    assert caught.value.code == "denied.grant"


def test_no_daemon_is_not_running(tmp_path: Path) -> None:
    with pytest.raises(VenomError) as caught:
        VenomEchoClient.connect(str(tmp_path / "none.sock"))
    assert caught.value.code == "unavailable.not_running"


#: The generated async client is built on anyio: it runs on both of its backends.
BACKENDS = pytest.mark.parametrize("backend", ["asyncio", "trio"])


@BACKENDS
def test_async_client_calls_every_kind(daemon: DaemonProcess, backend: str) -> None:
    """The anyio class: calls, a stream with its result, a declared error, cancellation."""

    async def main() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        with anyio.fail_after(TIMEOUT):
            async with AsyncVenomEchoClient.connect(daemon.socket) as client:
                seen["schema"] = client.hello_result["schema"]
                seen["echo"] = await client.echo(text="hi", style="upper")
                seen["ping"] = await client.ping()
                seen["types"] = await client.echo_types(nested={"level": 2})
                stream = await client.echo_repeat(text="a", count=2)
                seen["items"] = [item async for item in stream]
                seen["result"] = stream.result
                events = await client.events(follow=False)
                seen["events"] = [event["type"] async for event in events]
                seen["last"] = events.result["last"]
                try:
                    await client.echo_fail(code="not_found.echo")
                except VenomError as exc:
                    seen["error"] = exc.code
                long = await client.echo_repeat(text="x", count=1000, interval_ms=20)
                async for _ in long:
                    await long.cancel()
                    break
                seen["after_cancel"] = await client.echo(text="ok")
                seen["doctor"] = (await client.doctor())["status"]
                seen["config"] = (await client.config_get(key="log_level"))["value"]
                seen["skill"] = (await client.skill())["content"][:4]
        return seen

    seen = anyio.run(main, backend=backend)
    assert seen["schema"] == SCHEMA_DIGEST
    assert seen["echo"] == {"text": "HI"}
    assert seen["ping"] == {}
    assert seen["types"]["nested"] == {"name": "anon", "level": 2}
    assert seen["items"] == [{"index": 0, "text": "a"}, {"index": 1, "text": "a"}]
    assert seen["result"] == {"count": 2}
    assert isinstance(seen["last"], int)
    assert seen["error"] == "not_found.echo"
    assert seen["after_cancel"] == {"text": "ok"}
    assert seen["doctor"] in ("ok", "warn", "fail")
    assert json.loads(seen["config"]) in ("debug", "info", "warning", "error")
    assert seen["skill"] == "---\n"


@BACKENDS
def test_async_stream_result_before_end_is_an_error(daemon: DaemonProcess, backend: str) -> None:
    async def main() -> None:
        with anyio.fail_after(TIMEOUT):
            async with AsyncVenomEchoClient.connect(daemon.socket) as client:
                stream = await client.echo_repeat(text="a", count=1)
                with pytest.raises(RuntimeError):
                    _ = stream.result
                assert [item["index"] async for item in stream] == [0]
                assert stream.result == {"count": 1}

    anyio.run(main, backend=backend)
