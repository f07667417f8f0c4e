"""`venom_gen.local.mcp_config`: the MCP host entry and merging it into a host's JSON file."""

from __future__ import annotations

import json
import os
import shlex
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

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


# Each host's documented shape, as its configuration reference gives it (docs/service.md
# links them): the members a stdio server entry must have, and their types.
HOST_SHAPES: dict[str, dict[str, type]] = {
    "mcpServers": {"command": str, "args": list, "env": dict},
    "gemini": {"command": str, "args": list, "env": dict},
    "vscode": {"type": str, "command": str, "args": list, "env": dict},
    "zed": {"command": str, "args": list, "env": dict},
    "codex": {"command": str, "args": list, "env": dict},
    "goose": {
        "name": str,
        "description": str,
        "type": str,
        "cmd": str,
        "args": list,
        "envs": dict,
        "enabled": bool,
        "timeout": int,
    },
}


def _read_back(form: str, text: str) -> dict[str, Any]:
    from ruamel.yaml import YAML

    from venom_gen.local.mcp_config import HOSTS
    from venom_gen.render.host_json import parse

    language = HOSTS[form].language
    readers: dict[str, Callable[[str], Any]] = {
        "json": parse,
        "toml": tomllib.loads,
        "yaml": YAML(typ="safe").load,
    }
    document = readers[language](text)
    servers: dict[str, Any] = document[HOSTS[form].key]
    return servers


@pytest.mark.parametrize("form", sorted(HOST_SHAPES))
def test_every_host_format_has_the_hosts_documented_shape(binary: str, form: str) -> None:
    from venom_gen.local.mcp_config import render_config

    entry = host_entry("venom-echo", "/run/v.sock", form=form, max_grant="read", argv0=binary)
    written = _read_back(form, render_config(form, "echo", entry, compact=False))["echo"]
    assert {key: type(value) for key, value in written.items()} == HOST_SHAPES[form]
    command = written.get("command", written.get("cmd"))
    env = written.get("env", written.get("envs"))
    assert (command, written["args"], env) == (
        binary,
        ["mcp", "--max-grant", "read"],
        {"VENOM_ECHO_SOCKET": "/run/v.sock"},
    )
    if form == "vscode":
        assert written["type"] == "stdio"
    if form == "goose":
        assert (written["type"], written["enabled"], written["name"]) == (
            "stdio",
            True,
            "venom-echo",
        )


def test_the_claude_add_form_is_one_command_line_that_parses_back(tmp_path: Path) -> None:
    from venom_gen.local.mcp_config import render_config

    exe = tmp_path / "o'brien dir" / "venom-echo"
    exe.parent.mkdir()
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    entry = host_entry("venom-echo", "/run/a b.sock", form="claude-add", argv0=str(exe))
    line = render_config("claude-add", "echo", entry, compact=False)
    assert shlex.split(line) == [
        "claude", "mcp", "add", "--transport", "stdio",
        "--env", "VENOM_ECHO_SOCKET=/run/a b.sock", "echo", "--", str(exe), "mcp",
    ]  # fmt: skip


@pytest.mark.parametrize("form", sorted(HOST_SHAPES))
def test_write_round_trips_every_format_and_keeps_the_users_text(
    tmp_path: Path, binary: str, form: str
) -> None:
    from venom_gen.local.mcp_config import HOSTS

    existing = {
        "json": '{\n  // mine\n  "theme": "dark",\n  "n": 1e400,\n}\n',
        "toml": '# mine\ntheme = "dark"\n',
        "yaml": "# mine\ntheme: dark\n",
    }[HOSTS[form].language]
    config = tmp_path / "host.conf"
    config.write_text(existing)
    entry = host_entry("venom-echo", "/s", form=form, argv0=binary)
    merge_entry(str(config), HOSTS[form].key, "echo", entry, form=form)
    text = config.read_text()
    assert "# mine" in text or "// mine" in text
    assert _read_back(form, text) == {"echo": entry}
    # Again: replaced, not duplicated, and the rest still as written.
    merge_entry(str(config), HOSTS[form].key, "echo", {**entry, "args": ["x"]}, form=form)
    assert _read_back(form, config.read_text())["echo"]["args"] == ["x"]
    assert ("1e400" in config.read_text()) == (HOSTS[form].language == "json")


@pytest.mark.parametrize("text", ['{"mcpServers": {"x": "\\ud800"}}', '{"a": 1e400}'])
def test_values_python_cannot_rewrite_are_kept_not_crashed_on(tmp_path: Path, text: str) -> None:
    config = tmp_path / "c.json"
    config.write_text(text)
    merge_entry(str(config), "mcpServers", "t", {"command": "/v"})
    after = config.read_text()
    assert text.rstrip("}").rstrip() in after or text[:-1] in after
    assert "Infinity" not in after


def test_an_entry_a_host_cannot_read_back_is_refused_and_the_file_untouched(
    tmp_path: Path,
) -> None:
    config = tmp_path / "c.json"
    config.write_text("{}")
    with pytest.raises(VenomError) as info:
        merge_entry(str(config), "mcpServers", "t", {"command": "/bin/\udcff"})
    assert info.value.code == "invalid_params.config_file"
    assert "not valid Unicode" in info.value.message
    assert config.read_text() == "{}"


def test_a_file_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    config = tmp_path / "c.json"
    config.write_bytes(b'{"a": "\xff"}')
    with pytest.raises(VenomError, match="not UTF-8"):
        merge_entry(str(config), "mcpServers", "t", {"command": "/v"})
    assert config.read_bytes() == b'{"a": "\xff"}'


@pytest.mark.parametrize(
    "url", ["ssh://me@host/run/venom/venom-echo.sock", "ssh://[::1]:2222/s.sock", "ssh://h"]
)
def test_an_ssh_socket_is_pinned_as_the_url(url: str) -> None:
    from venom_gen.local.mcp_config import pinned_socket

    assert pinned_socket("venom-echo", url, {}) == url
    assert pinned_socket("venom-echo", None, {"VENOM_ECHO_SOCKET": url}) == url


@pytest.mark.parametrize("url", ["ssh://h$(id)/s", "ssh://host:\u00b2/s", "ssh://a;b/s"])
def test_an_ssh_socket_outside_the_grammar_is_a_usage_error(url: str) -> None:
    from venom_gen.local.mcp_config import pinned_socket

    with pytest.raises(VenomError) as info:
        pinned_socket("venom-echo", url, {})
    assert info.value.code == "invalid_params.usage"


def test_a_local_socket_is_made_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from venom_gen.local.mcp_config import pinned_socket

    monkeypatch.chdir(tmp_path)
    assert pinned_socket("venom-echo", "rel/s.sock", {}) == str(tmp_path / "rel" / "s.sock")
