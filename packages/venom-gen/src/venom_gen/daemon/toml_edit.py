"""Set one key in a TOML document line by line, keeping comments and the order of other keys.

rfcs/0001 §6: ``config.set`` SHOULD preserve what the user wrote. This editor handles what
hand-written configuration files hold (``key = value`` lines under ``[table]`` headers); for
anything else (arrays of tables, dotted keys, values spanning lines) it declines and the caller
rewrites the whole file. Every edit is checked by parsing the result: it must be exactly the
intended document, or the edit is declined.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from typing import Any

from .toml_write import dumps_toml, toml_key, toml_value

__all__ = ("edit_or_rewrite", "set_key")

_HEADER = re.compile(r"\s*\[([^\[\]]+)\]\s*(#.*)?$")
_KEYLINE = re.compile(r"(\s*)([A-Za-z0-9_-]+|\"[^\"\\]*\")(\s*=\s*)(.*)$")


def _table_of(header: str) -> tuple[str, ...] | None:
    try:
        parsed = tomllib.loads(f"[{header}]\n")
    except (tomllib.TOMLDecodeError, RecursionError):
        return None
    path: list[str] = []
    node: Any = parsed
    while isinstance(node, dict) and len(node) == 1:
        ((key, node),) = node.items()
        path.append(key)
    return tuple(path)


_PLAIN = re.compile(r"[^\"'#]*")
_BASIC = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_LITERAL = re.compile(r"'[^'\n]*'")
_BASIC_ML = re.compile(r'"""(?:[^"\\]|\\.|"(?!""))*"""', re.DOTALL)
_LITERAL_ML = re.compile(r"'''(?:[^']|'(?!''))*'''")


def _comment_start(rest: str) -> int | None:
    """Where a comment starts after a value (``len(rest)`` if none), None if a string runs on.

    One left-to-right pass: runs of plain characters are skipped, strings are stepped over
    whole, and the first ``#`` outside a string starts the comment.
    """
    pos, end = 0, len(rest)
    while True:
        plain = _PLAIN.match(rest, pos)
        assert plain is not None  # the pattern matches the empty string
        pos = plain.end()
        if pos == end or rest[pos] == "#":
            return pos
        quote = rest[pos]
        if rest.startswith(quote * 3, pos):
            string = (_BASIC_ML if quote == '"' else _LITERAL_ML).match(rest, pos)
        else:
            string = (_BASIC if quote == '"' else _LITERAL).match(rest, pos)
        if string is None:
            return None  # unterminated on this line: a value spanning lines
        pos = string.end()


def _split_value(rest: str) -> tuple[str, str] | None:
    """``value  # comment`` -> (value, "  # comment"); None if the value does not end here.

    The split is found in one pass and checked with one parse, so a line costs time linear in
    its length whatever it holds (a value of 24,000 ``#`` took 18 s when every ``#`` was tried).
    """
    cut = _comment_start(rest)
    if cut is None:
        return None
    value = rest[:cut].rstrip()
    try:
        tomllib.loads(f"k = {value}\n")
    except (tomllib.TOMLDecodeError, RecursionError):
        return None
    return value, rest[len(value) :]


def set_key(text: str, path: list[str], value: Any, expected: Mapping[str, Any]) -> str | None:
    """``text`` with ``path`` set to ``value`` (``None`` removes it), or None to decline.

    ``expected`` is the whole document as it must parse afterwards.
    """
    table, key = tuple(path[:-1]), path[-1]
    lines = text.splitlines()
    current: tuple[str, ...] | None = ()
    last_in_table: int | None = -1 if not table else None  # top level starts before line 0
    found: int | None = None
    for i, line in enumerate(lines):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("["):
            header = _HEADER.match(line)
            if header is None or stripped.startswith("[["):
                return None
            current = _table_of(header.group(1))
            if current is None:
                return None
            if current == table:
                last_in_table = i
            continue
        match = _KEYLINE.match(line)
        if match is None or _split_value(match.group(4)) is None:
            return None  # a dotted key or a value spanning lines: not ours to edit in place
        if current == table:
            last_in_table = i
            if tomllib.loads(f"{match.group(2)} = 0\n").keys() == {key}:
                found = i
    if found is not None:
        match = _KEYLINE.match(lines[found])
        assert match is not None
        if value is None:
            del lines[found]
        else:
            split = _split_value(match.group(4))
            assert split is not None
            lines[found] = match.group(1) + match.group(2) + match.group(3) + toml_value(value)
            lines[found] += split[1]
    elif value is not None:
        entry = f"{toml_key(key)} = {toml_value(value)}"
        if isinstance(value, Mapping):
            return None
        if last_in_table is None:
            if lines and lines[-1].strip():
                lines.append("")
            lines += ["[" + ".".join(toml_key(k) for k in table) + "]", entry]
        else:
            lines.insert(last_in_table + 1, entry)
    new = "\n".join(lines) + "\n" if lines else ""
    try:
        if tomllib.loads(new) != expected:
            return None
    except (tomllib.TOMLDecodeError, RecursionError):
        return None
    return new


def edit_or_rewrite(text: str, path: list[str], value: Any, expected: Mapping[str, Any]) -> str:
    """The line-wise edit when it applies, else the whole document rewritten."""
    edited = set_key(text, path, value, expected)
    return edited if edited is not None else dumps_toml(expected)
