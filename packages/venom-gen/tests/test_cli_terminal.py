"""`venom_gen.cli.terminal`: no control character survives escaping, the escaping reads back
(injective), printable text is left alone, and colour follows NO_COLOR and CLICOLOR_FORCE
(rfcs/0004 D-S61, D-S63)."""

from __future__ import annotations

import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from venom_gen.cli.terminal import (
    colour_wanted,
    display_width,
    escape,
    escape_document,
    escape_lines,
    paint,
)

#: What a terminal acts on: C0, DEL, C1, bidi embeddings, overrides and isolates.
CONTROLS = {
    *map(chr, range(0x20)),
    "\x7f",
    *map(chr, range(0x80, 0xA0)),
    *map(chr, range(0x202A, 0x202F)),
    *map(chr, range(0x2066, 0x206A)),
}
NASTY = st.sampled_from(sorted(CONTROLS | {"\\", "x", "u", "0", "1", "b", "\u6f22", "\u00e9"}))
TEXT = st.text(st.one_of(st.characters(), NASTY), max_size=60)


def unescape(text: str) -> str:
    """The inverse of `escape` (and of `escape_lines`, which leaves newlines as they are)."""
    out, i = [], 0
    while i < len(text):
        char = text[i]
        if char != "\\":
            out.append(char)
            i += 1
            continue
        tag = text[i + 1]
        if tag in "\\ntr":
            out.append({"\\": "\\", "n": "\n", "t": "\t", "r": "\r"}[tag])
            i += 2
        elif tag == "x":
            code = int(text[i + 2 : i + 4], 16)
            out.append(chr(code) if code < 0x80 else chr(0xDC00 + code))  # a raw byte
            i += 4
        else:
            assert tag == "u", text
            out.append(chr(int(text[i + 2 : i + 6], 16)))
            i += 6
    return "".join(out)


@given(TEXT)
def test_no_control_survives(text: str) -> None:
    assert not (set(escape(text)) & CONTROLS)
    for shown in (escape_lines(text), escape_document(text)):  # a newline is structure there
        assert not (set(shown) & (CONTROLS - {"\n"})), repr(shown)


@given(TEXT)
def test_escape_is_injective_and_reads_back(text: str) -> None:
    assert unescape(escape(text)) == text
    assert unescape(escape_lines(text)) == text


@given(st.text(st.characters(blacklist_categories=("Cc", "Cf", "Cs")), max_size=60))
def test_printable_text_is_left_alone(text: str) -> None:
    """Readable: text a terminal shows as it is stays byte for byte, backslashes aside."""
    assert escape_document(text) == text
    assert escape(text) == text.replace("\\", "\\\\")


@given(st.binary(max_size=40))
def test_bytes_that_are_not_utf8_show_as_hex_and_never_as_a_control(data: bytes) -> None:
    text = data.decode("utf-8", "surrogateescape")  # how argv and the environment arrive
    shown = escape(text)
    shown.encode("utf-8")  # writable
    assert unescape(shown) == text


def test_spellings() -> None:
    assert escape("\x1b]52;c;aGk=\x07") == "\\x1b]52;c;aGk=\\x07"
    assert escape("a\nb\tc\r\\") == "a\\nb\\tc\\r\\\\"
    assert escape("\x9b\u202e\u2066\x7f") == "\\u009b\\u202e\\u2066\\x7f"
    assert escape_lines("a\nb\x1b") == "a\nb\\x1b"
    assert escape_document("C:\\dir\n\x1b[2J") == "C:\\dir\n\\x1b[2J"
    assert escape("\udcff") == "\\xff"  # a byte that is not UTF-8, never read as U+00FF


@pytest.mark.parametrize(
    ("text", "width"),
    [("abc", 3), ("\u6f22\u5b57", 4), ("\uff21", 2), ("e\u0301", 1), ("\u00e9", 1), ("", 0)],
)
def test_display_width_counts_terminal_columns(text: str, width: int) -> None:
    assert display_width(text) == width


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("tty", "environ", "wanted"),
    [
        (True, {}, True),
        (False, {}, False),
        (True, {"NO_COLOR": "1"}, False),
        (True, {"NO_COLOR": ""}, True),  # set but empty: no-color.org says it does not count
        (False, {"CLICOLOR_FORCE": "1"}, True),
        (False, {"CLICOLOR_FORCE": "0"}, False),
        (False, {"CLICOLOR_FORCE": "1", "NO_COLOR": "1"}, False),  # NO_COLOR wins
        (True, {"CLICOLOR": "0"}, False),
        (True, {"TERM": "dumb"}, False),
    ],
)
def test_colour_only_on_a_terminal(tty: bool, environ: dict[str, str], wanted: bool) -> None:
    stream = _Tty() if tty else io.StringIO()
    assert colour_wanted(stream, environ) is wanted
    assert colour_wanted(object(), {}) is False  # a stream without isatty


def test_paint() -> None:
    assert paint("x", "1", True) == "\x1b[1mx\x1b[0m"
    assert paint("x", "1", False) == "x"
    assert paint("", "1", True) == ""
