"""The host-file escaping modules: every edit reads back as exactly what was meant.

`venom_gen.render.host_json` (JSON and JSONC), ``host_toml`` (Codex) and ``host_yaml``
(Goose): the edited file, read by the language's own reader, equals the old document with
only the one entry set; everything else is kept as written (comments, number literals); a
file that cannot be parsed, or an entry a host would read back as another value, is refused.
"""

from __future__ import annotations

import json
import tomllib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from venom_gen.render import host_json, host_toml, host_yaml
from venom_gen.render.host_json import HostFileError

ENTRY = {"command": "/opt/v e/bin/venom-echo", "args": ["mcp"], "env": {"VENOM_ECHO_SOCKET": "/s"}}

keys = st.text(st.characters(codec="utf-8"), max_size=8)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(10**30), 10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(codec="utf-8"), max_size=12)
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=20,
)
documents = st.dictionaries(keys, json_values, max_size=5)
entries = st.dictionaries(keys, json_values, max_size=4)


@settings(max_examples=300, deadline=None)
@given(document=documents, indent=st.sampled_from([None, 2, 4, "\t"]), name=keys, entry=entries)
def test_json_set_member_changes_exactly_the_member(
    document: dict[str, Any], indent: int | str | None, name: str, entry: dict[str, Any]
) -> None:
    text = json.dumps(document, indent=indent, ensure_ascii=False)
    new = host_json.set_member(text, ["mcpServers", name], entry)
    expected = dict(document)
    servers = expected.get("mcpServers")
    if "mcpServers" in document and not isinstance(servers, dict):
        raise AssertionError("unreachable: set_member raised for a non-object")
    expected["mcpServers"] = {**(servers or {}), name: entry}
    assert json.loads(new) == expected


@settings(max_examples=200, deadline=None)
@given(document=documents.filter(lambda d: isinstance(d.get("servers", {}), dict)), name=keys)
def test_json_comments_and_trailing_commas_survive(document: dict[str, Any], name: str) -> None:
    body = json.dumps(document, indent=2, ensure_ascii=False)
    text = "// header\n" + body[:-1].rstrip() + (",\n" if document else "\n") + "  /* tail */\n}\n"
    new = host_json.set_member(text, ["servers", name], ENTRY)
    assert new.startswith("// header\n")
    assert "/* tail */" in new
    assert host_json.parse(new) == {**document, "servers": {**document.get("servers", {}),
                                                           name: ENTRY}}  # fmt: skip


def test_json_keeps_what_python_would_rewrite() -> None:
    # 1e400 is Infinity to Python, which is not JSON: the literal is kept as written.
    text = '{"limits": {"big": 1e400, "f": 1.50, "u": "\\ud800"}, "mcpServers": {}}'
    new = host_json.set_member(text, ["mcpServers", "t"], ENTRY)
    assert '"big": 1e400' in new
    assert '"f": 1.50' in new
    assert '"u": "\\ud800"' in new


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("{oops", "it is not JSON"),
        ('{"a": NaN}', "it is not JSON"),
        ('{"a": Infinity}', "it is not JSON"),
        ('{"a": 1} {"b": 2}', "text after the document"),
        ('{"a": "\x01"}', "an invalid string"),
        ("/* never closed", "an unclosed comment"),
        ("[1]", "not a JSON object"),
        ('{"mcpServers": 3}', "'mcpServers' member is not an object"),
        ('{"mcpServers": {}, "mcpServers": {}}', "more than once"),
        ('{"mcpServers": {"t": 1, "t": 2}}', "more than once"),
        ("[" * 100 + "]" * 100, "nesting too deep"),
        ('{"a":' + "[" * 100 + "]" * 100 + "}", "nesting too deep"),
    ],
)
def test_json_refuses_what_it_cannot_edit_exactly(text: str, reason: str) -> None:
    with pytest.raises(HostFileError, match=reason):
        host_json.set_member(text, ["mcpServers", "t"], ENTRY)


@pytest.mark.parametrize(
    "entry",
    [{"command": "/bin/\udcff"}, {"n": float("inf")}, {"n": float("nan")}, {"\ud800": 1}],
)
def test_json_refuses_an_entry_a_host_would_read_differently(entry: dict[str, Any]) -> None:
    with pytest.raises(HostFileError):
        host_json.set_member("{}", ["mcpServers", "t"], entry)


def test_json_escapes_control_characters_in_values() -> None:
    entry = {"command": "/a\nb\x1b]52;c;x\x07", "args": []}
    new = host_json.set_member(None, ["mcpServers", "t"], entry)
    assert "\x1b" not in new
    assert "\x07" not in new
    assert json.loads(new) == {"mcpServers": {"t": entry}}


toml_values = st.recursive(
    st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.text(st.characters(codec="utf-8"), max_size=12),
    lambda inner: st.lists(inner, max_size=3),
    max_leaves=8,
)
toml_tables = st.dictionaries(keys, toml_values, max_size=4)


@settings(max_examples=200, deadline=None)
@given(other=toml_tables, name=keys, entry=toml_tables)
def test_toml_set_table_changes_exactly_the_table(
    other: dict[str, Any], name: str, entry: dict[str, Any]
) -> None:
    text = "# kept\n" + host_toml.set_table(None, ["other"], other)
    new = host_toml.set_table(text, ["mcp_servers", name], entry)
    assert new.startswith("# kept\n")
    assert tomllib.loads(new) == {"other": other, "mcp_servers": {name: entry}}


def test_toml_keeps_comments_and_replaces_an_entry() -> None:
    text = (
        '# my codex\nmodel = "o3"  # the default\n\n[mcp_servers.venom-echo]\ncommand = "/old"\n'
        '\n[mcp_servers.other]\ncommand = "x" # keep me\n'
    )
    new = host_toml.set_table(text, ["mcp_servers", "venom-echo"], ENTRY)
    assert "# my codex" in new
    assert "# the default" in new
    assert "# keep me" in new
    assert tomllib.loads(new)["mcp_servers"] == {"venom-echo": ENTRY, "other": {"command": "x"}}


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("model = ", "it is not TOML"),
        ("mcp_servers = 3\n", "'mcp_servers' key is not a table"),
        ('mcp_servers = ["a"]\n', "'mcp_servers' key is not a table"),
    ],
)
def test_toml_refuses_what_it_cannot_edit(text: str, reason: str) -> None:
    with pytest.raises(HostFileError, match=reason):
        host_toml.set_table(text, ["mcp_servers", "t"], ENTRY)


def test_toml_refuses_text_that_is_not_unicode() -> None:
    with pytest.raises(HostFileError, match="not valid Unicode"):
        host_toml.set_table(None, ["mcp_servers", "t"], {"command": "/\udcff"})


def test_yaml_keeps_comments_and_sets_the_mapping() -> None:
    text = "# goose\nGOOSE_MODEL: x  # mine\nextensions:\n  developer:\n    enabled: true\n"
    new = host_yaml.set_mapping(text, ["extensions", "venom-echo"], ENTRY)
    assert "# goose" in new
    assert "# mine" in new
    from ruamel.yaml import YAML

    assert YAML(typ="safe").load(new) == {
        "GOOSE_MODEL": "x",
        "extensions": {"developer": {"enabled": True}, "venom-echo": ENTRY},
    }


printable_text = st.text(st.characters(codec="utf-8").filter(str.isprintable), max_size=12)
yaml_tables = st.dictionaries(
    printable_text, st.lists(printable_text, max_size=3) | printable_text | st.booleans()
)


@settings(max_examples=100, deadline=None)
@given(other=yaml_tables, name=keys, entry=toml_tables)
def test_yaml_set_mapping_changes_exactly_the_mapping(
    other: dict[str, Any], name: str, entry: dict[str, Any]
) -> None:
    # The user's part of the file is printable text (ruamel re-emits what it read in the
    # style it chooses; an edit that would change it is refused, never written: see below);
    # the entry written may hold any character, control characters included.
    from ruamel.yaml import YAML

    text = host_yaml.set_mapping(None, ["other"], other)
    new = host_yaml.set_mapping(text, ["extensions", name], entry)
    assert YAML(typ="safe").load(new) == {"other": other, "extensions": {name: entry}}


def test_yaml_refuses_rather_than_rewrites_what_it_cannot_keep() -> None:
    # ruamel re-emits this key unquoted, which a reader takes for another key: refused.
    text = '"\\x85": 1\n'
    with pytest.raises(HostFileError, match="without changing"):
        host_yaml.set_mapping(text, ["extensions", "t"], ENTRY)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("a: [", "it is not YAML"),
        ("- 1\n- 2\n", "not a YAML mapping"),
        ("extensions: 3\n", "'extensions' key is not a mapping"),
        ("a: &x [1]\nb: *x\n", "aliases"),
        ("a: 1\n---\nb: 2\n", "it is not YAML"),
    ],
)
def test_yaml_refuses_what_it_cannot_edit(text: str, reason: str) -> None:
    with pytest.raises(HostFileError, match=reason):
        host_yaml.set_mapping(text, ["extensions", "t"], ENTRY)
