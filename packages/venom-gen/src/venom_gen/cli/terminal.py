"""Text that is safe on a terminal, its width there, and whether to colour it (rfcs/0004 D-S61).

Every string that comes from a daemon, a remote host or a file goes through one of these
before a human-mode write, so that no such string can move the cursor, retitle the terminal,
write the clipboard (OSC 52) or reorder what a person reads (bidi overrides):

- `escape`: one line (a value, a table cell, an error message). C0 controls (newline
  included), DEL and C1 controls become ``\\n``, ``\\t``, ``\\r`` or ``\\xNN`` (C0, DEL),
  ``\\u0085`` (C1); the bidi embeddings, overrides and isolates (U+202A-U+202E,
  U+2066-U+2069) ``\\u202e``; a backslash ``\\\\``. Injective: the text can be read back.
- `escape_lines`: the same, but a newline stays a newline (a multi-line value).
- `escape_document`: newlines and backslashes stay as they are (SKILL.md, help): a document
  that a person may redirect to a file keeps its bytes but for the controls.

Text holding bytes that are not UTF-8 (surrogate escapes from argv or the environment) shows
each such byte as ``\\xNN`` (NN at least 80), never confused with an escaped control.

Colour (`colour_wanted`): only on a terminal, never with ``NO_COLOR`` set and not empty,
always with ``CLICOLOR_FORCE`` set and not ``0`` (https://no-color.org,
https://bixense.com/clicolors), ``NO_COLOR`` winning over both.

On the path of a human-mode CLI call: standard library built-ins only, no ``re``;
``unicodedata`` loads only to measure text that is not ASCII.
"""

from __future__ import annotations

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would cost every call ~3 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = (
    "BOLD",
    "ERROR",
    "colour_wanted",
    "display_width",
    "escape",
    "escape_document",
    "escape_lines",
    "paint",
)

#: SGR parameters of the two styles used: table headers, the error prefix.
BOLD = "1"
ERROR = "1;31"

_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}
_BIDI = (*range(0x202A, 0x202F), *range(0x2066, 0x206A))


def _spelling(code: int) -> str:
    char = chr(code)
    if char in _NAMED:
        return _NAMED[char]
    return f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}"


_CONTROLS = (*range(0x20), 0x7F, *range(0x80, 0xA0), *_BIDI)
#: The translation tables (document, lines, line), built on first need: most output has no
#: control character, and building them costs ~50 us of a call's start-up.
_TABLES: list[dict[int, str]] = []


def _table(which: int) -> dict[int, str]:
    if not _TABLES:
        document = {code: _spelling(code) for code in _CONTROLS if code != 0x0A}
        lines = {**document, 0x5C: "\\\\"}
        _TABLES.extend((document, lines, {**lines, 0x0A: "\\n"}))
    return _TABLES[which]


def _utf8(text: str) -> str:
    # A lone surrogate cannot be written; one that stands for a byte shows as \xNN.
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a surrogate that no byte was escaped to
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def escape(text: str) -> str:
    """``text`` as one line a terminal shows as it is: no control survives, injectively."""
    if text.isprintable() and "\\" not in text:
        return text  # the usual case, including any printable non-ASCII text
    return _utf8(text.translate(_table(2)))


def escape_lines(text: str) -> str:
    """`escape`, keeping each newline as a line break."""
    if text.isprintable() and "\\" not in text:
        return text
    return _utf8(text.translate(_table(1)))


def escape_document(text: str) -> str:
    """``text`` with its controls escaped but its newlines and backslashes as they are."""
    if text.isascii() and text.isprintable():
        return text
    return _utf8(text.translate(_table(0)))


def display_width(text: str) -> int:
    """Columns ``text`` (already escaped) takes on a terminal: East Asian wide and fullwidth
    characters take two, combining marks and format characters none."""
    if text.isascii():
        return len(text)
    from unicodedata import category, east_asian_width

    width = 0
    for char in text:
        if char.isascii():
            width += 1
        elif category(char) in ("Mn", "Me", "Cf"):
            continue
        else:
            width += 2 if east_asian_width(char) in ("W", "F") else 1
    return width


def colour_wanted(stream: object, environ: Mapping[str, str]) -> bool:
    """Whether to colour what is written to ``stream``: see the module's rule."""
    if environ.get("NO_COLOR"):
        return False
    force = environ.get("CLICOLOR_FORCE")
    if force and force != "0":
        return True
    if environ.get("CLICOLOR") == "0" or environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if isatty is not None else False
    except (OSError, ValueError):
        return False


def paint(text: str, style: str, on: bool) -> str:
    """``text`` in the SGR ``style`` (`BOLD`, `ERROR`) when ``on``, else as it is."""
    return f"\x1b[{style}m{text}\x1b[0m" if on and text else text
