"""ssh's stderr is drained for the whole session (rfcs/0006 §5): a chatty ssh never stalls the
link, and a failing one still reports the tail of what it wrote. ``VENOM_SSH_COMMAND`` points
at a fake ssh script; the real OpenSSH cases are in tests/remote."""

from __future__ import annotations

import shutil
import stat
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from venom_proto import AsyncClient, SyncClient, VenomError
from venom_proto.ssh import STDERR_KEPT

MIB = 1024 * 1024
WAIT = 20.0

needs_socat = pytest.mark.skipif(shutil.which("socat") is None, reason="needs socat")


def fake_ssh(tmp: Path, body: str) -> str:
    """A script standing in for ssh: ``body`` runs as Python, argv as ssh would get it."""
    script = tmp / "fake-ssh"
    script.write_text(f"#!{sys.executable}\nimport os, sys\n{body}\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


def chatty(tmp: Path, sock_path: str) -> str:
    """1 MiB on stderr (16 pipe buffers) before the link comes up; unread, it blocks there."""
    return fake_ssh(
        tmp,
        f"for _ in range({MIB // 65536}): os.write(2, b'x' * 65536)\n"
        f"os.execvp('socat', ['socat', '-', 'UNIX-CONNECT:{sock_path}'])\n",
    )


def assert_reports_the_tail(error: VenomError) -> None:
    """ssh's status and the last `STDERR_KEPT` bytes it wrote, ending with its own message."""
    assert error.code == "unavailable.ssh"
    data = error.data or {}
    assert data["status"] == 255
    text = data["stderr"]
    assert text.endswith("Could not resolve hostname nowhere")
    assert len(text) <= STDERR_KEPT


def failing(tmp: Path) -> str:
    return fake_ssh(
        tmp,
        "os.write(2, b'y' * (3 * 65536))\n"
        "os.write(2, b'\\nssh: Could not resolve hostname nowhere\\n')\n"
        "sys.exit(255)\n",
    )


@needs_socat
def test_sync_client_survives_megabytes_of_ssh_stderr(
    serve: Any, sock_path: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    serve()
    monkeypatch.setenv("VENOM_SSH_COMMAND", chatty(tmp_path, sock_path))
    with SyncClient("ssh://host/tmp/t.sock", client_name="t", client_version="0") as c:
        for i in range(50):
            assert c.call("echo", {"text": f"hi {i}"}) == {"text": f"hi {i}"}
        c.ping()


def test_sync_client_reports_the_tail_of_a_failing_ssh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VENOM_SSH_COMMAND", failing(tmp_path))
    with pytest.raises(VenomError) as err:
        SyncClient("ssh://nowhere/tmp/t.sock", client_name="t", client_version="0").__enter__()
    assert_reports_the_tail(err.value)


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    backend: str = request.param
    return backend


@needs_socat
@pytest.mark.anyio
async def test_async_client_survives_megabytes_of_ssh_stderr(
    serve: Any, sock_path: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    serve()
    monkeypatch.setenv("VENOM_SSH_COMMAND", chatty(tmp_path, sock_path))
    with anyio.fail_after(WAIT):
        async with AsyncClient("ssh://host/tmp/t.sock", client_name="t", client_version="0") as c:
            for i in range(50):
                assert await c.call("echo", {"text": f"hi {i}"}) == {"text": f"hi {i}"}
            await c.ping()


@pytest.mark.anyio
async def test_async_client_reports_the_tail_of_a_failing_ssh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VENOM_SSH_COMMAND", failing(tmp_path))
    with anyio.fail_after(WAIT), pytest.raises(VenomError) as err:
        async with AsyncClient("ssh://nowhere/tmp/t.sock", client_name="t", client_version="0"):
            pass
    assert_reports_the_tail(err.value)
