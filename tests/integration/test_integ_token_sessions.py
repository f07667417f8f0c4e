"""Issued tokens across instances and sessions (issue 27; rfcs/0005 §7.3, rfcs/0006 §2.4).

Several daemons of one tool (one per socket) share one token store. A revocation or an issue
by any of them holds for all of them before their next admission; no write resurrects a
revoked token or drops another's; a connection admitted with a token that is then revoked or
expires is closed with ``denied.auth`` in its own framing, its open ``events`` stream included,
locally and through ``bridge``. Every wait is bounded by TIMEOUT; nothing is timed.
"""

from __future__ import annotations

import json
import subprocess
import threading
import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import pytest
from integration_kit import (
    TIMEOUT,
    TOOL,
    Conn,
    Daemon,
    frame,
    hello_params,
    request,
    venom_echo_command,
)

from venom_gen.testing import DaemonProcess, PrivateDirs
from venom_gen.token_store import store_path


def _name() -> str:
    return f"s-{uuid.uuid4().hex[:8]}"


class Instance(DaemonProcess):
    """One of several ``venom-echo serve --socket`` sharing the same private directories."""

    def __init__(self, dirs: PrivateDirs, index: int) -> None:
        sock = str(dirs.runtime / f"instance-{index}.sock")
        super().__init__(
            "venom_echo.product:PRODUCT",
            command=[venom_echo_command()],
            dirs=dirs,
            socket=sock,
            args=["--socket", sock],
            timeout=TIMEOUT,
        )

    def connect(self) -> Conn:
        import socket

        s = socket.socket(socket.AF_UNIX)
        s.settimeout(TIMEOUT)
        s.connect(self.socket)
        return Conn(s)

    def owner_call(self, verb: str, params: dict[str, Any]) -> Any:
        with self.connect() as conn:
            conn.hello(token=self.token())
            return conn.call(1, verb, params)


def _instances(n: int) -> Iterator[list[Instance]]:
    dirs = PrivateDirs()
    try:
        with ExitStack() as stack:
            yield [stack.enter_context(Instance(dirs, i)) for i in range(n)]
    finally:
        dirs.remove()


@pytest.fixture
def two() -> Iterator[list[Instance]]:
    yield from _instances(2)


@pytest.fixture
def five() -> Iterator[list[Instance]]:
    yield from _instances(5)


def _stored(instance: Instance) -> dict[str, Any]:
    path = store_path(TOOL, instance.env)
    with open(path, "rb") as f:
        return {t["name"]: t for t in json.loads(f.read())["tokens"]}


def _answer(conn: Conn, id_: int, verb: str, params: dict[str, Any]) -> Any:
    """Send a call and return its reply, passing over the stream's lines."""
    conn.send_lines(request(id_, verb, params))
    while True:
        line = conn.poll_line(TIMEOUT)
        assert line is not None, "no reply"
        if line.get("id") == id_ and "item" not in line:
            return line


def _closed_with(conn: Conn) -> Any:
    """The fatal error line a closed session gets, after any items; then EOF."""
    while True:
        line = conn.poll_line(TIMEOUT)
        assert line is not None, "the session was not closed"
        if line.get("id") is not None:
            continue  # a stream's item, or a reply sent before the close
        conn.sock.settimeout(TIMEOUT)
        assert conn.sock.recv(1) == b""  # and the daemon closed it
        return line["error"]


@pytest.mark.covers("socket", "token.issue", "token.revoke")
def test_an_issue_on_one_instance_admits_on_another_at_once(two: list[Instance]) -> None:
    a, b = two
    issued = a.owner_call("token.issue", {"name": _name(), "grants": ["write"]})["ok"]
    with b.connect() as agent:
        agent.hello(token=issued["token"])
        assert "ok" in agent.call(1, "config.set", {"key": "greeting", "value": '"hi"'})


@pytest.mark.covers("socket", "token.revoke")
def test_a_revocation_on_one_instance_ends_the_session_on_another(two: list[Instance]) -> None:
    """Instance a loaded the token active; b revokes it; a's open session is closed with
    ``denied.auth`` (reason ``revoked``), its events stream included, at a's watcher's next
    look or its next admission, whichever comes first; a's next write keeps it revoked."""
    a, b = two
    name = _name()
    issued = a.owner_call("token.issue", {"name": name, "grants": ["write"]})["ok"]
    with a.connect() as agent:
        agent.hello(token=issued["token"])
        agent.send_lines(request(1, "events", {"types": ["*"]}))
        assert "ok" in _answer(agent, 2, "config.get", {})
        b.owner_call("token.revoke", {"name": name})
        error = _closed_with(agent)
    assert (error["code"], error["data"]) == ("denied.auth", {"reason": "revoked"})
    other = _name()
    b.owner_call("token.issue", {"name": other, "grants": ["read"]})
    a.owner_call("token.issue", {"name": _name(), "grants": ["read"]})  # a writes after b
    stored = _stored(a)
    assert stored[name]["revoked"] is not None  # not resurrected
    assert other in stored  # not dropped


@pytest.mark.covers("socket", "token.revoke", "events")
def test_a_revocation_closes_an_open_events_stream_at_once(daemon: Daemon) -> None:
    name = _name()
    with daemon.connect() as owner:
        owner.hello(token=daemon.token())
        issued = owner.call(1, "token.issue", {"name": name, "grants": ["read"]})["ok"]
        with daemon.connect() as agent:
            agent.hello(token=issued["token"])
            agent.send_lines(request(1, "events", {"types": ["*"]}))
            assert "ok" in _answer(agent, 2, "config.get", {})  # the stream is open
            owner.call(2, "token.revoke", {"name": name})
            error = _closed_with(agent)
    assert (error["code"], error["data"]) == ("denied.auth", {"reason": "revoked"})


@pytest.mark.covers("socket", "token.issue")
def test_expiry_closes_an_open_session(daemon: Daemon) -> None:
    issued = None
    with daemon.connect() as owner:
        owner.hello(token=daemon.token())
        params = {"name": _name(), "grants": ["read"], "expires_in": 1}
        issued = owner.call(1, "token.issue", params)["ok"]
    with daemon.connect() as agent:
        agent.hello(token=issued["token"])
        agent.send_lines(request(1, "events", {"types": ["*"]}))
        error = _closed_with(agent)  # at the expiry, without any call
    assert (error["code"], error["data"]) == ("denied.auth", {"reason": "expired"})


@pytest.mark.covers("socket", "token.revoke")
def test_a_call_presenting_a_revoked_token_closes_the_connection(daemon: Daemon) -> None:
    """Even a read-only call: over a bridge an unauthenticated caller gets nothing, and the
    daemon cannot tell a bridged connection from a local one (rfcs/0006 §2.4)."""
    name = _name()
    with daemon.connect() as owner:
        owner.hello(token=daemon.token())
        issued = owner.call(1, "token.issue", {"name": name, "grants": ["read"]})["ok"]
        owner.call(2, "token.revoke", {"name": name})
    with daemon.connect() as agent:
        agent.hello(token=issued["token"])
        agent.send_lines(request(1, "config.get", {}))
        error = _closed_with(agent)
    assert (error["code"], error["data"]) == ("denied.auth", {"reason": "revoked"})


@pytest.mark.covers("cli", "bridge", "token.revoke")
def test_a_revocation_ends_a_session_through_the_bridge(daemon: Daemon) -> None:
    name = _name()
    with daemon.connect() as owner:
        owner.hello(token=daemon.token())
        issued = owner.call(1, "token.issue", {"name": name, "grants": ["read"]})["ok"]
        bridge = subprocess.Popen(
            [*daemon.command, "bridge"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=daemon.env,
        )
        try:
            assert bridge.stdin is not None
            assert bridge.stdout is not None
            hello = {"id": 0, "verb": "hello", "params": hello_params(token=issued["token"])}
            bridge.stdin.write(json.dumps(hello).encode() + b"\n")
            bridge.stdin.write(request(1, "events", {"types": ["*"]}) + b"\n")
            bridge.stdin.write(request(2, "config.get", {}) + b"\n")
            bridge.stdin.flush()
            assert json.loads(bridge.stdout.readline())["id"] == 0
            while json.loads(bridge.stdout.readline()).get("id") != 2:
                pass  # the stream's first lines; config.get answered: admitted, streaming
            owner.call(2, "token.revoke", {"name": name})
            rest = bridge.communicate(timeout=TIMEOUT)[0].splitlines()
        finally:
            bridge.kill()
            bridge.wait()
    last = json.loads(rest[-1])
    assert last["id"] is None
    assert (last["error"]["code"], last["error"]["data"]) == ("denied.auth", {"reason": "revoked"})
    assert bridge.returncode == 0  # the daemon closed; the bridge followed


@pytest.mark.covers("socket", "token.issue", "token.revoke", "token.list")
def test_issue_and_revoke_storms_across_five_instances_lose_nothing(five: list[Instance]) -> None:
    """Each instance issues tokens while the next revokes the previous one's, all at once;
    the store ends with every token, exactly the revoked ones revoked, and every instance
    lists the same."""
    per = 6
    names = {i: [f"p{i}-{j}-{uuid.uuid4().hex[:4]}" for j in range(per)] for i in range(5)}
    errors: list[BaseException] = []

    def storm(i: int) -> None:
        try:
            me, neighbour = five[i], five[(i + 1) % 5]
            with me.connect() as conn:
                conn.hello(token=me.token())
                for j, name in enumerate(names[i]):
                    reply = conn.call(j, "token.issue", {"name": name, "grants": ["read"]})
                    assert "ok" in reply, reply
            with neighbour.connect() as conn:  # revoked through another instance
                conn.hello(token=neighbour.token())
                for j, name in enumerate(names[i][::2]):
                    assert "ok" in conn.call(j, "token.revoke", {"name": name})
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=storm, args=(i,)) for i in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(TIMEOUT * 6)
    assert not errors, errors
    stored = _stored(five[0])
    for i in range(5):
        for j, name in enumerate(names[i]):
            assert (stored[name]["revoked"] is not None) == (j % 2 == 0), name
    views = []
    for instance in five:
        tokens = instance.owner_call("token.list", {})["ok"]["tokens"]
        views.append(sorted((t["name"], t["state"]) for t in tokens))
    assert all(view == views[0] for view in views)
    assert len(views[0]) == 5 * per


HELLO, HELLO_OK, ERROR, CONTROL = 0x0001, 0x0002, 0x0003, 0x0010


@pytest.mark.covers("socket", "token.revoke")
def test_a_binary_session_is_closed_with_an_error_frame(daemon: Daemon) -> None:
    """The binary framing's own fatal error: an ``ERROR`` frame on stream 0, then EOF."""
    name = _name()
    with daemon.connect() as owner:
        owner.hello(token=daemon.token())
        issued = owner.call(1, "token.issue", {"name": name, "grants": ["read"]})["ok"]
        with daemon.connect() as agent:
            params = json.dumps(hello_params(token=issued["token"])).encode()
            agent.sock.sendall(b"\xf5" + frame(HELLO, 0, params))
            assert agent.read_frame()[0] == HELLO_OK
            agent.sock.sendall(frame(CONTROL, 0, request(1, "config.get", {})))
            assert agent.read_frame()[0] == CONTROL  # admitted
            owner.call(2, "token.revoke", {"name": name})
            type_, stream, body = agent.read_frame()
            agent.sock.settimeout(TIMEOUT)
            assert agent.sock.recv(1) == b""
    assert (type_, stream) == (ERROR, 0)
    error = json.loads(body)
    assert (error["code"], error["data"]) == ("denied.auth", {"reason": "revoked"})
