"""rfcs/0003 §1, §4: ``events`` called with its defaults ends, on every surface.

``follow`` defaults to false (as journalctl, docker logs and kubectl logs do): a call that
names no parameter replays nothing (no cursor) and ends with ``{"last": 0}``, so an agent's
``tools/call events {}`` returns instead of waiting until it cancels. ``--follow=true`` tails.
"""

from __future__ import annotations

import json

import pytest
from integration_kit import Daemon, request
from integration_mcp import Mcp


@pytest.mark.covers("socket", "events", "echo")
def test_socket_events_with_defaults_ends(daemon: Daemon) -> None:
    with daemon.connect() as c:
        c.hello()
        assert c.call(1, "echo", {"text": "before"})["ok"] == {"text": "before"}
        c.send_lines(request(2, "events"))
        assert c.json_lines(1) == [{"id": 2, "ok": {"last": 0}}]


@pytest.mark.covers("cli", "events", "echo")
def test_cli_events_with_defaults_ends(daemon: Daemon) -> None:
    assert daemon.cli("echo", "--text", "cli-default").returncode == 0
    done = daemon.cli("events", "--json", "--cursor", "0", "--types", '["echo.echoed"]')
    assert done.returncode == 0, done.stderr
    texts = [json.loads(json.loads(line)["data"])["text"] for line in done.stdout.splitlines()]
    assert "cli-default" in texts


@pytest.mark.covers("mcp", "events")
def test_mcp_events_with_defaults_returns(mcp_session: Mcp) -> None:
    assert mcp_session.ok("events", {}) == {"items": [], "result": {"last": 0}}
