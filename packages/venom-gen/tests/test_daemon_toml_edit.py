"""config.set keeps comments and key order (rfcs/0001 §6): the line-wise TOML editor."""

from __future__ import annotations

import tomllib
from typing import Any

import pytest

from venom_gen.daemon.toml_edit import edit_or_rewrite, set_key

DOC = """# venom-echo configuration
log_level = "info"  # quieter in production

# the UI
[ui]
width = 80   # columns
theme = "dark"
"""


def expect(text: str, path: list[str], value: Any) -> dict[str, Any]:
    doc = tomllib.loads(text)
    node = doc
    for part in path[:-1]:
        node = node.setdefault(part, {})
    if value is None:
        node.pop(path[-1], None)
    else:
        node[path[-1]] = value
    return doc


def edit(text: str, path: list[str], value: Any) -> str | None:
    return set_key(text, path, value, expect(text, path, value))


def test_replacing_a_value_keeps_comments_and_order() -> None:
    assert edit(DOC, ["ui", "width"], 120) == DOC.replace("width = 80 ", "width = 120 ")
    assert edit(DOC, ["log_level"], "debug") == DOC.replace('"info"', '"debug"')


def test_a_new_key_goes_after_its_table_s_last_key() -> None:
    out = edit(DOC, ["ui", "font"], "mono")
    assert out is not None
    assert out.splitlines()[-1] == 'font = "mono"'
    assert "# columns" in out
    top = edit(DOC, ["level2"], 3)
    assert top is not None
    assert top.splitlines()[2] == "level2 = 3"


def test_a_new_table_is_appended() -> None:
    out = edit(DOC, ["net", "port"], 8080)
    assert out is not None
    assert out.endswith("\n[net]\nport = 8080\n")
    assert out.startswith(DOC)


def test_none_removes_the_line() -> None:
    out = edit(DOC, ["ui", "theme"], None)
    assert out == DOC.replace('theme = "dark"\n', "")


def test_hash_inside_a_string_is_not_a_comment() -> None:
    text = 'name = "a # b"  # real comment\n'
    assert edit(text, ["name"], "c") == 'name = "c"  # real comment\n'


@pytest.mark.parametrize(
    "text",
    [
        "[[servers]]\nname = 'a'\n",  # arrays of tables
        "ui.width = 80\n",  # dotted keys
        "items = [\n  1,\n  2,\n]\n",  # values spanning lines
        'text = """\nmulti\n"""\n',
    ],
)
def test_declines_what_it_cannot_edit_safely(text: str) -> None:
    assert edit(text, ["ui", "width"], 90) is None
    rewritten = edit_or_rewrite(text, ["ui", "width"], 90, expect(text, ["ui", "width"], 90))
    assert tomllib.loads(rewritten) == expect(text, ["ui", "width"], 90)


def test_empty_file() -> None:
    assert edit("", ["log_level"], "debug") == 'log_level = "debug"\n'
