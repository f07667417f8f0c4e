"""Edit a host's JSON configuration file as text, so everything else in it stays as written.

MCP hosts keep their servers in JSON files that people also edit by hand: VS Code and Zed allow
comments and trailing commas (JSONC), and a file may hold values Python would not write back
the same way (``1e400`` becomes ``Infinity``, which is not JSON). So this module never
re-serializes the user's document. It scans the text once, recording where each member of the
objects on the path starts and ends, splices in the one member it was asked to set, and then
parses the result again: the new document must equal the old one with exactly that member set,
compared value by value with numbers kept as their literal text, or nothing is written.

A value this module writes must read back as itself in the host (a JavaScript or Rust JSON
parser): a string holding a lone surrogate (a path from bytes that are not UTF-8) or a number
that is not finite is refused with `HostFileError`.
"""

from __future__ import annotations

import json
import json.decoder
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ("HostFileError", "dumps_entry", "parse", "set_member")

#: The standard library's JSON string reader (escapes, control characters refused), which
#: typeshed does not list (it is public in json.decoder since Python 2.6).
_scanstring: Callable[[str, int, bool], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]

#: Deeper documents are refused (hosts' files nest three or four levels).
_MAX_DEPTH = 64


class HostFileError(ValueError):
    """The file cannot be parsed, or edited without changing what else it says; ``str()``
    is the reason, worded to follow ``<path>: ``."""


@dataclass
class _Node:
    start: int
    end: int
    #: The value as compared after an edit: objects as lists of (key, value) pairs, numbers
    #: as ``("number", text)``, so duplicates, order and ``1e400`` are compared exactly.
    data: Any
    members: list[_Member] = field(default_factory=list)
    is_object: bool = False
    #: For an object or array: whether its last element is followed by a comma.
    trailing_comma: bool = False


@dataclass
class _Member:
    key: str
    key_start: int
    value: _Node


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0

    def fail(self, what: str) -> HostFileError:
        line = self.text.count("\n", 0, self.i) + 1
        column = self.i - (self.text.rfind("\n", 0, self.i) + 1) + 1
        return HostFileError(f"it is not JSON ({what} at line {line} column {column})")

    def skip(self) -> None:
        text, n = self.text, len(self.text)
        while self.i < n:
            c = text[self.i]
            if c in " \t\r\n\ufeff":
                self.i += 1
            elif text.startswith("//", self.i):
                newline = text.find("\n", self.i)
                self.i = n if newline < 0 else newline + 1
            elif text.startswith("/*", self.i):
                close = text.find("*/", self.i + 2)
                if close < 0:
                    raise self.fail("an unclosed comment")
                self.i = close + 2
            else:
                return

    def value(self, depth: int) -> _Node:
        if depth > _MAX_DEPTH:
            raise self.fail("nesting too deep")
        self.skip()
        if self.i >= len(self.text):
            raise self.fail("a missing value")
        c = self.text[self.i]
        if c == "{":
            return self.object(depth)
        if c == "[":
            return self.array(depth)
        if c == '"':
            start = self.i
            return _Node(start, self.string_end(), self.last_string)
        for literal, data in (("true", True), ("false", False), ("null", None)):
            if self.text.startswith(literal, self.i):
                start, self.i = self.i, self.i + len(literal)
                return _Node(start, self.i, data)
        return self.number()

    last_string = ""

    def string_end(self) -> int:
        try:
            self.last_string, end = _scanstring(self.text, self.i + 1, True)
        except ValueError:
            raise self.fail("an invalid string") from None
        self.i = end
        return end

    def number(self) -> _Node:
        text, start = self.text, self.i
        j = start + (text[start] == "-")
        digits = j
        while j < len(text) and text[j].isascii() and text[j].isdigit():
            j += 1
        if j == digits or (text[digits] == "0" and j - digits > 1):
            raise self.fail("an invalid value")
        if j < len(text) and text[j] == ".":
            j += 1
            frac = j
            while j < len(text) and text[j].isascii() and text[j].isdigit():
                j += 1
            if j == frac:
                raise self.fail("an invalid number")
        if j < len(text) and text[j] in "eE":
            j += 1
            if j < len(text) and text[j] in "+-":
                j += 1
            exp = j
            while j < len(text) and text[j].isascii() and text[j].isdigit():
                j += 1
            if j == exp:
                raise self.fail("an invalid number")
        self.i = j
        return _Node(start, j, ("number", text[start:j]))

    def object(self, depth: int) -> _Node:
        node = _Node(self.i, 0, [], is_object=True)
        self.i += 1
        while True:
            self.skip()
            if self.i >= len(self.text):
                raise self.fail("an unclosed object")
            if self.text[self.i] == "}":
                break
            if node.members and not node.trailing_comma:
                raise self.fail("a missing comma")
            if self.text[self.i] != '"':
                raise self.fail("a member name that is not a string")
            key_start = self.i
            self.string_end()
            key = self.last_string
            self.skip()
            if self.i >= len(self.text) or self.text[self.i] != ":":
                raise self.fail("a missing colon")
            self.i += 1
            value = self.value(depth + 1)
            node.members.append(_Member(key, key_start, value))
            node.data.append((key, value.data))
            self.skip()
            node.trailing_comma = self.i < len(self.text) and self.text[self.i] == ","
            if node.trailing_comma:
                self.i += 1
        self.i += 1
        node.end = self.i
        return node

    def array(self, depth: int) -> _Node:
        node = _Node(self.i, 0, [])
        self.i += 1
        items: list[Any] = []
        while True:
            self.skip()
            if self.i >= len(self.text):
                raise self.fail("an unclosed array")
            if self.text[self.i] == "]":
                break
            if items and not node.trailing_comma:
                raise self.fail("a missing comma")
            items.append(self.value(depth + 1).data)
            self.skip()
            node.trailing_comma = self.i < len(self.text) and self.text[self.i] == ","
            if node.trailing_comma:
                self.i += 1
        self.i += 1
        node.end = self.i
        node.data = ("array", items)
        return node


def _parse(text: str) -> _Node | None:
    scanner = _Scanner(text)
    scanner.skip()
    if scanner.i >= len(text):
        return None
    root = scanner.value(0)
    scanner.skip()
    if scanner.i != len(text):
        raise scanner.fail("text after the document")
    return root


def parse(text: str) -> Any:
    """The document in ``text`` (JSON with comments and trailing commas allowed) as plain
    Python values, numbers as `float` or `int`; `HostFileError` if it is not one."""
    root = _parse(text)
    return None if root is None else _plain(root.data)


def _plain(data: Any) -> Any:
    if isinstance(data, list):
        return {key: _plain(value) for key, value in data}
    if isinstance(data, tuple):
        kind, inner = data
        if kind == "number":
            return json.loads(inner)
        return [_plain(item) for item in inner]
    return data


def _check_writable(value: Any, where: str = "the entry") -> None:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise HostFileError(
                f"{where} holds text that is not valid Unicode ({value!r}), which a host "
                "would read back as another value"
            ) from None
    elif isinstance(value, float) and not math.isfinite(value):
        raise HostFileError(f"{where} holds the number {value!r}, which JSON cannot represent")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            _check_writable(key, where)
            _check_writable(item, where)
    elif isinstance(value, Sequence) and not isinstance(value, bytes):
        for item in value:
            _check_writable(item, where)


def dumps_entry(value: Any, indent: str = "") -> str:
    """``value`` as pretty JSON text whose continuation lines start with ``indent``;
    `HostFileError` for a value a host would not read back as itself."""
    _check_writable(value)
    text = json.dumps(value, indent=2, ensure_ascii=False)
    return text.replace("\n", "\n" + indent)


def _compared(value: Any) -> Any:
    """``value`` in the comparison form of `_Node.data`."""
    if isinstance(value, Mapping):
        return [(key, _compared(item)) for key, item in value.items()]
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return ("number", json.dumps(value))
    return ("array", [_compared(item) for item in value])


def _line_indent(text: str, at: int) -> str:
    line_start = text.rfind("\n", 0, at) + 1
    prefix = text[line_start:at]
    return prefix[: len(prefix) - len(prefix.lstrip(" \t"))]


def _unique(node: _Node, key: str, path: str) -> _Member | None:
    found = [member for member in node.members if member.key == key]
    if len(found) > 1:
        raise HostFileError(f"it has {path} more than once, so the host's reading is ambiguous")
    return found[0] if found else None


def _insert(text: str, node: _Node, key: str, value: Any) -> str:
    """``text`` with the member ``key: value`` added as the last member of ``node``."""
    close = node.end - 1
    outer = _line_indent(text, node.start)
    if node.members:
        inner = _line_indent(text, node.members[0].key_start) or outer + "  "
    else:
        inner = outer + "  "
    member = f"{json.dumps(key, ensure_ascii=False)}: {dumps_entry(value, inner)}"
    line_start = text.rfind("\n", 0, close) + 1
    on_own_line = not text[line_start:close].strip() and line_start > node.start
    if on_own_line:
        piece, at = f"{inner}{member}\n", line_start
    else:
        piece, at = f"\n{inner}{member}\n{outer}", close
    if node.members and not node.trailing_comma:
        last = node.members[-1].value.end
        return text[:last] + "," + text[last:at] + piece + text[at:]
    return text[:at] + piece + text[at:]


def set_member(text: str | None, path: Sequence[str], value: Any) -> str:
    """``text``, a JSON (or JSONC) document, with the member at ``path`` set to ``value``.

    Objects missing on the path are created; every other byte of ``text`` is kept, comments
    and number literals included. Raises `HostFileError` for a document that is not JSON,
    whose top level or a member on the path is not an object, that names a member on the path
    twice, or that the edit would change anywhere else (checked by parsing the result).
    """
    if not path:
        raise ValueError("set_member needs a non-empty path")
    root = _parse(text) if text is not None else None
    if root is None:
        fresh: Any = value
        for key in reversed(path):
            fresh = {key: fresh}
        return dumps_entry(fresh) + "\n"
    assert text is not None
    if not root.is_object:
        raise HostFileError("it is not a JSON object")
    node, depth = root, 0
    for depth, key in enumerate(path[:-1]):
        member = _unique(node, key, ".".join(path[: depth + 1]))
        if member is None:
            rest: Any = value
            for inner_key in reversed(path[depth + 1 :]):
                rest = {inner_key: rest}
            new_text = _insert(text, node, key, rest)
            break
        if not member.value.is_object:
            raise HostFileError(f"its {'.'.join(path[: depth + 1])!r} member is not an object")
        node = member.value
    else:
        last = _unique(node, path[-1], ".".join(path))
        if last is None:
            new_text = _insert(text, node, path[-1], value)
        else:
            indent = _line_indent(text, last.key_start)
            span = last.value
            new_text = text[: span.start] + dumps_entry(value, indent) + text[span.end :]
    _verify(root.data, new_text, path, value)
    return new_text


def _with_member(data: list[tuple[str, Any]], path: Sequence[str], value: Any) -> Any:
    key, rest = path[0], path[1:]
    out, done = [], False
    for member_key, member_value in data:
        if member_key == key:
            member_value = _with_member(member_value, rest, value) if rest else _compared(value)
            done = True
        out.append((member_key, member_value))
    if not done:
        nested: Any = value
        for inner_key in reversed(rest):
            nested = {inner_key: nested}
        out.append((key, _compared(nested)))
    return out


def _verify(before: Any, new_text: str, path: Sequence[str], value: Any) -> None:
    expected = _with_member(before, path, value)
    try:
        after = _parse(new_text)
    except HostFileError:
        after = None
    if after is None or after.data != expected:
        raise HostFileError("it cannot be edited without changing what else it says")
