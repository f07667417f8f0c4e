"""``shutdown``: the owner stops the daemon cleanly over the CLI, the socket and MCP (rfcs/0001
§8): the call is answered first, then the daemon runs the SIGTERM path and exits 0."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from integration_kit import TIMEOUT, Daemon, json_line
from integration_mcp import Mcp


def _gone(daemon: Daemon) -> int:
    """The daemon's exit status once it has exited by itself (within TIMEOUT)."""
    assert daemon.proc is not None
    status = daemon.proc.wait(TIMEOUT)
    daemon.proc = None
    return status


def _cleaned_up(daemon: Daemon) -> None:
    assert not os.path.exists(daemon.socket)
    assert not daemon.token_file.exists()
    log = daemon.log
    assert "shutdown requested by pid" in log, log
    assert log.rstrip().endswith("stopped"), log


@pytest.mark.covers("cli", "shutdown")
def test_cli_shutdown_answers_then_the_daemon_exits_cleanly(own_daemon: Daemon) -> None:
    assert own_daemon.proc is not None
    pid = own_daemon.proc.pid
    result = own_daemon.cli("shutdown", "--json")
    assert result.returncode == 0, result.stderr
    assert json_line(result.stdout) == {"pid": pid}
    assert _gone(own_daemon) == 0
    _cleaned_up(own_daemon)
    # Nothing is left to call; the next call says so.
    again = own_daemon.cli("echo", "--text", "x")
    assert again.returncode == 6
    assert "no daemon at" in again.stderr


@pytest.mark.covers("socket", "shutdown")
def test_the_reply_reaches_the_caller_before_the_connection_closes(own_daemon: Daemon) -> None:
    assert own_daemon.proc is not None
    pid = own_daemon.proc.pid
    with own_daemon.connect() as conn:
        conn.hello(token=own_daemon.token())
        assert conn.call(1, "shutdown") == {"id": 1, "ok": {"pid": pid}}
        deadline = time.monotonic() + TIMEOUT
        while conn.sock.recv(4096):  # then the daemon closes the connection
            assert time.monotonic() < deadline
    assert _gone(own_daemon) == 0
    _cleaned_up(own_daemon)


@pytest.mark.covers("socket", "shutdown")
def test_without_the_owner_token_shutdown_is_denied_and_nothing_stops(
    own_daemon: Daemon,
) -> None:
    with own_daemon.connect() as conn:
        conn.hello()
        reply = conn.call(1, "shutdown")
        assert reply["error"]["code"].startswith("denied."), reply
    assert own_daemon.cli("echo", "--text", "still here").returncode == 0
    assert own_daemon.proc is not None
    assert own_daemon.proc.poll() is None


@pytest.mark.covers("mcp", "shutdown")
def test_mcp_shutdown_is_hidden_below_admin_and_stops_the_daemon(own_daemon: Daemon) -> None:
    assert own_daemon.proc is not None
    pid = own_daemon.proc.pid
    hidden = Mcp(own_daemon, "--max-grant", "read")
    try:
        assert "shutdown" not in {t.name for t in hidden.list_tools()}
    finally:
        hidden.close()
    admin = Mcp(own_daemon)
    try:
        assert admin.ok("shutdown", {}) == {"result": {"pid": pid}}
    finally:
        admin.close()
    assert _gone(own_daemon) == 0
    _cleaned_up(own_daemon)


def test_the_docs_stop_the_daemon_with_shutdown_not_kill() -> None:
    root = Path(__file__).parents[2]
    pages = [root / "README.md", *sorted((root / "docs").glob("*.md"))]
    offenders = [str(p) for p in pages if 'kill "$(cat' in p.read_text(encoding="utf-8")]
    assert offenders == []
