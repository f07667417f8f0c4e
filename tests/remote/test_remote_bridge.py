"""``ssh ... venom-echo bridge`` against a real sshd: exact traces, refusals (rfcs/0006 §2)."""

from __future__ import annotations

import json
import struct
import subprocess
import time
import uuid
from typing import Any

from integration_kit import Daemon
from remote_kit import Sshd

TIMEOUT = 20.0
BINARY_HELLO = (
    b'{"proto":[1],"client":{"name":"venom-echo","version":"0.1.0"},'
    b'"caps":["cancel","venom-echo.bytes"]'
)


def frame(type_: int, stream: int, payload: bytes) -> bytes:
    return struct.pack(">HII", type_, stream, len(payload)) + payload


def through_ssh(
    sshd: Sshd, daemon: Daemon, data: bytes, *extra: str
) -> subprocess.CompletedProcess[bytes]:
    """Pipe ``data`` into ``ssh host venom-echo bridge --socket S`` and collect everything."""
    return subprocess.run(
        sshd.ssh_command(*extra, "venomhost", "venom-echo", "bridge", "--socket", daemon.socket),
        input=data,
        capture_output=True,
        timeout=TIMEOUT,
        check=False,
    )


def direct(daemon: Daemon, data: bytes) -> bytes:
    """The same bytes on the local socket, half-closed after sending, read to the end."""
    with daemon.connect() as c:
        c.sock.sendall(data)
        c.sock.shutdown(1)
        chunks = []
        while chunk := c.sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def overview(token: str) -> bytes:
    """RFC-0002 §1's session, with the token the bridge requires in hello.auth."""
    hello = {
        "id": 1,
        "verb": "hello",
        "params": {
            "proto": [1],
            "client": {"name": "socat", "version": "0"},
            "auth": {"token": token},
        },
    }
    return b"\n".join(
        [
            json.dumps(hello, separators=(",", ":")).encode(),
            b'{"id":2,"verb":"echo","params":{"text":"hi"}}',
            b'{"id":3,"verb":"echo","params":{}}',
            b"",
        ]
    )


def test_overview_session_is_byte_exact_through_the_bridge(remote: tuple[Daemon, Sshd]) -> None:
    """RFC-0002 §1 through ssh: exactly the bytes the local socket gives, line for line."""
    daemon, sshd = remote
    script = overview(daemon.token())
    out = through_ssh(sshd, daemon, script)
    assert out.returncode == 0, out.stderr
    assert out.stdout == direct(daemon, script)
    lines = out.stdout.splitlines()
    assert len(lines) == 3
    ok = json.loads(lines[0])["ok"]
    assert (ok["proto"], ok["caps"], ok["max_frame"]) == (1, ["cancel"], 1048576)
    assert lines[1] == b'{"id":2,"ok":{"text":"hi"}}'
    assert lines[2] == (
        b'{"id":3,"error":{"code":"invalid_params.missing",'
        b'"message":"missing required param \'text\'","data":{"param":"text"}}}'
    )


def test_binary_trace_is_byte_exact_through_the_bridge(remote: tuple[Daemon, Sshd]) -> None:
    """RFC-0002 §5.3 through ssh: HELLO_OK, ECHO_BYTES and CONTROL ping, byte for byte."""
    daemon, sshd = remote
    hello = BINARY_HELLO + b',"auth":{"token":"' + daemon.token().encode() + b'"}}'
    echo = bytes.fromhex("01 00 00 00 00 01 00 00 00 03 68 69 0a")
    control = bytes.fromhex("00 10 00 00 00 00 00 00 00 22") + b'{"id":3,"verb":"ping","params":{}}'
    script = b"\xf5" + frame(1, 0, hello) + echo + control
    out = through_ssh(sshd, daemon, script)
    assert out.returncode == 0, out.stderr
    assert out.stdout == direct(daemon, script)
    head = out.stdout[:10]
    (length,) = struct.unpack(">I", head[6:])
    assert head[:6] == bytes.fromhex("00 02 00 00 00 00")
    assert json.loads(out.stdout[10 : 10 + length])["caps"] == ["cancel", "venom-echo.bytes"]
    rest = out.stdout[10 + length :]
    assert rest == echo + bytes.fromhex("00 10 00 00 00 00 00 00 00 10") + b'{"id":3,"ok":{}}'


def issue(daemon: Daemon, grants: list[str], *extra: str) -> dict[str, Any]:
    name = f"t-{uuid.uuid4().hex[:8]}"
    out = daemon.cli(
        "token.issue", "--name", name, "--grants", json.dumps(grants), *extra, "--json"
    )
    assert out.returncode == 0, out.stdout + out.stderr
    issued: dict[str, Any] = json.loads(out.stdout)
    return issued


def hello_line(token: str | None) -> bytes:
    params: dict[str, Any] = {"proto": [1], "client": {"name": "t", "version": "0"}}
    if token is not None:
        params["auth"] = {"token": token}
    return json.dumps({"id": 7, "verb": "hello", "params": params}).encode() + b"\n"


def refusal(out: subprocess.CompletedProcess[bytes]) -> Any:
    assert out.returncode == 4, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 1
    reply = json.loads(lines[0])
    assert reply["id"] == 7
    assert reply["error"]["code"] == "denied.auth"
    return reply["error"]["data"]["reason"]


def test_refusals_in_ndjson(remote: tuple[Daemon, Sshd]) -> None:
    """No token, a wrong one, a revoked and an expired one: denied.auth, exit 4 (§2.1)."""
    daemon, sshd = remote
    revoked = issue(daemon, ["write"])
    assert daemon.cli("token.revoke", "--name", revoked["name"]).returncode == 0
    expired = issue(daemon, ["write"], "--expires-in", "1")
    assert refusal(through_ssh(sshd, daemon, hello_line(None))) == "no_token"
    assert refusal(through_ssh(sshd, daemon, hello_line("0" * 64))) == "unknown_token"
    wrong = revoked["token"][:-1] + ("0" if revoked["token"][-1] != "0" else "1")
    assert refusal(through_ssh(sshd, daemon, hello_line(wrong))) == "unknown_token"
    assert refusal(through_ssh(sshd, daemon, hello_line(revoked["token"]))) == "revoked"
    time.sleep(1.1)  # the expiry is at most one second after issue
    assert refusal(through_ssh(sshd, daemon, hello_line(expired["token"]))) == "expired"
    ping = b'{"id":7,"verb":"ping"}\n'
    assert refusal(through_ssh(sshd, daemon, ping)) == "no_hello"


def test_binary_refusal_is_an_error_frame(remote: tuple[Daemon, Sshd]) -> None:
    """A binary client is refused with an ERROR frame on stream 0, not an NDJSON line."""
    daemon, sshd = remote
    out = through_ssh(sshd, daemon, b"\xf5" + frame(1, 0, BINARY_HELLO + b"}"))
    assert out.returncode == 4
    type_, stream, length = struct.unpack(">HII", out.stdout[:10])
    assert (type_, stream, len(out.stdout)) == (3, 0, 10 + length)
    error = json.loads(out.stdout[10:])
    assert (error["code"], error["data"]["reason"]) == ("denied.auth", "no_token")


def test_issued_token_opens_the_bridge(remote: tuple[Daemon, Sshd]) -> None:
    daemon, sshd = remote
    token = issue(daemon, ["read"])["token"]
    out = through_ssh(sshd, daemon, hello_line(token) + b'{"id":8,"verb":"ping"}\n')
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[1] == b'{"id":8,"ok":{}}'


def test_forced_command_key_runs_only_the_bridge(
    remote: tuple[Daemon, Sshd], tmp_path: Any
) -> None:
    """``command="venom-echo bridge ..."`` in authorized_keys: the key can do nothing else."""
    daemon, sshd = remote
    marker = tmp_path / "ran"
    key = ["-i", sshd.forced_key()]
    out = subprocess.run(
        sshd.ssh_command(*key, "-o", "IdentitiesOnly=yes", "venomhost", "touch", str(marker)),
        input=b"",
        capture_output=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert out.returncode == 0
    assert out.stdout == b""  # the bridge saw EOF before any hello
    assert not marker.exists()
    shell = subprocess.run(
        sshd.ssh_command(*key, "venomhost", "sh", "-c", "'echo pwned'"),
        input=b"GET\n",
        capture_output=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert b"pwned" not in shell.stdout
    assert json.loads(shell.stdout)["error"]["code"] == "protocol.bad_preamble"
    script = overview(daemon.token())
    forced = subprocess.run(
        sshd.ssh_command(*key, "venomhost"),
        input=script,
        capture_output=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert forced.returncode == 0, forced.stderr
    assert forced.stdout == direct(daemon, script)
