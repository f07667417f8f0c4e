"""Escaping of user strings for each output format (RFC-0004 §6: summaries are plain text).

Every generator passes user-supplied text (summaries, choices, example values) through one of
these functions; nothing user-supplied is ever emitted raw.
"""

from __future__ import annotations

import re
from typing import Any

from venom_proto.stdjson import std_dumps

__all__ = (
    "code_fence",
    "json_compact",
    "md_code",
    "md_text",
    "roff_lines",
    "roff_text",
    "sh_quote",
    "yaml_double_quoted",
)

# CommonMark inline syntax plus the GFM table separator. Generators never start a Markdown line
# with user text, so block-level markers (#, >, -, 1.) need no escape.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>&|~!])")


def md_text(text: str) -> str:
    """Escape ``text`` for Markdown inline content, table cells included.

    U+2028 and U+2029 become character references: CommonMark keeps them inline, but many
    editors and tools end a line there, which would cut a table row in two.
    """
    out = _MD_SPECIAL.sub(r"\\\1", text)
    if "\u2028" in out or "\u2029" in out:
        out = out.replace("\u2028", "&#x2028;").replace("\u2029", "&#x2029;")
    return out


def md_code(text: str, *, in_table: bool = False) -> str:
    """``text`` as one Markdown code span, whatever backticks it holds (CommonMark §6.1).

    The fence is one backtick longer than the longest run inside. A space pads text that starts
    or ends with a backtick, or starts and ends with a space: CommonMark strips one space on
    each side of such a span. In a GFM table cell a ``|`` would end the cell even inside the
    span, so it is written ``\\|``.
    """
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    spaced = text[:1] == text[-1:] == " " and text.strip(" ") != ""
    pad = " " if text[:1] == "`" or text[-1:] == "`" or spaced else ""
    body = text.replace("|", "\\|") if in_table else text
    return f"{fence}{pad}{body}{pad}{fence}"


def code_fence(body: str) -> str:
    """A backtick fence longer than any backtick run in ``body`` (at least three)."""
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    return "`" * max(3, longest + 1)


def _roff_char(char: str) -> str:
    return f"\\[u{ord(char):04X}]"


_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def roff_text(text: str) -> str:
    """Escape one line of roff text: ``\\`` becomes ``\\e``; a control character at the start
    (``.`` or ``'``) and trailing blanks are protected with the zero-width ``\\&``; each
    character beyond ASCII becomes ``\\[uXXXX]``, since troff reads its input as Latin-1
    (raw UTF-8 shows as mojibake and trips ``groff -ww``) while both groff and mandoc know
    every such escape."""
    out = text.replace("\\", "\\e")
    if not out.isascii():
        out = _NON_ASCII.sub(lambda m: _roff_char(m.group()), out)
    if out.startswith((".", "'")) or out == "":
        out = "\\&" + out
    if out.endswith((" ", "\t")):
        out += "\\&"
    return out


def roff_lines(text: str) -> list[str]:
    """Escape multi-line text for roff no-fill blocks, one escaped line per input line."""
    return [roff_text(line) for line in text.split("\n")]


_SH_SAFE = re.compile(r"[A-Za-z0-9_@%+=:,./-]+\Z")


def sh_quote(word: str) -> str:
    """POSIX shell quoting: bare when safe, otherwise single quotes, ``'`` written ``'\\''``."""
    if _SH_SAFE.match(word):
        return word
    return "'" + word.replace("'", "'\\''") + "'"


def json_compact(value: Any) -> str:
    """Compact, key-order-preserving JSON with UTF-8 text kept (the CLI's output style): the
    one compact encoder, `venom_proto.stdjson.std_dumps`."""
    return std_dumps(value).decode()


_YAML_NAMED = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0"}


def _yaml_char(ch: str) -> str:
    named = _YAML_NAMED.get(ch)
    if named is not None:
        return named
    cp = ord(ch)
    # C0/C1 controls, DEL, line/paragraph separators, BOM and non-characters are not
    # printable in YAML 1.2 and must be escaped inside a double-quoted scalar.
    if cp < 0x20 or 0x7F <= cp <= 0x9F or cp in (0x2028, 0x2029, 0xFEFF, 0xFFFE, 0xFFFF):
        return f"\\u{cp:04X}"
    if 0xD800 <= cp <= 0xDFFF:
        raise ValueError(f"lone surrogate U+{cp:04X} cannot be written as UTF-8")
    return ch


def yaml_double_quoted(text: str) -> str:
    """A YAML 1.2 double-quoted scalar holding exactly ``text``."""
    return '"' + "".join(_yaml_char(ch) for ch in text) + '"'
