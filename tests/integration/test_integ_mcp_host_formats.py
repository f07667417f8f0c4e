"""Every host format of ``venom-echo mcp config`` (rfcs/0001 §13), through the real CLI.

``--write`` merges the entry into a host file that already holds the user's settings and
comments, in the host's own language; the file read back with that language's reader holds
exactly the entry printed, and the rest as written. The entry read back from the TOML (Codex)
and YAML (Goose) files starts the adapter through the official SDK's stdio client, with a
host's minimal environment, and reaches the daemon.
"""

from __future__ import annotations

import json
import shlex
import tomllib
from pathlib import Path
from typing import Any

import anyio
import pytest
from integration_kit import Daemon, json_line
from mcp import StdioServerParameters
from mcp.client.stdio import get_default_environment
from ruamel.yaml import YAML
from test_integ_mcp_hosts import _sdk_call

from venom_gen.render.host_json import parse as parse_jsonc

#: Format -> (the file as the user left it, key the servers live under, reader).
HOST_FILES: dict[str, tuple[str, str, Any]] = {
    "mcpServers": ('{\n  // mine\n  "n": 1e400\n}\n', "mcpServers", parse_jsonc),
    "vscode": ('{\n  "servers": {},\n  // mine\n}\n', "servers", parse_jsonc),
    "gemini": ('{"theme": "Default", /* mine */ "mcpServers": {}}', "mcpServers", parse_jsonc),
    "zed": ('// mine\n{\n  "theme": "One Dark",\n}\n', "context_servers", parse_jsonc),
    "codex": ('# mine\nmodel = "o3"\n', "mcp_servers", tomllib.loads),
    "goose": ("# mine\nGOOSE_MODEL: x\nextensions: {}\n", "extensions", YAML(typ="safe").load),
}


def _printed(daemon: Daemon, form: str, *args: str) -> str:
    done = daemon.cli("mcp", "config", "--format", form, "--name", "echo", *args)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.covers("cli", "mcp.config")
@pytest.mark.parametrize("form", sorted(HOST_FILES))
def test_write_round_trips_through_the_hosts_own_reader(
    daemon: Daemon, tmp_path: Path, form: str
) -> None:
    before, key, reader = HOST_FILES[form]
    config = tmp_path / f"host-{form}"
    config.write_text(before)
    printed = reader(_printed(daemon, form, "--max-grant", "read"))[key]["echo"]
    _printed(daemon, form, "--max-grant", "read", "--write", str(config))
    text = config.read_text()
    assert "mine" in text
    document = reader(text)
    assert document[key]["echo"] == printed
    command = printed.get("command", printed.get("cmd"))
    env = printed.get("env", printed.get("envs"))
    assert (command, printed["args"], env) == (
        daemon.command[0],
        ["mcp", "--max-grant", "read"],
        {"VENOM_ECHO_SOCKET": daemon.socket},
    )
    if form == "mcpServers":
        assert '"n": 1e400' in text


def test_claude_add_prints_the_command_and_refuses_write(daemon: Daemon, tmp_path: Path) -> None:
    line = _printed(daemon, "claude-add").strip()
    assert shlex.split(line) == [
        "claude", "mcp", "add", "--transport", "stdio",
        "--env", f"VENOM_ECHO_SOCKET={daemon.socket}", "echo", "--", daemon.command[0], "mcp",
    ]  # fmt: skip
    refused = daemon.cli("mcp", "config", "--format", "claude-add", "--write", str(tmp_path / "x"))
    assert refused.returncode == 2
    assert "no file to --write" in refused.stderr
    assert not (tmp_path / "x").exists()


def test_an_ssh_socket_stays_a_url(daemon: Daemon) -> None:
    url = "ssh://me@build.example/run/user/1000/venom/venom-echo.sock"
    done = daemon.cli("mcp", "config", "--socket", url, "--json")
    assert done.returncode == 0, done.stderr
    config = json.loads(json_line(done.stdout)["config"])
    assert config["mcpServers"]["venom-echo"]["env"] == {"VENOM_ECHO_SOCKET": url}
    bad = daemon.cli("mcp", "config", "--socket", "ssh://h$(id)/s")
    assert bad.returncode == 2
    assert "Traceback" not in bad.stderr


@pytest.mark.parametrize("form", ["codex", "goose"])
def test_the_entry_read_back_from_the_hosts_file_starts_the_adapter(
    daemon: Daemon, tmp_path: Path, form: str
) -> None:
    before, key, reader = HOST_FILES[form]
    config = tmp_path / f"host-{form}"
    config.write_text(before)
    _printed(daemon, form, "--write", str(config))
    entry = reader(config.read_text())[key]["echo"]
    params = StdioServerParameters(
        command=entry.get("command", entry.get("cmd")),
        args=entry["args"],
        env={**get_default_environment(), **entry.get("env", entry.get("envs"))},
    )
    tools, result = anyio.run(_sdk_call, params)
    assert "echo" in tools
    assert result.structured_content == {"result": {"text": "sdk"}}
