"""Unit and plist values read back exactly as meant (issue 27): `render._systemd_quote` and
`render._plist`, checked against an independent reader of each language.

`parse_exec` below reads an ``ExecStart=`` value by the rules of systemd.service(5) "Command
lines" and systemd.unit(5) "Specifiers" (specifiers over the whole value first, then words
split with quotes and C escapes, then ``$$``): a second implementation, so the writer cannot
agree with itself by accident. tests/test_service_files.py runs the real ``systemd-analyze``.
"""

from __future__ import annotations

import json
import plistlib
import shlex
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from venom_gen.local.service_install import install_service
from venom_gen.render._plist import PlistValueError, plist_xml
from venom_gen.render._systemd_quote import UnitValueError, exec_line, exec_word, unit_text
from venom_gen.render.service import render_launchd_plist, render_systemd_service
from venom_proto import VenomError
from venom_schema.model import Model

VIA_SH = ["/bin/sh", "-c", 'exec "$0" "$@"']
MODEL: Model = json.loads((Path(__file__).parent / "fixtures" / "echo_model.json").read_text())

_ESCAPES = {"\\": "\\", '"': '"', "'": "'", "n": "\n", "t": "\t", "s": " ", ";": ";"}


def _specifiers(value: str) -> str:
    out, i = [], 0
    while i < len(value):
        if value[i] == "%":
            if value[i + 1 : i + 2] != "%":
                raise AssertionError(f"an unexpected specifier in {value!r}")
            out.append("%")
            i += 2
        else:
            out.append(value[i])
            i += 1
    return "".join(out)


def parse_exec(value: str) -> list[str]:
    """An ``ExecStart=`` value's words, as systemd reads them."""
    text = _specifiers(value)
    words: list[str] = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i] in " \t":
            i += 1
        if i == n:
            break
        if text[i] == ";" and (i + 1 == n or text[i + 1] in " \t"):
            raise AssertionError("an unquoted ';' separates commands")
        word: list[str] = []
        quote: str | None = None
        while i < n:
            c = text[i]
            if c == "\\":
                word.append(_ESCAPES[text[i + 1]])
                i += 2
            elif quote is not None:
                if c == quote:
                    quote = None
                else:
                    word.append(c)
                i += 1
            elif c in "\"'":
                quote = c
                i += 1
            elif c in " \t":
                break
            else:
                word.append(c)
                i += 1
        assert quote is None, f"unbalanced quoting in {value!r}"
        joined = "".join(word)
        assert "$" not in joined.replace("$$", ""), f"a variable would expand in {value!r}"
        words.append(joined.replace("$$", "$"))
    return words


#: Text systemd can carry: no control character, valid UTF-8.
unit_safe = st.text(
    st.characters(blacklist_categories=("Cc", "Cs"), blacklist_characters="\x85"), min_size=1
)
hostile = st.sampled_from(["/home/o'brien/bin/t", "/opt/100%h/t", '/a "b"/t', "/x\\y/t",
                           "/$HOME/t", "/a;b/t", "/a ; b/t", "/t %%n $$", "/é ü/t"])  # fmt: skip


@given(st.lists(st.one_of(hostile, unit_safe), min_size=1, max_size=4))
@settings(max_examples=600, deadline=None)
def test_every_command_reads_back_as_its_words(words: list[str]) -> None:
    words[0] = "/" + words[0]  # an absolute path, as `service install` gives
    parsed = parse_exec(exec_line(words))
    if set(words[0]) & set("'\"\\$"):  # systemd will not name it: sh runs it, exactly
        assert parsed == [*VIA_SH, *words]
    else:
        assert parsed == words


@given(unit_safe, st.sampled_from(["\n", "\r", "\x00", "\x1b", "\x7f", "\x85", "\ud800"]))
@settings(max_examples=300, deadline=None)
def test_what_the_unit_language_cannot_carry_is_refused(text: str, bad: str) -> None:
    with pytest.raises(UnitValueError):
        exec_word(text + bad)


def test_a_prefix_character_cannot_start_the_command() -> None:
    for first in ("-/bin/t", "@/bin/t", ":x", "+x", "!x"):
        with pytest.raises(UnitValueError):
            exec_line([first])


@given(unit_safe)
@settings(max_examples=300, deadline=None)
def test_free_text_stays_one_line_with_literal_percent(text: str) -> None:
    line = unit_text(text + "\n[Service]\nExecStart=/bin/rm \\")
    assert "\n" not in line
    assert not line.endswith("\\")
    assert _specifiers(line) == " ".join((text + " [Service] ExecStart=/bin/rm").split())


@pytest.mark.parametrize(
    "path", ["/home/o'brien/.local/bin/venom-echo", "/opt/100%h/venom-echo", "/a b/c$d"]
)
def test_the_service_unit_runs_exactly_the_given_path(path: str) -> None:
    """The findings: an apostrophe gave "Unbalanced quoting" and no ExecStart; ``%h`` ran
    another path."""
    unit = render_systemd_service(MODEL, [path])
    (line,) = [x for x in unit.splitlines() if x.startswith("ExecStart=")]
    words = parse_exec(line.removeprefix("ExecStart="))
    assert words in ([path, "serve"], [*VIA_SH, path, "serve"])


def test_a_newline_in_the_path_is_refused_and_nothing_written(tmp_path: Path) -> None:
    """The finding: a newline injected ``ExecStartPre=``. Refused: exit 2, no file."""
    evil = "/tmp/x\nExecStartPre=/bin/touch /tmp/pwned\n/venom-echo"
    for manager in ("systemd", "launchd"):
        with pytest.raises(VenomError) as info:
            install_service(MODEL, [evil], manager=manager, directory=tmp_path / manager)
        assert (info.value.code, info.value.exit_code) == ("invalid_params.command", 2)
        assert (info.value.data or {})["command"] == evil
        assert not (tmp_path / manager).exists()


xml_safe = st.text(
    st.characters(blacklist_categories=["Cs"], blacklist_characters="\r\ufffe\uffff").filter(
        lambda c: c in "\t\n" or ord(c) >= 0x20
    ),
    min_size=1,
)


@given(xml_safe)
@settings(max_examples=500, deadline=None)
def test_the_plist_reads_back_exactly(path: str) -> None:
    command = "/" + path
    job = plistlib.loads(render_launchd_plist(MODEL, [command]).encode("utf-8"))
    script = job["ProgramArguments"][2]
    assert shlex.split(script)[:3] == ["exec", command, "serve"]


@given(xml_safe, st.sampled_from(["\r", "\x00", "\x01", "\x1f", "\ufffe", "\ud800"]))
@settings(max_examples=300, deadline=None)
def test_what_xml_cannot_carry_is_refused(text: str, bad: str) -> None:
    document: dict[str, Any] = {"Label": "x", "ProgramArguments": [text + bad]}
    with pytest.raises(PlistValueError):
        plist_xml(document)
