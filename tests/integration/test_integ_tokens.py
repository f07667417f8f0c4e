"""Issued tokens over every surface (rfcs/0005 §7) and ``bridge`` run locally (rfcs/0006 §2)."""

from __future__ import annotations

import json
import subprocess
import uuid
from typing import Any

import pytest
from integration_kit import Daemon, hello_params, request
from integration_mcp import Mcp

TIMEOUT = 20.0


def _name() -> str:
    return f"i-{uuid.uuid4().hex[:8]}"


@pytest.mark.covers("cli", "token.issue", "token.list", "token.revoke")
def test_cli_issue_list_revoke(daemon: Daemon) -> None:
    name = _name()
    out = daemon.cli("token.issue", "--name", name, "--grants", '["write"]', "--json")
    assert out.returncode == 0, out.stderr
    issued = json.loads(out.stdout)
    assert issued["token"].startswith("vt1_")
    assert issued["grants"] == ["read", "write"]
    listed = daemon.cli("token.list", "--json")
    assert issued["token"] not in listed.stdout
    (mine,) = [t for t in json.loads(listed.stdout)["tokens"] if t["name"] == name]
    assert mine["state"] == "active"
    again = daemon.cli("token.issue", "--name", name, "--grants", '["read"]', "--json")
    assert again.returncode == 5
    assert json.loads(again.stdout)["error"]["code"] == "conflict.token_exists"
    admin = daemon.cli("token.issue", "--name", _name(), "--grants", '["admin"]', "--json")
    assert admin.returncode == 2
    assert json.loads(admin.stdout)["error"]["code"] == "invalid_params.grant"  # rfcs/0005 §7.1
    assert daemon.cli("token.revoke", "--name", name, "--json").returncode == 0
    gone = daemon.cli("token.revoke", "--name", name, "--json")
    assert gone.returncode == 3
    assert json.loads(gone.stdout)["error"]["code"] == "not_found.token"


@pytest.mark.covers("cli", "token.list")
def test_an_issued_token_is_not_the_owner(daemon: Daemon) -> None:
    """A token in <TOOL>_TOKEN holds its grants only: admin stays the owner's."""
    out = daemon.cli("token.issue", "--name", _name(), "--grants", '["write"]', "--json")
    token = json.loads(out.stdout)["token"]
    refused = daemon.cli("token.list", "--json", env={"VENOM_ECHO_TOKEN": token})
    assert refused.returncode == 4
    assert json.loads(refused.stdout)["error"]["code"] == "denied.grant"


@pytest.mark.covers("socket", "hello", "token.issue", "token.list", "token.revoke", "config.set")
def test_socket_token_grants_and_revocation(daemon: Daemon) -> None:
    with daemon.connect() as owner:
        owner.hello(token=daemon.token())
        issued = owner.call(2, "token.issue", {"name": _name(), "grants": ["write"]})["ok"]
        assert any(t["id"] == issued["id"] for t in owner.call(3, "token.list")["ok"]["tokens"])
        with daemon.connect() as agent:
            agent.hello(token=issued["token"])
            same = {"key": "greeting", "value": '"hello"'}
            assert "ok" in agent.call(2, "config.set", same)
            owner.call(4, "token.revoke", {"name": issued["name"]})
            # the session ends at once, in its own framing (rfcs/0006 §2.4)
            (closing,) = agent.json_lines(1)
            assert closing["id"] is None
            error = closing["error"]
            assert (error["code"], error["data"]) == ("denied.auth", {"reason": "revoked"})
            assert agent.json_lines(1) == []  # closed


@pytest.mark.covers("mcp", "token.issue", "token.list", "token.revoke")
def test_mcp_token_verbs(mcp_session: Mcp) -> None:
    name = _name()
    issued = mcp_session.ok("token.issue", {"name": name, "grants": ["read"]})["result"]
    assert issued["name"] == name
    tokens = mcp_session.ok("token.list", {})["result"]["tokens"]
    assert name in [t["name"] for t in tokens]
    assert mcp_session.ok("token.revoke", {"name": name})["result"]["name"] == name


@pytest.mark.covers("cli", "bridge")
def test_bridge_locally_forwards_after_a_valid_hello(daemon: Daemon) -> None:
    hello: Any = {"id": 1, "verb": "hello", "params": hello_params(token=daemon.token())}
    script = json.dumps(hello).encode() + b"\n" + request(2, "echo", {"text": "b"}) + b"\n"
    out = subprocess.run(
        [*daemon.command, "bridge"],
        input=script,
        capture_output=True,
        env=daemon.env,
        timeout=TIMEOUT,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert json.loads(lines[0])["ok"]["proto"] == 1
    assert lines[1] == b'{"id":2,"ok":{"text":"b"}}'
