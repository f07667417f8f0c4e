"""Configuration and daemon lifecycle through the CLI, each on a daemon of its own (rfcs/0001)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from integration_kit import Daemon


def _ok(d: Daemon, *args: str) -> Any:
    r = d.cli(*args, "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    return json.loads(r.stdout)


@pytest.mark.covers("cli", "config.get", "config.set")
def test_set_writes_toml_and_get_reads_it_back(own_daemon: Daemon) -> None:
    """rfcs/0001 §6: set writes $XDG_CONFIG_HOME/<tool>/config.toml; get returns JSON text."""
    assert _ok(own_daemon, "config", "get", "--key", "greeting") == {
        "key": "greeting",
        "value": '"hello"',
    }
    assert not own_daemon.config_file.exists()
    assert _ok(own_daemon, "config", "set", "--key", "greeting", "--value", "howdy") == {
        "key": "greeting",
        "value": '"howdy"',
    }
    assert own_daemon.config_file.read_text(encoding="utf-8").strip() == 'greeting = "howdy"'
    assert _ok(own_daemon, "config.get", "--key", "greeting")["value"] == '"howdy"'
    whole = json.loads(_ok(own_daemon, "config", "get")["value"])
    assert whole == {"log_level": "info", "greeting": "howdy"}


@pytest.mark.covers("cli", "config.set", "config.get")
def test_set_json_string_and_invalid_values(own_daemon: Daemon) -> None:
    """rfcs/0001 §6: JSON values parse; invalid ones write nothing (invalid_params.config)."""
    assert _ok(own_daemon, "config", "set", "--key", "greeting", "--value", '"8080"')["value"] == (
        '"8080"'
    )
    before = own_daemon.config_file.read_text(encoding="utf-8")
    bad = own_daemon.cli("config", "set", "--key", "log_level", "--value", "loud", "--json")
    assert bad.returncode == 2
    assert json.loads(bad.stdout)["error"]["code"] == "invalid_params.config"
    assert own_daemon.config_file.read_text(encoding="utf-8") == before
    unknown = own_daemon.cli("config", "get", "--key", "nope", "--json")
    assert unknown.returncode == 3
    assert json.loads(unknown.stdout)["error"] == {
        "code": "not_found.config_key",
        "message": "no configuration key 'nope'",
        "data": {"key": "nope"},
    }


@pytest.mark.covers("cli", "config.check", "config.reload", "config.get")
def test_broken_file_check_fails_reload_keeps_old_then_fixed_applies(own_daemon: Daemon) -> None:
    """rfcs/0001 §6: check exits 1 on errors; reload refuses and keeps the old configuration;
    a fixed file reloads and lists the changed keys."""
    path = str(own_daemon.config_file)
    own_daemon.config_file.parent.mkdir(parents=True, exist_ok=True)
    own_daemon.config_file.write_text("greeting = 5\n", encoding="utf-8")
    check = own_daemon.cli("config", "check", "--json")
    assert check.returncode == 1
    assert json.loads(check.stdout) == {
        "path": path,
        "valid": False,
        "exit": 1,
        "errors": [
            {"key": "greeting", "message": "param 'greeting': expected string, got integer"}
        ],
    }
    reload = own_daemon.cli("config", "reload", "--json")
    assert reload.returncode == 1
    err = json.loads(reload.stdout)["error"]
    assert (err["code"], err["data"]["path"]) == ("failed.config_invalid", path)
    assert [e["key"] for e in err["data"]["errors"]] == ["greeting"]
    assert _ok(own_daemon, "config", "get", "--key", "greeting")["value"] == '"hello"'

    own_daemon.config_file.write_text("greeting = \n", encoding="utf-8")
    syntax = own_daemon.cli("config", "check", "--json")
    assert syntax.returncode == 1
    assert [e["key"] for e in json.loads(syntax.stdout)["errors"]] == [""]

    own_daemon.config_file.write_text(
        '# mine\ngreeting = "fixed"\nlog_level = "debug"\n', encoding="utf-8"
    )
    assert _ok(own_daemon, "config", "check") == {
        "path": path,
        "valid": True,
        "exit": 0,
        "errors": [],
    }
    assert _ok(own_daemon, "config", "reload") == {
        "path": path,
        "changed": ["greeting", "log_level"],
    }
    assert _ok(own_daemon, "config", "get", "--key", "greeting")["value"] == '"fixed"'
    assert _ok(own_daemon, "config", "reload") == {"path": path, "changed": []}


@pytest.mark.covers("cli", "config.schema")
def test_schema_is_json_schema_text(own_daemon: Daemon) -> None:
    """rfcs/0001 §6: config.schema is the JSON Schema 2020-12 mapping as compact JSON text."""
    text = _ok(own_daemon, "config", "schema")["schema"]
    schema = json.loads(text)
    assert text == json.dumps(schema, separators=(",", ":"), ensure_ascii=False)
    assert schema["type"] == "object"
    assert schema["properties"]["greeting"] == {
        "type": "string",
        "description": "Text the echo.greet example would use",
        "default": "hello",
    }


@pytest.mark.covers("cli", "serve")
def test_second_serve_is_already_running(own_daemon: Daemon) -> None:
    """rfcs/0001 §2: serve fails with conflict.already_running (exit 5) while one runs."""
    r = own_daemon.cli("serve")
    assert r.returncode == 5
    assert "conflict.already_running" in r.stderr
    assert own_daemon.cli("ping").returncode == 0


@pytest.mark.covers("cli", "serve")
def test_serve_json_prints_error_wrapper(own_daemon: Daemon) -> None:
    """RFC-0002 §7.3: with --json a failure prints {"error":...} on stdout."""
    r = own_daemon.cli("serve", "--json")
    assert r.returncode == 5
    assert json.loads(r.stdout)["error"]["code"] == "conflict.already_running"


@pytest.mark.covers("cli", "serve")
def test_serve_sigterm_exits_0_and_cleans_up(own_daemon: Daemon) -> None:
    """rfcs/0001 §2, 0005 §3: SIGTERM is a clean exit 0; socket and token are removed."""
    assert own_daemon.token_file.exists()
    assert oct(os.stat(own_daemon.token_file).st_mode & 0o777) == "0o600"
    assert own_daemon.stop() == 0
    assert not Path(own_daemon.socket).exists()
    assert not own_daemon.token_file.exists()
    own_daemon.start()  # a restart after a clean stop works
    assert own_daemon.cli("ping", "--json").stdout == "{}\n"


@pytest.mark.covers("cli", "serve")
def test_owner_token_exists_before_the_socket_accepts() -> None:
    """rfcs/0005 §3: the token is written before the daemon accepts connections."""
    for attempt in range(3):  # the race needs a tight poll; stop at the first miss
        d = Daemon()
        try:
            d.start(poll=0.0005)
        finally:
            d.close()
        assert d.token_at_first_connect, f"no token at first connect (start {attempt + 1})"


@pytest.mark.covers("cli", "config.set", "config.check")
def test_config_env_override_moves_the_file(own_daemon: Daemon) -> None:
    """rfcs/0001 §6: VENOM_ECHO_CONFIG overrides the configuration path."""
    elsewhere = own_daemon.root / "elsewhere.toml"
    own_daemon.stop()
    own_daemon.env["VENOM_ECHO_CONFIG"] = str(elsewhere)
    own_daemon.start()
    _ok(own_daemon, "config", "set", "--key", "log_level", "--value", "error")
    assert elsewhere.read_text(encoding="utf-8").strip() == 'log_level = "error"'
    assert not own_daemon.config_file.exists()
    assert _ok(own_daemon, "config", "check")["path"] == str(elsewhere)
