"""RFC-0002 MUSTs that broken daemons once passed: each check here killed such a mutant."""

from __future__ import annotations

import json
import os
import signal
import struct

import pytest

from venom_mcp.conformance._kit import Conn, Daemon, not_applicable, request_line
from venom_mcp.conformance._model import TargetModel, finite


def read_frames_until_closed(c: Conn) -> list[tuple[int, int, bytes]]:
    data = c.until_closed()
    frames: list[tuple[int, int, bytes]] = []
    while len(data) >= 10:
        type_, stream, length = struct.unpack(">HII", data[:10])
        frames.append((type_, stream, data[10 : 10 + length]))
        data = data[10 + length :]
    return frames


@pytest.mark.rfc("RFC-0002 §4.4")
def test_finite_stream_has_one_final_response_then_nothing(
    daemon: Daemon, model: TargetModel
) -> None:
    """RFC-0002 §4.4: after a stream's final response, no line for its id (sentinel ping)."""
    verb, params = finite(model)
    with daemon.connect() as c:
        c.send_lines(daemon.owner_hello(caps=["cancel"]), request_line(1, verb, params))
        c.until_id(0)
        got = c.until_id(1)
        c.send_lines(b'{"id":2,"verb":"ping"}')
        after = c.until_id(2)
    assert "ok" in got[-1], got[-1]
    assert all("item" in m for m in got[:-1])
    assert after == [{"id": 2, "ok": {}}]


def _big_result(daemon: Daemon, model: TargetModel) -> str:
    """A verb the suite may call freely whose reply passes 4096 bytes (the lowest max_frame),
    found by calling each; not applicable when the model has none."""
    safe = [
        v["name"] for v in model.daemon_verbs()
        if v["grant"] in ("none", "read") and not v.get("streams")
        and not any(p.get("required") for p in v["params"])
    ]  # fmt: skip
    with daemon.connect() as c:
        c.send_lines(
            daemon.owner_hello(), *(request_line(f"v{i}", n, {}) for i, n in enumerate(safe))
        )
        replies = {json.loads(line)["id"]: len(line) for line in c.lines(len(safe) + 1)}
    big: list[str] = [n for i, n in enumerate(safe) if replies.get(f"v{i}", 0) + 1 > 4096]
    if not big:
        not_applicable("the model declares no read-only verb whose result passes 4096 bytes")
    return big[0]


@pytest.mark.rfc("RFC-0002 §6.2")
def test_negotiated_max_frame_applies_to_results(daemon: Daemon, model: TargetModel) -> None:
    """RFC-0002 §6.2: no reply line passes the negotiated max_frame; a big result is an error."""
    verb = _big_result(daemon, model)
    with daemon.connect() as c:
        c.send_lines(daemon.owner_hello(max_frame=4096), request_line(1, verb, {}))
        lines = c.lines(2)
    assert len(lines) == 2
    assert all(len(line) + 1 <= 4096 for line in lines)
    reply = json.loads(lines[1])
    assert reply["id"] == 1
    assert "error" in reply


@pytest.mark.rfc("RFC-0002 §6.2")
def test_negotiated_max_frame_applies_to_binary_replies(daemon: Daemon, model: TargetModel) -> None:
    """RFC-0002 §5.1/§6.2: on a binary connection too, no frame the server sends passes the
    max_frame HELLO lowered; a result that would is answered with an error."""
    verb = _big_result(daemon, model)
    hello = json.loads(daemon.owner_hello(max_frame=4096))["params"]
    payload = json.dumps(hello).encode()
    with daemon.connect() as c:
        c.sendall(b"\xf5" + struct.pack(">HII", 1, 0, len(payload)) + payload)
        head = c.read(10)
        assert struct.unpack(">HII", head)[:2] == (2, 0)
        c.read(struct.unpack(">HII", head)[2])
        request = request_line(1, verb, {})
        c.sendall(struct.pack(">HII", 0x10, 0, len(request)) + request)
        head = c.read(10)
        type_, stream, length = struct.unpack(">HII", head)
        body = c.read(length)
    assert (type_, stream) == (0x10, 0)
    assert length <= 4096
    reply = json.loads(body)
    assert reply["id"] == 1
    assert "error" in reply


@pytest.mark.rfc("RFC-0002 §5.2")
def test_sigterm_sends_close_on_stream_0(fresh: Daemon) -> None:
    """RFC-0002 §2.5 step 7 / §5.2: a binary connection gets CLOSE on stream 0 at shutdown."""
    fresh.start()
    with fresh.connect() as c:
        payload = b'{"proto":[1],"caps":["cancel"]}'
        c.sendall(b"\xf5" + struct.pack(">HII", 1, 0, len(payload)) + payload)
        head = c.read(10)
        assert struct.unpack(">HII", head)[:2] == (2, 0)
        c.read(struct.unpack(">HII", head)[2])
        assert fresh.proc is not None
        fresh.proc.send_signal(signal.SIGTERM)
        frames = read_frames_until_closed(c)
    assert (6, 0) in [(t, s) for t, s, _ in frames]


@pytest.mark.rfc("RFC-0002 §2.3")
def test_serve_honours_the_socket_env(fresh: Daemon) -> None:
    """RFC-0002 §2.3: `serve` listens where <TOOL>_SOCKET says, not at the default."""
    alt = str(fresh.root / "env.sock")
    fresh.proc = fresh.start(wait=False, env={fresh.target.socket_env: alt})
    fresh.wait_ready(alt)
    with fresh.connect(alt) as c:
        c.send_lines(b'{"id":1,"verb":"ping"}')
        assert c.json_lines(1) == [{"id": 1, "ok": {}}]
    assert not os.path.exists(fresh.socket)


@pytest.mark.rfc("RFC-0002 §2.4")
@pytest.mark.parametrize("mode", [0o755, 0o750])
def test_cli_refuses_an_open_runtime_dir(fresh: Daemon, mode: int) -> None:
    """RFC-0002 §2.4: the CLI checks the runtime dir itself, even with a daemon listening."""
    fresh.start()
    venom = os.path.dirname(fresh.socket)
    os.chmod(venom, mode)
    try:
        r = fresh.cli("--json", "ping")
    finally:
        os.chmod(venom, 0o700)
    assert r.returncode == 4, (r.stdout, r.stderr)
    assert json.loads(r.stdout)["error"]["code"] == "denied.insecure_path"
