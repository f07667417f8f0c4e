"""AsyncClient's connect+hello deadline (rfcs/0002 D-W33), on both anyio backends: a server
that accepts and never answers, locally and behind a fake ssh, gives unavailable.unresponsive."""

from __future__ import annotations

import os
import socket
import stat
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from venom_proto import AsyncClient, VenomError
from venom_proto._client_paths import CONNECT_TIMEOUT

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    backend: str = request.param
    return backend


@pytest.fixture
def mute(sock_path: str) -> Iterator[socket.socket]:
    """A listening socket that accepts (the kernel does, into the backlog) and never answers."""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(sock_path)
    server.listen(8)
    yield server
    server.close()


def test_the_default_matches_the_sync_client() -> None:
    from venom_proto.sync_client import CONNECT_TIMEOUT as SYNC_DEFAULT

    assert CONNECT_TIMEOUT == SYNC_DEFAULT == 10.0


async def test_a_mute_daemon_is_unresponsive_at_the_deadline(
    mute: socket.socket, sock_path: str
) -> None:
    started = time.monotonic()
    with anyio.fail_after(10), pytest.raises(VenomError) as err:
        async with AsyncClient(sock_path, connect_timeout=0.3):
            pass
    elapsed = time.monotonic() - started
    assert err.value.code == "unavailable.unresponsive"
    assert err.value.data == {"socket": sock_path, "timeout": 0.3}
    assert 0.25 <= elapsed < 5


async def test_no_connect_timeout_waits_as_long_as_the_caller_does(
    mute: socket.socket, sock_path: str
) -> None:
    with anyio.move_on_after(0.5) as outer:
        async with AsyncClient(sock_path, connect_timeout=None):
            pass
    assert outer.cancelled_caught


async def test_a_mute_ssh_link_is_unresponsive_and_reaped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ssh that starts and then says nothing (a hung host, a remote tool that never answers)."""
    pidfile = tmp_path / "pid"
    script = tmp_path / "fake-ssh"
    script.write_text(
        f"#!{sys.executable}\nimport os, time\n"
        f"open({str(pidfile)!r}, 'w').write(str(os.getpid()))\ntime.sleep(60)\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("VENOM_SSH_COMMAND", str(script))
    url = "ssh://host/tmp/t.sock"
    with anyio.fail_after(10), pytest.raises(VenomError) as err:
        async with AsyncClient(url, connect_timeout=0.5):
            pass
    assert err.value.code == "unavailable.unresponsive"
    assert err.value.data == {"socket": url, "timeout": 0.5}
    pid = int(pidfile.read_text())
    with pytest.raises(ProcessLookupError):  # killed and reaped, not left running
        os.kill(pid, 0)
