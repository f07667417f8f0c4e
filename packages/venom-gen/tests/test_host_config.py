"""`venom_gen.local.mcp_config`: the MCP host entry and merging it into a host's JSON file."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from venom_gen.local.mcp_config import host_entry, merge_entry
from venom_proto import VenomError


@pytest.fixture
def binary(tmp_path: Path) -> str:
    exe = tmp_path / "bin" / "venom-echo"
    exe.parent.mkdir()
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    return str(exe)


def test_the_entry_names_the_absolute_command_and_pins_the_socket(binary: str) -> None:
    entry = host_entry("venom-echo", "/run/user/1/venom/venom-echo.sock", argv0=binary)
    assert entry == {
        "command": binary,
        "args": ["mcp"],
        "env": {"VENOM_ECHO_SOCKET": "/run/user/1/venom/venom-echo.sock"},
    }


def test_vscode_form_and_max_grant(binary: str) -> None:
    entry = host_entry("venom-echo", "/s", form="vscode", max_grant="read", argv0=binary)
    assert entry["type"] == "stdio"
    assert entry["args"] == ["mcp", "--max-grant", "read"]


def test_run_as_a_module_the_entry_runs_the_interpreter(tmp_path: Path) -> None:
    entry = host_entry("venom-echo", "/s", argv0=str(tmp_path / "__main__.py"))
    assert entry["command"] == os.path.abspath(sys.executable)
    assert entry["args"][0] == "-m"
    assert entry["args"][-1] == "mcp"


def test_merge_keeps_every_other_member_and_server(tmp_path: Path) -> None:
    config = tmp_path / "claude_desktop_config.json"
    config.write_text(
        json.dumps({"mcpServers": {"other": {"command": "/x"}}, "globalShortcut": "Ctrl+Space"})
    )
    config.chmod(0o640)
    merge_entry(str(config), "mcpServers", "venom-echo", {"command": "/v", "args": ["mcp"]})
    assert json.loads(config.read_text()) == {
        "mcpServers": {
            "other": {"command": "/x"},
            "venom-echo": {"command": "/v", "args": ["mcp"]},
        },
        "globalShortcut": "Ctrl+Space",
    }
    assert config.stat().st_mode & 0o777 == 0o640
    # Again: the entry is replaced, not duplicated.
    merge_entry(str(config), "mcpServers", "venom-echo", {"command": "/w"})
    assert json.loads(config.read_text())["mcpServers"]["venom-echo"] == {"command": "/w"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["claude_desktop_config.json"]


def test_merge_creates_a_missing_file_and_its_directory(tmp_path: Path) -> None:
    config = tmp_path / ".vscode" / "mcp.json"
    merge_entry(str(config), "servers", "venom-echo", {"type": "stdio", "command": "/v"})
    assert json.loads(config.read_text()) == {
        "servers": {"venom-echo": {"type": "stdio", "command": "/v"}}
    }


def test_merge_follows_a_symlinked_config(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "mcp.json"
    real.parent.mkdir()
    real.write_text("{}")
    link = tmp_path / ".mcp.json"
    link.symlink_to(real)
    merge_entry(str(link), "mcpServers", "t", {"command": "/v"})
    assert link.is_symlink()
    assert json.loads(real.read_text()) == {"mcpServers": {"t": {"command": "/v"}}}


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("{not json", "it is not JSON"),
        ("[1, 2]", "it is not a JSON object"),
        ('{"mcpServers": []}', "its 'mcpServers' member is not an object"),
    ],
)
def test_a_file_that_is_not_a_config_is_left_alone(tmp_path: Path, text: str, reason: str) -> None:
    config = tmp_path / "c.json"
    config.write_text(text)
    with pytest.raises(VenomError) as info:
        merge_entry(str(config), "mcpServers", "t", {"command": "/v"})
    assert info.value.code == "invalid_params.config_file"
    assert reason in info.value.message
    assert config.read_text() == text


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "c.json"
    os.mkfifo(fifo)
    with pytest.raises(VenomError) as info:
        merge_entry(str(fifo), "mcpServers", "t", {"command": "/v"})
    assert info.value.code == "invalid_params.config_file"
    assert "FIFO" in info.value.message
