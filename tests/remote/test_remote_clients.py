"""The CLI, SyncClient, AsyncClient and the MCP adapter over ``ssh://`` (rfcs/0006 §3-§5)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import uuid
from typing import Any

import anyio
import pytest
from integration_kit import Daemon
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from remote_kit import Sshd

from venom_proto import VenomError
from venom_proto.client import AsyncClient
from venom_proto.sync_client import SyncClient

TIMEOUT = 20.0


@pytest.fixture
def ssh_env(remote: tuple[Daemon, Sshd], monkeypatch: pytest.MonkeyPatch) -> str:
    """This process dials through the test sshd with the owner token; returns the URL."""
    daemon, sshd = remote
    monkeypatch.setenv("VENOM_SSH_COMMAND", sshd.ssh_env["VENOM_SSH_COMMAND"])
    monkeypatch.setenv("VENOM_ECHO_TOKEN", daemon.token())
    return sshd.url(daemon.socket)


def cli(
    remote: tuple[Daemon, Sshd], *args: str, token: str | None = None
) -> subprocess.CompletedProcess[str]:
    daemon, sshd = remote
    env = {
        **sshd.ssh_env,
        "VENOM_ECHO_SOCKET": sshd.url(daemon.socket),
        "VENOM_ECHO_TOKEN": daemon.token() if token is None else token,
        # Nothing local to fall back on: the runtime dir the CLI would read is empty.
        "XDG_RUNTIME_DIR": str(daemon.root / "elsewhere"),
    }
    return daemon.cli(*args, env=env)


def issue(daemon: Daemon, grants: list[str]) -> str:
    name = f"c-{uuid.uuid4().hex[:8]}"
    out = daemon.cli("token.issue", "--name", name, "--grants", json.dumps(grants), "--json")
    assert out.returncode == 0, out.stdout + out.stderr
    token: str = json.loads(out.stdout)["token"]
    return token


def test_cli_calls_and_streams_over_ssh(remote: tuple[Daemon, Sshd]) -> None:
    out = cli(remote, "echo", "--text", "hi", "--json")
    assert (out.returncode, out.stdout.strip()) == (0, '{"text":"hi"}'), out.stderr
    streamed = cli(remote, "echo.repeat", "--text", "x", "--count", "3", "--json")
    assert streamed.returncode == 0, streamed.stderr
    items = [json.loads(line) for line in streamed.stdout.splitlines()]
    assert [i["index"] for i in items[:3]] == [0, 1, 2]
    flag = remote[0].cli(
        "--socket", remote[1].url(remote[0].socket), "ping", "--json",
        env={**remote[1].ssh_env, "VENOM_ECHO_TOKEN": remote[0].token()},
    )  # fmt: skip
    assert flag.returncode == 0, flag.stderr


def test_cli_refusals_over_ssh(remote: tuple[Daemon, Sshd]) -> None:
    """No valid token: denied.auth, exit 4; a read token cannot write: denied.grant, exit 4."""
    out = cli(remote, "ping", "--json", token="nope")
    assert out.returncode == 4, out.stdout + out.stderr
    assert json.loads(out.stdout)["error"]["code"] == "denied.auth"
    reader = issue(remote[0], ["read"])
    assert cli(remote, "echo", "--text", "r", token=reader).returncode == 0
    write = cli(remote, "config.set", "--key", "greeting", "--value", '"x"', "--json", token=reader)
    assert write.returncode == 4
    error = json.loads(write.stdout)["error"]
    assert (error["code"], error["data"]["grant"]) == ("denied.grant", "write")


def test_cli_unreachable_host_is_unavailable_ssh(remote: tuple[Daemon, Sshd]) -> None:
    """ssh failing before hello: unavailable.ssh, exit 6, ssh's own words in data.stderr."""
    daemon, sshd = remote
    env = {**sshd.ssh_env, "VENOM_ECHO_TOKEN": daemon.token()}
    bad_port = f"ssh://127.0.0.1:1{daemon.socket}"
    out = daemon.cli("--socket", bad_port, "ping", "--json", env=env)
    assert out.returncode == 6, out.stdout + out.stderr
    error = json.loads(out.stdout)["error"]
    assert error["code"] == "unavailable.ssh"
    assert "refused" in error["data"]["stderr"].lower()
    malformed = daemon.cli("--socket", "ssh://-oProxyCommand=x/s.sock", "ping", "--json", env=env)
    assert malformed.returncode == 2
    assert json.loads(malformed.stdout)["error"]["code"] == "invalid_params.usage"


def test_sync_client_pipelines_streams_and_cancels(ssh_env: str) -> None:
    with SyncClient(ssh_env, client_name="t", client_version="0") as c:
        assert c.call("echo", {"text": "a"}) == {"text": "a"}
        call = c.stream("echo.repeat", {"text": "s", "count": 2})
        assert [item["index"] for item in call] == [0, 1]
        assert call.result == {"count": 2}
        slow = c.stream("echo.repeat", {"text": "s", "count": 1000, "interval_ms": 50})
        c.cancel(slow.id)
        with pytest.raises(VenomError) as info:
            list(slow)
        assert info.value.code == "cancelled"
        assert c.call("ping") == {}


def test_sync_client_without_token_is_refused(
    ssh_env: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VENOM_ECHO_TOKEN")
    with pytest.raises(VenomError) as info:
        SyncClient(ssh_env, client_name="t", client_version="0")
    assert (info.value.code, info.value.exit_code) == ("denied.auth", 4)


def test_async_client_pipelines_streams_and_cancels(ssh_env: str) -> None:
    async def run() -> None:
        async with AsyncClient(ssh_env, client_name="t", client_version="0") as c:
            results = []

            async def one(i: int) -> None:
                results.append(await c.call("echo", {"text": str(i)}))

            async with anyio.create_task_group() as tg:
                for i in range(50):
                    tg.start_soon(one, i)
            assert sorted(int(r["text"]) for r in results) == list(range(50))
            call = await c.stream("echo.repeat", {"text": "s", "count": 3})
            assert [item["index"] async for item in call] == [0, 1, 2]
            with anyio.move_on_after(0.3):
                await c.call("echo.repeat", {"text": "s", "count": 1000, "interval_ms": 50})
            assert await c.call("ping") == {}
            assert len(_children_named_ssh()) == 1  # one ssh for the whole connection

    anyio.run(run)
    assert _children_named_ssh() == set()  # closing reaped it


def test_async_client_binary_frames_over_ssh(ssh_env: str) -> None:
    async def run() -> None:
        async with AsyncClient(
            ssh_env,
            client_name="t",
            client_version="0",
            caps=("cancel", "venom-echo.bytes"),
            binary=True,
        ) as c:
            stream = c.open_stream()
            await c.send_frame(0x0100, stream, b"\x00\xffbytes")
            frame = await c.receive_frame()
            assert (frame.type, frame.stream, frame.payload) == (0x0100, stream, b"\x00\xffbytes")
            assert await c.call("echo", {"text": "b"}) == {"text": "b"}

    anyio.run(run)


def test_sync_client_binary_frames_over_ssh(ssh_env: str) -> None:
    with SyncClient(
        ssh_env,
        client_name="t",
        client_version="0",
        caps=("cancel", "venom-echo.bytes"),
        binary=True,
        timeout=TIMEOUT,
    ) as c:
        stream = c.open_stream()
        c.send_frame(0x0100, stream, b"\x00\xffbytes")
        frame = c.receive_frame()
        assert (frame.type, frame.stream, frame.payload) == (0x0100, stream, b"\x00\xffbytes")
        assert c.call("echo", {"text": "b"}) == {"text": "b"}


def _children_named_ssh() -> set[int]:
    me = str(os.getpid())
    found = set()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{pid}/comm") as f:
                comm = f.read().strip()
        except OSError:
            continue
        if fields[1] == me and comm == "ssh":
            found.add(int(pid))
    return found


def test_ssh_killed_mid_call_is_unavailable_and_reaped(ssh_env: str) -> None:
    """SIGKILL to ssh during a stream: unavailable.disconnected (exit 6), no zombie left."""
    c = SyncClient(ssh_env, client_name="t", client_version="0")
    try:
        call = c.stream("echo.repeat", {"text": "k", "count": 1000, "interval_ms": 20})
        items = iter(call)
        next(items)
        (pid,) = _children_named_ssh()
        os.kill(pid, signal.SIGKILL)
        started = time.monotonic()
        with pytest.raises(VenomError) as info:
            for _ in items:
                pass
        assert time.monotonic() - started < 5
        assert info.value.code == "unavailable.disconnected"
        assert info.value.exit_code == 6
        assert (info.value.data or {})["status"] == -signal.SIGKILL
    finally:
        c.close()
    assert _children_named_ssh() == set()


def test_cli_with_ssh_killed_exits_6(remote: tuple[Daemon, Sshd]) -> None:
    """The CLI's ssh killed mid-stream: the CLI exits 6 promptly with unavailable.*."""
    daemon, sshd = remote
    env = {
        **os.environ,
        **daemon.env,
        **sshd.ssh_env,
        "VENOM_ECHO_SOCKET": sshd.url(daemon.socket),
        "VENOM_ECHO_TOKEN": daemon.token(),
    }
    proc = subprocess.Popen(
        [*daemon.command, "echo.repeat", "--text", "k", "--count", "1000", "--interval-ms", "20",
         "--json"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        proc.stdout.readline()  # the first item: the link is up
        ssh = [p for p in _all_ssh() if _parent(p) == proc.pid]
        assert len(ssh) == 1
        os.kill(ssh[0], signal.SIGKILL)
        out, err = proc.communicate(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 6, err
    last = json.loads(out.splitlines()[-1])
    assert last["error"]["code"].startswith("unavailable.")


def _all_ssh() -> list[int]:
    out = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/comm") as f:
                    if f.read().strip() == "ssh":
                        out.append(int(pid))
            except OSError:
                pass
    return out


def _parent(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])


def test_mcp_adapter_over_ssh(remote: tuple[Daemon, Sshd]) -> None:
    """``venom-echo mcp --socket ssh://...`` driven by the official SDK client."""
    daemon, sshd = remote
    env = {**daemon.env, **sshd.ssh_env, "VENOM_ECHO_TOKEN": daemon.token()}
    params = StdioServerParameters(
        command=daemon.command[0], args=["mcp", "--socket", sshd.url(daemon.socket)], env=env
    )

    async def run() -> tuple[Any, Any, Any]:
        with (daemon.root / "mcp-ssh.err").open("a") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as streams,
                ClientSession(*streams) as session,
            ):
                with anyio.fail_after(TIMEOUT):
                    await session.initialize()
                    echo = await session.call_tool("echo", {"text": "via ssh"})
                    repeat = await session.call_tool("echo_drepeat", {"text": "r", "count": 2})
                    with anyio.move_on_after(0.3):
                        await session.call_tool(
                            "echo_drepeat", {"text": "r", "count": 1000, "interval_ms": 50}
                        )
                    ping = await session.call_tool("ping", {})
        return echo, repeat, ping

    echo, repeat, ping = anyio.run(run)
    for result in (echo, repeat, ping):
        assert isinstance(result, types.CallToolResult)
        assert not result.is_error, result.content
    assert echo.structured_content is not None
    assert echo.structured_content["result"] == {"text": "via ssh"}
    assert repeat.structured_content is not None
    assert repeat.structured_content["result"] == {"count": 2}


def test_revocation_applies_to_an_open_connection(
    ssh_env: str, remote: tuple[Daemon, Sshd]
) -> None:
    """rfcs/0006 §2.4: a revoked token's live ssh session is closed with ``denied.auth``;
    it keeps nothing, not even ``read`` (issue 27: "read still works" was the finding)."""
    daemon, _ = remote
    name = f"live-{uuid.uuid4().hex[:8]}"
    out = daemon.cli("token.issue", "--name", name, "--grants", '["write"]', "--json")
    token = json.loads(out.stdout)["token"]
    same = {"key": "greeting", "value": '"hello"'}
    with SyncClient(ssh_env, client_name="t", client_version="0", auth={"token": token}) as c:
        assert c.call("config.set", same)["key"] == "greeting"
        with pytest.raises(VenomError) as before:
            c.call("token.list")  # admin stays the owner's
        assert before.value.code == "denied.grant"
        assert daemon.cli("token.revoke", "--name", name).returncode == 0
        with pytest.raises(VenomError) as after:
            c.call("echo", {"text": "read is gone too"})
        assert (after.value.code, after.value.data) == ("denied.auth", {"reason": "revoked"})
        assert "revoked" in after.value.message
        with pytest.raises(VenomError):
            c.call("echo", {"text": "closed"})
    listed = json.loads(daemon.cli("token.list", "--json").stdout)["tokens"]
    (mine,) = [t for t in listed if t["name"] == name]
    assert mine["state"] == "revoked"
    assert "token" not in mine
    assert not any("sha256" in t for t in listed)


def test_no_daemon_behind_the_bridge_is_not_running(remote: tuple[Daemon, Sshd]) -> None:
    """The bridge passes ``unavailable.not_running`` back in the caller's framing: exit 6."""
    daemon, sshd = remote
    token = issue(daemon, ["read"])
    missing = str(daemon.root / "nowhere" / "venom-echo.sock")
    env = {**sshd.ssh_env, "VENOM_ECHO_TOKEN": token}
    out = daemon.cli("--socket", sshd.url(missing), "ping", "--json", env=env)
    assert out.returncode == 6, out.stdout + out.stderr
    error = json.loads(out.stdout)["error"]
    assert (error["code"], error["data"]["socket"]) == ("unavailable.not_running", missing)


def test_doctor_over_ssh_checks_the_daemon_not_local_files(remote: tuple[Daemon, Sshd]) -> None:
    """``doctor --socket ssh://...``: no local path checks; the daemon and schema through ssh."""
    out = cli(remote, "doctor", "--json")
    assert out.returncode == 0, out.stdout + out.stderr
    checks = {c["name"]: c["status"] for c in json.loads(out.stdout)["checks"]}
    assert checks == {"transport": "ok", "daemon": "ok", "schema": "ok"}


def test_cli_ctrl_c_over_ssh_cancels_and_exits_8(remote: tuple[Daemon, Sshd]) -> None:
    """Ctrl-C during a remote stream: the cancel travels over the live link; exit 8."""
    daemon, sshd = remote
    env = {
        **daemon.env,
        **sshd.ssh_env,
        "VENOM_ECHO_SOCKET": sshd.url(daemon.socket),
        "VENOM_ECHO_TOKEN": daemon.token(),
    }
    proc = subprocess.Popen(
        [*daemon.command, "echo.repeat", "--text", "c", "--count", "1000", "--interval-ms", "20",
         "--json"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        proc.stdout.readline()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 8, err
    assert json.loads(out.splitlines()[-1])["error"]["code"] == "cancelled"
