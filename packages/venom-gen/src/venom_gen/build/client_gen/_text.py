"""Python source text for user strings: string literals, docstrings and ``#:`` comments.

Summaries are plain text from the manifest (RFC-0004 §6); nothing user-supplied reaches the
generated module unescaped. Output is already in ``ruff format`` style (double quotes, wrapped to
the 100-column limit), so the generated module needs no formatter.
"""

from __future__ import annotations

import re
import textwrap

__all__ = ("LINE_LIMIT", "comment_lines", "docstring_lines", "plain", "py_str")

#: The line length the generated module keeps to (the workspace's ruff setting).
LINE_LIMIT = 100

_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]+")


def plain(text: str) -> str:
    """One line of text: control characters and line breaks become single spaces."""
    return _CONTROL.sub(" ", text).strip()


def py_str(text: str) -> str:
    """A Python string literal, double-quoted unless that needs more escapes (ruff's rule)."""
    literal = repr(text)
    if literal.startswith("'") and '"' not in text:
        literal = '"' + literal[1:-1] + '"'
    return literal


def _doc_escape(text: str) -> str:
    text = plain(text).replace("\\", "\\\\").replace('"""', '\\"""')
    return text[:-1] + '\\"' if text.endswith('"') else text


def _wrap(text: str, width: int, *, indent: str = "", hang: str = "") -> list[str]:
    return textwrap.wrap(
        text,
        width=max(width, 20),
        initial_indent=indent,
        subsequent_indent=indent + hang,
        break_long_words=False,
        break_on_hyphens=False,
    ) or [indent.rstrip()]


def docstring_lines(paragraphs: list[list[str]], indent: str) -> list[str]:
    """A docstring at ``indent``: each paragraph is a list of entries, each wrapped on its own.

    An entry that starts with spaces keeps them and wraps with 4 more (for ``Args:`` items).
    A single short entry gives a one-line docstring.
    """
    if len(paragraphs) == 1 and len(paragraphs[0]) == 1:
        only = _doc_escape(paragraphs[0][0])
        line = f'{indent}"""{only}"""'
        if len(line) <= LINE_LIMIT:
            return [line]
        # ruff joins a docstring of one text line with its closing quotes: wrap short of them.
        wrapped = _wrap('"""' + only, LINE_LIMIT - 3, indent=indent)
        if len(wrapped) == 1:
            return [wrapped[0] + '"""']
        return [*wrapped, f'{indent}"""']
    body: list[str] = []
    for number, paragraph in enumerate(paragraphs):
        if number:
            body.append("")
        for entry in paragraph:
            lead = entry[: len(entry) - len(entry.lstrip(" "))]
            text = _doc_escape(entry)
            if not body:
                text = '"""' + text  # glued to the first word, so wrapping counts the quotes
            hang = "    " if lead else ""
            body.extend(_wrap(text, LINE_LIMIT, indent=indent + lead, hang=hang))
    return [*body, f'{indent}"""']


def comment_lines(text: str, indent: str) -> list[str]:
    """``#:`` comment lines (the attribute-doc convention editors show) wrapping ``text``."""
    return _wrap(plain(text), LINE_LIMIT, indent=indent + "#: ")
