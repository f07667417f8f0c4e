"""man pages (RFC-0004 §6): names, content, roff escaping, and the groff/mandoc linters."""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from venom_gen.build.man import render_man_pages
from venom_gen.render._views import GenerationError
from venom_schema.model import Model

FIXTURES = Path(__file__).parent / "fixtures"


def test_page_names(echo_model: Model) -> None:
    """RFC-0004 §6: one page per command with a hyphenated path, plus the overview."""
    assert list(render_man_pages(echo_model)) == [
        "venom-echo-config-get.1",
        "venom-echo-config-set.1",
        "venom-echo-echo.1",
        "venom-echo-events.1",
        "venom-echo-mcp.1",
        "venom-echo-ping.1",
        "venom-echo-serve.1",
        "venom-echo-skill-install.1",
        "venom-echo-skill.1",
        "venom-echo.1",
    ]


def test_filename_collision_fails(hostile_model: Model) -> None:
    """RFC-0004 §6: any man-page filename collision MUST fail (pane.split vs pane_split)."""
    model = copy.deepcopy(hostile_model)
    clone = copy.deepcopy(next(v for v in model["verbs"] if v["name"] == "pane.split"))
    clone["name"] = "pane_split"
    model["verbs"].append(clone)
    with pytest.raises(GenerationError, match=r"hostile-tool-pane-split\.1"):
        render_man_pages(model)


def test_overview_sections(echo_model: Model) -> None:
    """RFC-0002 §2.2, §2.3, §7.2 in the overview: environment, files, exit status."""
    page = render_man_pages(echo_model)["venom-echo.1"]
    for needle in (
        ".SH COMMANDS",
        ".SH OPTIONS",
        ".SH EXIT STATUS",
        ".SH ENVIRONMENT",
        ".SH FILES",
        "\\fBVENOM_ECHO_SOCKET\\fR",
        "\\fBXDG_RUNTIME_DIR\\fR",
        "venom/venom\\-echo.sock",
        "\\fB\\-\\-socket\\fR \\fIpath\\fR",
        "\\fB11\\fR\ninternal:",
        ".BR venom\\-echo\\-skill\\-install (1)",
    ):
        assert needle in page, needle
    assert "venom\\-echo hello" not in page
    assert "venom\\-echo cancel" not in page
    assert "venom\\-echo ping" in page


def test_verb_page_content(echo_model: Model) -> None:
    """RFC-0004 §6: spelling, alias, wire/MCP names, options, errors with exits, examples."""
    page = render_man_pages(echo_model)["venom-echo-config-get.1"]
    for needle in (
        ".TH VENOM\\-ECHO\\-CONFIG\\-GET 1",
        "venom\\-echo\\-config\\-get \\- Read",
        "\\fBvenom\\-echo config get\\fR",
        "\\fBvenom\\-echo config.get\\fR",
        "Wire name: config.get.",
        "MCP tool: config_dget.",
        "Grant: read.",
        "\\fBnot_found.key\\fR (exit 3)",
        '.EX\n$ venom\\-echo config get \\-\\-key theme \\-\\-json\n{"value":"dark"}\n.EE',
    ):
        assert needle in page, needle
    echo = render_man_pages(echo_model)["venom-echo-echo.1"]
    assert '(optional; default "plain"; one of plain, upper)' in echo
    events = render_man_pages(echo_model)["venom-echo-events.1"]
    assert ".SH ITEMS" in events
    assert "at most 1024 items and 1 MiB" in events
    assert "MCP tool: none" in render_man_pages(echo_model)["venom-echo-serve.1"]


def test_roff_escaping(hostile_model: Model) -> None:
    """RFC-0004 §6: backslashes become \\e; no user line starts with a control character."""
    pages = render_man_pages(hostile_model)
    page = pages["hostile-tool-pane-set-title.1"]
    assert "\\&.leading dot Quote" in page
    assert "\\&'leading quote" in page
    assert "\\&.TH line" in page
    assert "\\(aq\\e\\(aq\\(aq" in page
    for text in pages.values():
        for line in text.splitlines():
            assert line.strip(), "blank line"
            if line.startswith((".", "'")):
                assert line.split()[0] in {
                    ".TH",
                    ".SH",
                    ".TP",
                    ".PP",
                    ".br",
                    ".BR",
                    ".EX",
                    ".EE",
                }, line


def test_deterministic(hostile_model: Model) -> None:
    """Same model, same bytes."""
    assert render_man_pages(hostile_model) == render_man_pages(copy.deepcopy(hostile_model))


def _write_pages(tmp_path: Path, name: str) -> list[Path]:
    model = json.loads((FIXTURES / f"{name}.json").read_text("utf-8"))
    paths = []
    for filename, text in render_man_pages(model).items():
        path = tmp_path / filename
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths


def _groff(path: Path, *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["groff", "-man", "-ww", *options, str(path)],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


@pytest.mark.parametrize("name", ["echo_model", "hostile_model"])
def test_groff_reports_no_warnings(tmp_path: Path, name: str) -> None:
    """Every page formats under `groff -man -ww -z` with all warnings enabled and none reported.

    No preprocessor (-K) is asked for: pages are plain ASCII, non-ASCII text is written as
    \\[uXXXX] escapes (the hostile fixture has accents, CJK, emoji and format characters).
    On the terminal device every such character has a glyph, so nothing may be reported; on
    the default PostScript device the only report allowed is a missing glyph for an escape
    (emoji, CJK), never an invalid input character (raw UTF-8 read as Latin-1).
    """
    if shutil.which("groff") is None:
        pytest.skip("groff is not installed")
    for path in _write_pages(tmp_path, name):
        assert path.read_bytes().isascii(), path.name
        terminal = _groff(path, "-z", "-Tutf8")
        assert (terminal.returncode, terminal.stderr) == (0, ""), (path.name, terminal.stderr)
        default = _groff(path, "-z")
        assert default.returncode == 0, path.name
        for line in default.stderr.splitlines():
            assert re.search(r"warning: can't find special character 'u[0-9A-F]{4,6}'$", line), (
                path.name,
                line,
            )


def test_groff_shows_non_ascii_summaries_verbatim(tmp_path: Path, hostile_model: Model) -> None:
    """Plain groff on a UTF-8 terminal shows each non-ASCII summary as written (no mojibake)."""
    if shutil.which("groff") is None:
        pytest.skip("groff is not installed")
    pages = {p.name: p for p in _write_pages(tmp_path, "hostile_model")}
    verb = next(v for v in hostile_model["verbs"] if v["name"] == "records")
    out = _groff(pages["hostile-tool-records.1"], "-Tutf8", "-P-cbou", "-rLL=1000n")
    assert out.returncode == 0
    text = " ".join(out.stdout.split())
    for summary in (
        verb["summary"],
        verb["errors"][0]["summary"],
        verb["item"]["fields"][0]["summary"],
    ):
        assert " ".join(summary.split()) in text, summary


@pytest.mark.parametrize("name", ["echo_model", "hostile_model"])
def test_mandoc_lint_is_clean(tmp_path: Path, name: str) -> None:
    """Every page passes `mandoc -T lint -W warning` silently."""
    if shutil.which("mandoc") is None:
        pytest.skip("mandoc is not installed")
    paths = [str(p) for p in _write_pages(tmp_path, name)]
    proc = subprocess.run(
        ["mandoc", "-T", "lint", "-W", "warning", *paths],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert proc.stdout + proc.stderr == "", proc.stdout + proc.stderr
    assert proc.returncode == 0


def test_hostile_text_renders_verbatim(tmp_path: Path, hostile_model: Model) -> None:
    """The formatted page shows the user strings unchanged (mandoc, UTF-8 output)."""
    if shutil.which("mandoc") is None:
        pytest.skip("mandoc is not installed")
    path = next(
        p
        for p in _write_pages(tmp_path, "hostile_model")
        if p.name == "hostile-tool-pane-set-title.1"
    )
    proc = subprocess.run(
        ["mandoc", "-T", "utf8", "-O", "width=1000", str(path)],
        capture_output=True,
        timeout=30,
        check=True,
    )
    text = proc.stdout.decode("utf-8")
    plain = "".join(
        ch
        for i, ch in enumerate(text)
        if not (ch == "\b" or (i + 1 < len(text) and text[i + 1] == "\b"))
    )
    verb = next(v for v in hostile_model["verbs"] if v["name"] == "pane.set_title")
    assert verb["summary"] in plain
    assert verb["params"][0]["summary"] in plain
    assert "--title 'it'\\''s $(rm -rf ~) `x` \\" in plain
