"""MCP host configuration (rfcs/0001 §13): the entry ``venom-echo mcp config`` prints
starts the adapter the way hosts do, with their minimal environment, and reaches the daemon.

Two independent hosts start it: the MCP Inspector (``--config FILE --server NAME``) and the
official SDK's stdio client, whose default environment is exactly what hosts pass.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import pytest
from integration_kit import Daemon, json_line
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import get_default_environment, stdio_client
from test_integ_inspector import RUN_TIMEOUT, _run_bounded, inspector, printed_json

__all__ = ("inspector",)  # the fixture, shared with the Inspector's own tests

#: What the official SDKs' stdio clients pass a server (mcp.client.stdio).
HOST_VARIABLES = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER")


def host_environment() -> dict[str, str]:
    env = {name: os.environ[name] for name in HOST_VARIABLES if name in os.environ}
    env.setdefault("PATH", "/usr/bin:/bin")
    return env


def config_entry(daemon: Daemon, *args: str) -> dict[str, Any]:
    done = daemon.cli("mcp", "config", *args)
    assert done.returncode == 0, done.stderr
    document: dict[str, Any] = json.loads(done.stdout)
    return document


@pytest.mark.covers("cli", "mcp.config")
def test_the_printed_entry_pins_this_shells_socket(daemon: Daemon) -> None:
    document = config_entry(daemon, "--max-grant", "read")
    entry = document["mcpServers"]["venom-echo"]
    assert entry == {
        "command": daemon.command[0],
        "args": ["mcp", "--max-grant", "read"],
        "env": {"VENOM_ECHO_SOCKET": daemon.socket},
    }
    vscode = config_entry(daemon, "--format", "vscode", "--name", "echo")["servers"]["echo"]
    assert vscode == {"type": "stdio", **{k: v for k, v in entry.items() if k != "args"},
                      "args": ["mcp"]}  # fmt: skip
    wrapped = json_line(daemon.cli("mcp", "config", "--json").stdout)
    assert json.loads(wrapped["config"])["mcpServers"]["venom-echo"]["args"] == ["mcp"]


@pytest.mark.covers("cli", "mcp.config")
def test_write_merges_into_an_existing_host_file(daemon: Daemon, tmp_path: Path) -> None:
    config = tmp_path / "claude_desktop_config.json"
    config.write_text('{"mcpServers": {"other": {"command": "/bin/true"}}, "theme": "dark"}')
    done = daemon.cli("mcp", "config", "--write", str(config))
    assert done.returncode == 0, done.stderr
    merged = json.loads(config.read_text())
    assert merged["theme"] == "dark"
    assert set(merged["mcpServers"]) == {"other", "venom-echo"}
    assert merged["mcpServers"]["venom-echo"] == json.loads(done.stdout)["mcpServers"]["venom-echo"]
    broken = tmp_path / "broken.json"
    broken.write_text("{oops")
    refused = daemon.cli("mcp", "config", "--write", str(broken))
    assert refused.returncode == 2
    assert "not JSON" in refused.stderr
    assert broken.read_text() == "{oops"


def test_the_inspector_starts_the_written_entry_with_a_hosts_environment(
    inspector: Path, daemon: Daemon, tmp_path: Path
) -> None:
    config = tmp_path / "mcp.json"
    assert daemon.cli("mcp", "config", "--write", str(config), "--name", "echo").returncode == 0
    base = [str(inspector), "--cli", "--config", str(config), "--server", "echo"]
    env = host_environment()
    listed = printed_json(_run_bounded([*base, "--method", "tools/list"], env=env,
                                       timeout=RUN_TIMEOUT))  # fmt: skip
    assert "echo" in {tool["name"] for tool in listed["tools"]}
    called = _run_bounded(
        [*base, "--method", "tools/call", "--tool-name", "echo", "--tool-arg", "text=from a host"],
        env=env,
        timeout=RUN_TIMEOUT,
    )
    assert printed_json(called)["structuredContent"] == {"result": {"text": "from a host"}}


async def _sdk_call(params: StdioServerParameters) -> tuple[set[str], Any]:
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = {tool.name for tool in (await session.list_tools()).tools}
        result = await session.call_tool("echo", {"text": "sdk"})
        return tools, result


def test_the_sdk_stdio_client_starts_the_printed_entry(daemon: Daemon) -> None:
    entry = config_entry(daemon)["mcpServers"]["venom-echo"]
    # The SDK adds the entry's env to its default (host) environment, as hosts do.
    params = StdioServerParameters(
        command=entry["command"], args=entry["args"], env={**get_default_environment(),
                                                           **entry["env"]}
    )  # fmt: skip
    assert "XDG_RUNTIME_DIR" not in params.env  # type: ignore[operator]
    tools, result = anyio.run(_sdk_call, params)
    assert "echo" in tools
    assert not result.is_error
    assert result.structured_content == {"result": {"text": "sdk"}}


def test_without_a_pinned_socket_the_error_says_why_and_how_to_fix_it(daemon: Daemon) -> None:
    # TMPDIR only keeps the default path private to this test; XDG_RUNTIME_DIR stays unset.
    env = {**host_environment(), "TMPDIR": str(daemon.root / "host-tmp")}
    params = StdioServerParameters(command=daemon.command[0], args=["mcp"], env=env)
    _, result = anyio.run(_sdk_call, params)
    assert result.is_error
    error = json.loads(result.content[0].text)["error"]
    assert error["code"] == "unavailable.not_running"
    assert "XDG_RUNTIME_DIR is not set" in error["message"]
    assert "venom-echo mcp config" in error["message"]
    assert "VENOM_ECHO_SOCKET" in error["message"]
