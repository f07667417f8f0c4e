"""Every generator copes with result, item and error-data field names that are not
identifiers (RFC-0004 §2 allows any name without control characters outside params).

The hostile fixture's ``records`` verb carries such names (``created at``, ``a.b``, ``x|y``,
``\\`tick\\```, ``.TH``, ``日本``, ``a<U+2028>b``...) in its result, nested objects, array
items, stream item and error data. Each must come out exactly: as the JSON Schema property
name in the MCP catalog, and as its documented path (bare, or a JSON string when it is not a
plain identifier) in the rendered Markdown reference, SKILL.md and man page.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from venom_gen.build.man import render_man_pages
from venom_gen.build.markdown import render_markdown
from venom_gen.render._types import flatten_fields, render_member
from venom_gen.render.catalog import build_catalog
from venom_gen.render.skill import render_skill
from venom_schema.model import Model, Verb

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def model() -> Model:
    loaded: Model = json.loads((FIXTURES / "hostile_model.json").read_text("utf-8"))
    return loaded


def _records(model: Model) -> Verb:
    verb: Verb = next(v for v in model["verbs"] if v["name"] == "records")
    return verb


def _paths(model: Model) -> list[str]:
    """Every documented path of the verb's result, item and error data."""
    verb = _records(model)
    fields = [*verb["result"]["fields"], *verb["item"]["fields"]]
    fields += verb["errors"][0]["data"]["fields"]
    return [row.path for row in flatten_fields(fields)]


def _markdown_text(source: str) -> str:
    markdown_it = pytest.importorskip("markdown_it")
    rendered = markdown_it.MarkdownIt("commonmark").enable("table").render(source)
    return html.unescape(re.sub(r"<[^>]+>", "", rendered))


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("createdAt", "createdAt"),
        ("_x", "_x"),
        ("created at", '"created at"'),
        ("a.b", '"a.b"'),
        ('a"b', '"a\\"b"'),
        ("日本", '"日本"'),
        ("😀", '"😀"'),
        ("a\u2028b", '"a\\u2028b"'),
        ("\u202eevil", '"\\u202eevil"'),
    ],
)
def test_render_member(name: str, shown: str) -> None:
    assert render_member(name) == shown


def test_catalog_keeps_names_as_property_names(model: Model) -> None:
    verb = _records(model)
    (entry,) = [t for t in build_catalog(model) if t["name"] == "records"]
    output = entry["outputSchema"]["properties"]
    result = output["result"]["properties"]
    assert list(result) == [f["name"] for f in verb["result"]["fields"]]
    assert output["result"]["required"] == ["nested object"]
    item = output["items"]["items"]["properties"]
    assert list(item) == [f["name"] for f in verb["item"]["fields"]]
    json.dumps(entry, ensure_ascii=False).encode("utf-8")


def test_markdown_shows_every_path(model: Model) -> None:
    text = _markdown_text(render_markdown(model))
    for path in _paths(model):
        assert path in text, path


def test_skill_shows_every_path(model: Model) -> None:
    text = _markdown_text(render_skill(model))
    verb = _records(model)
    for row in flatten_fields([*verb["result"]["fields"], *verb["item"]["fields"]]):
        assert row.path in text, row.path


def test_man_page_shows_every_path(tmp_path: Path, model: Model) -> None:
    if shutil.which("mandoc") is None:
        pytest.skip("mandoc is not installed")
    page = tmp_path / "hostile-tool-records.1"
    page.write_text(render_man_pages(model)["hostile-tool-records.1"], encoding="utf-8")
    out = subprocess.run(
        ["mandoc", "-T", "utf8", "-O", "width=1000", str(page)],
        capture_output=True,
        timeout=30,
        check=True,
    ).stdout.decode("utf-8")
    text = re.sub(".\b", "", out)  # drop overstriking (bold, underline)
    for path in _paths(model):
        assert path in text, path


def test_cli_help_shows_every_name(model: Model) -> None:
    """The generated CLI's --help shape line quotes names that are not identifiers."""
    from venom_gen.render._types import render_type

    verb = _records(model)
    line = render_type(verb["result"], inline=True)
    for field in verb["result"]["fields"]:
        name = field["name"]
        shown = name if name.isascii() and name.isidentifier() else render_member(name)
        assert shown + ("" if field["required"] else "?") + ": " in line, name
    assert "\u2028" not in line
