"""The configuration store (rfcs/0001 §6): TOML file, schema, atomic writes, reload."""

from __future__ import annotations

import asyncio
import json
import os
import tomllib
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import pytest

from venom_gen.daemon.config import ConfigStore, config_path
from venom_gen.daemon.toml_write import dumps_toml
from venom_proto import VenomError
from venom_schema.model import Descriptor

DESC: Descriptor = {
    "kind": "object",
    "fields": [
        {
            "name": "level",
            "summary": "l",
            "type": {"kind": "string", "choices": ["info", "debug"]},
            "required": False,
            "default": "info",
        },
        {
            "name": "ui",
            "summary": "u",
            "type": {
                "kind": "object",
                "fields": [
                    {
                        "name": "width",
                        "summary": "w",
                        "type": {"kind": "integer", "min": 1, "max": 500},
                        "required": False,
                        "default": 80,
                    }
                ],
            },
            "required": False,
        },
    ],
}
NO_CALL: Any = None


def run(verb: Coroutine[Any, Any, dict[str, Any]]) -> dict[str, Any]:
    return asyncio.run(verb)


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ConfigStore:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.delenv("TOOL_CONFIG", raising=False)
    return ConfigStore("tool", DESC)


def test_path_follows_xdg_and_env_override(tmp_path: Path) -> None:
    assert config_path("my-tool", {"XDG_CONFIG_HOME": "/x"}) == Path("/x/my-tool/config.toml")
    assert config_path("my-tool", {"MY_TOOL_CONFIG": "/y.toml"}) == Path("/y.toml")


def test_missing_file_means_defaults(store: ConfigStore) -> None:
    assert store.get(NO_CALL, {}) == {"key": "", "value": '{"level":"info"}'}
    assert store.get(NO_CALL, {"key": "level"}) == {"key": "level", "value": '"info"'}


def test_set_writes_toml_and_applies(store: ConfigStore) -> None:
    assert run(store.set(NO_CALL, {"key": "ui.width", "value": "120"})) == {
        "key": "ui.width",
        "value": "120",
    }
    assert tomllib.loads(store.path.read_text()) == {"ui": {"width": 120}}
    assert run(store.set(NO_CALL, {"key": "level", "value": "debug"}))["value"] == '"debug"'
    assert store.effective == {"level": "debug", "ui": {"width": 120}}


def test_invalid_set_writes_nothing(store: ConfigStore) -> None:
    run(store.set(NO_CALL, {"key": "level", "value": "debug"}))
    before = store.path.read_bytes()
    with pytest.raises(VenomError) as info:
        run(store.set(NO_CALL, {"key": "ui.width", "value": "9999"}))
    assert info.value.code == "invalid_params.config"
    assert info.value.data is not None
    assert info.value.data["errors"][0]["key"] == "ui.width"
    assert store.path.read_bytes() == before


def test_unknown_key_is_not_found(store: ConfigStore) -> None:
    with pytest.raises(VenomError) as info:
        store.get(NO_CALL, {"key": "nope"})
    assert info.value.code == "not_found.config_key"


def test_check_and_reload_keep_the_old_config_on_a_bad_file(store: ConfigStore) -> None:
    store.path.parent.mkdir(parents=True, exist_ok=True)
    store.path.write_text('level = "debug"\n')
    assert run(store.reload(NO_CALL, {})) == {"path": str(store.path), "changed": ["level"]}
    store.path.write_text("level = [unclosed\n")
    report = run(store.check(NO_CALL, {}))
    assert report["valid"] is False
    assert report["exit"] == 1
    assert report["errors"][0]["key"] == ""
    with pytest.raises(VenomError) as info:
        run(store.reload(NO_CALL, {}))
    assert info.value.code == "failed.config_invalid"
    assert store.effective["level"] == "debug"


def test_unwritable_directory_is_a_clear_failure(store: ConfigStore) -> None:
    if os.getuid() == 0:
        pytest.skip("root ignores directory permissions")
    store.path.parent.mkdir(parents=True)
    os.chmod(store.path.parent, 0o500)
    with pytest.raises(VenomError) as info:
        run(store.set(NO_CALL, {"key": "level", "value": "debug"}))
    assert info.value.code == "failed.write"


def test_schema_is_json_schema(store: ConfigStore) -> None:
    schema = json.loads(store.schema(NO_CALL, {})["schema"])
    assert schema["type"] == "object"
    assert schema["properties"]["level"]["enum"] == ["info", "debug"]


@pytest.mark.parametrize(
    "doc",
    [
        {"a": 1, "b": 'x"y\\z\n', "c": [1, 2.5, True], "t": {"u": {"v": "é"}}},
        {"weird key": "v", "emoji": "\U0001f600", "ctl": "\x01"},
        {},
    ],
)
def test_toml_writer_round_trips(doc: dict[str, Any]) -> None:
    assert tomllib.loads(dumps_toml(doc)) == doc


def test_set_keeps_the_user_s_comments(store: ConfigStore) -> None:
    """rfcs/0001 §6: config.set SHOULD preserve comments and the order of untouched keys."""
    store.path.parent.mkdir(parents=True, exist_ok=True)
    store.path.write_text('# mine\nlevel = "info"  # why\n\n[ui]\nwidth = 80\n')
    run(store.set(NO_CALL, {"key": "ui.width", "value": "100"}))
    assert store.path.read_text() == '# mine\nlevel = "info"  # why\n\n[ui]\nwidth = 100\n'
