"""The clients present what the CLI presents by default (rfcs/0002-wire-decisions.md D-W45):
``SyncClient(path)``, ``SyncClient(tool=...)`` and ``AsyncClient(tool=...)`` beside a local
socket hold the owner's grants; ``auth=None`` opts out; ``$<TOOL>_TOKEN`` wins when set."""

from __future__ import annotations

from collections.abc import Iterator

import anyio
import pytest

from venom_echo.client import VenomEchoClient
from venom_gen.testing import DaemonProcess
from venom_proto import AsyncClient, SyncClient, VenomError

WRITE = ("config.set", {"key": "greeting", "value": '"hi"'})


@pytest.fixture(scope="module")
def daemon() -> Iterator[DaemonProcess]:
    with DaemonProcess("venom_echo.product:PRODUCT") as running:
        yield running


@pytest.fixture
def env(daemon: DaemonProcess, monkeypatch: pytest.MonkeyPatch) -> DaemonProcess:
    """This process resolves the daemon's socket as the CLI would (its XDG_RUNTIME_DIR)."""
    monkeypatch.setenv("XDG_RUNTIME_DIR", daemon.env["XDG_RUNTIME_DIR"])
    monkeypatch.delenv("VENOM_ECHO_SOCKET", raising=False)
    monkeypatch.delenv("VENOM_ECHO_TOKEN", raising=False)
    return daemon


def test_a_client_by_path_presents_the_owner_token(env: DaemonProcess) -> None:
    """The venom-proto README's ``SyncClient(path)``: a write works, as it does from the CLI."""
    with SyncClient(env.socket, timeout=10) as client:
        assert client.call(*WRITE)["key"] == "greeting"


def test_a_client_by_tool_presents_the_owner_token(env: DaemonProcess) -> None:
    with SyncClient(tool="venom-echo", timeout=10) as client:
        assert client.socket_path == env.socket
        assert client.call(*WRITE)["key"] == "greeting"

    async def main() -> object:
        with anyio.fail_after(10):
            async with AsyncClient(tool="venom-echo", timeout=10) as client:
                return (await client.call(*WRITE))["key"]

    assert anyio.run(main) == "greeting"


def test_auth_none_opts_out_on_every_client(env: DaemonProcess) -> None:
    with (
        SyncClient(tool="venom-echo", auth=None, timeout=10) as client,
        pytest.raises(VenomError) as caught,
    ):
        client.call(*WRITE)
    assert caught.value.code == "denied.grant"
    assert caught.value.data is not None
    assert caught.value.data["identity"] == "peer"

    async def main() -> str:
        with anyio.fail_after(10):
            async with AsyncClient(env.socket, auth=None, timeout=10) as client:
                try:
                    await client.call(*WRITE)
                except VenomError as err:
                    return err.code
        return "ok"

    assert anyio.run(main) == "denied.grant"
    with (
        VenomEchoClient.connect(env.socket, auth=None, timeout=10) as typed,
        pytest.raises(VenomError) as caught,
    ):
        typed.config_set(key="greeting", value='"x"')
    assert caught.value.code == "denied.grant"


def test_the_token_variable_wins_as_for_the_cli(
    env: DaemonProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VENOM_ECHO_TOKEN", "f" * 64)
    with SyncClient(tool="venom-echo", timeout=10) as client, pytest.raises(VenomError) as caught:
        client.call(*WRITE)
    assert caught.value.data is not None
    assert caught.value.data["identity"] == "unrecognized"
