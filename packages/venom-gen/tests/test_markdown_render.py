"""Markdown reference generation (RFC-0004 §6), checked through a CommonMark+tables parser."""

from __future__ import annotations

import copy
import html
import json
import re
from pathlib import Path

import pytest

from venom_gen.build.markdown import render_markdown
from venom_gen.render._types import render_choice
from venom_schema.model import Field, Model

FIXTURES = Path(__file__).parent / "fixtures"


def _rendered_text(source: str) -> str:
    markdown_it = pytest.importorskip("markdown_it")
    rendered = markdown_it.MarkdownIt("commonmark").enable("table").render(source)
    return html.unescape(re.sub(r"<[^>]+>", "", rendered))


def _user_strings(model: Model) -> list[str]:
    strings = [model["summary"]]

    def fields(items: list[Field]) -> None:
        for field in items:
            strings.append(field["summary"])
            desc = field["type"]
            while desc["kind"] == "array":
                desc = desc["items"]
            if desc["kind"] == "object":
                fields(desc["fields"])
            strings.extend(render_choice(c) for c in desc.get("choices", []))

    for verb in model["verbs"]:
        if verb.get("dispatch") == "transport":
            continue
        strings.append(verb["summary"])
        fields(verb["params"])
        if verb["result"]["kind"] == "object":
            fields(verb["result"]["fields"])
        for err in verb["errors"]:
            strings.append(err["summary"])
            fields(err["data"].get("fields", []))
    return strings


def test_hostile_strings_survive_rendering(hostile_model: Model) -> None:
    """RFC-0004 §6: user strings are escaped for Markdown and render verbatim."""
    text = _rendered_text(render_markdown(hostile_model))
    for string in _user_strings(hostile_model):
        assert string in text, string


def _cells(line: str) -> int:
    # A pipe preceded by an even number of backslashes separates cells.
    inner = line.strip()[1:-1]
    return len(re.findall(r"(?<!\\)(?:\\\\)*\|", inner)) + 1


@pytest.mark.parametrize("name", ["echo_model", "hostile_model"])
def test_every_table_row_has_the_header_cell_count(name: str) -> None:
    """Escaped pipes keep table rows intact."""
    source = render_markdown(json.loads((FIXTURES / f"{name}.json").read_text("utf-8")))
    tables = re.findall(r"(?:^\|.*\|\n)+", source, flags=re.M)
    assert len(tables) >= 4
    for table in tables:
        rows = table.splitlines()
        assert all(_cells(row) == _cells(rows[0]) for row in rows), table
    markdown_it = pytest.importorskip("markdown_it")
    tokens = markdown_it.MarkdownIt("commonmark").enable("table").parse(source)
    assert sum(1 for t in tokens if t.type == "table_open") == len(tables)


def test_hostile_examples_are_literal_code(hostile_model: Model) -> None:
    """RFC-0004 §6: examples become POSIX-quoted command lines inside code blocks."""
    markdown_it = pytest.importorskip("markdown_it")
    tokens = (
        markdown_it.MarkdownIt("commonmark").enable("table").parse(render_markdown(hostile_model))
    )
    blocks = [t.content for t in tokens if t.type == "fence" and t.info == "console"]
    joined = "".join(blocks)
    assert "$ hostile-tool pane set-title --title 'it'\\''s $(rm -rf ~) `x` \\ \n" in joined
    assert "--title=-dash --mode 'x|y' --extra '{\"k\":1.5}' --json\n" in joined
    assert '{"title":"it\'s","tags":[{"t":"é😀"}]}' in joined


def test_echo_reference_content(echo_model: Model) -> None:
    """RFC-0004 §6: spelling, alias, wire/MCP names, grant, params, errors, exits, examples."""
    doc = render_markdown(echo_model)
    assert doc.endswith("\n")
    assert not doc.endswith("\n\n")
    assert "### `venom-echo config get`" in doc
    assert "- Dotted alias: `venom-echo config.get`" in doc
    assert "- Wire name: `config.get`" in doc
    assert "- MCP tool: `config_dget`" in doc
    assert '| `--style` | string (one of: plain, upper) | no | "plain" | plain, upper |' in doc
    assert (
        "| `not_found.key` | 3 | No such configuration key | `key` (string): The missing key |"
        in doc
    )
    assert '$ venom-echo echo --text hi --style upper --json\n{"text":"HI"}' in doc
    assert "| `conflict.exists` | 5 |" in doc
    assert "- MCP tool: none (runs in-process" in doc
    assert "**Item:** object" in doc
    assert "suppresses the final result" in doc
    assert "at most 1024 items and 1 MiB" in doc
    assert '# final result (wire and MCP only): {"count":1}' in doc
    assert "| 11 | `internal` |" in doc


def test_verb_order_and_transport_verbs_hidden(echo_model: Model) -> None:
    """RFC-0004 §6: verbs in wire-name order; hello and cancel are not commands."""
    model = copy.deepcopy(echo_model)
    model["verbs"].reverse()
    doc = render_markdown(model)
    assert doc == render_markdown(echo_model)
    headings = re.findall(r"^### `venom-echo (.*)`$", doc, flags=re.M)
    assert headings == [
        "config get",
        "config set",
        "echo",
        "events",
        "mcp",
        "ping",
        "serve",
        "skill",
        "skill install",
    ]


def test_field_and_choice_declaration_order_kept(echo_model: Model) -> None:
    """RFC-0004 §6: fields, choices and examples keep declaration order."""
    model = copy.deepcopy(echo_model)
    echo = next(v for v in model["verbs"] if v["name"] == "echo")
    echo["params"].reverse()
    echo["params"][0]["type"]["choices"].reverse()
    echo["examples"].reverse()
    doc = render_markdown(model)
    assert doc.index("`--style`") < doc.index("`--text`")
    assert "one of: upper, plain" in doc
    assert doc.index("echo --style upper --text hi --json") < doc.index("echo --text hi --json")
