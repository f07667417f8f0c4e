"""Human rendering of RFC-0004 §3 type descriptors: the one renderer of docs, man pages,
SKILL.md and the CLI's ``--help``.

The output is plain text; callers escape it for their format.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from venom_gen.render._escape import json_compact

if TYPE_CHECKING:  # the CLI's --help renders with this module: keep its start-up small
    from venom_schema.model import Descriptor, Field

__all__ = (
    "FieldRow",
    "flatten_fields",
    "render_choice",
    "render_default",
    "render_member",
    "render_type",
)

_BARE_CHOICE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:/+-]*\Z")
_BARE_MEMBER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def render_choice(choice: str) -> str:
    """A choice bare when it is a plain word, else as a JSON string (quotes, spaces, commas)."""
    return choice if _BARE_CHOICE.match(choice) else json_compact(choice)


def render_member(name: str) -> str:
    """A field name in a documented path: bare when it is a plain identifier, else as a JSON
    string, so that ``a.b`` (one member) never reads as ``a`` then ``b`` (RFC-0004 §2 allows
    any name outside params). Supplementary characters (emoji) print and stay as they are."""
    if _BARE_MEMBER.match(name):
        return name
    # Characters that do not print (format characters such as U+200B or a bidi override,
    # line separators) are written as JSON escapes, so the path shows exactly what it holds.
    return '"' + "".join(_member_char(ch) for ch in json_compact(name)[1:-1]) + '"'


def _member_char(char: str) -> str:
    return char if char.isprintable() else f"\\u{ord(char):04x}"


def render_default(value: Any) -> str:
    """A default value as compact JSON."""
    return json_compact(value)


def _bounds(desc: Descriptor) -> str:
    lo, hi = desc.get("min"), desc.get("max")
    if lo is not None and hi is not None:
        return f" ({json_compact(lo)} to {json_compact(hi)})"
    if lo is not None:
        return f" (min {json_compact(lo)})"
    if hi is not None:
        return f" (max {json_compact(hi)})"
    return ""


def render_type(desc: Descriptor, *, inline: bool = False) -> str:
    """E.g. ``string (one of: plain, upper)``, ``integer (0 to 255)``, ``object or null``.

    ``inline`` spells an object's fields out on the line, ``object {a: string, b?: integer}``
    (``?`` marks an optional field), for one-line contexts such as ``--help``; docs list
    them as rows instead (`flatten_fields`).
    """
    kind = desc["kind"]
    if kind == "string":
        choices = desc.get("choices")
        text = "string"
        if choices:
            text += " (one of: " + ", ".join(render_choice(c) for c in choices) + ")"
    elif kind in ("integer", "number"):
        text = kind + _bounds(desc)
    elif kind == "array":
        inner = render_type(desc["items"], inline=inline)
        text = f"array of ({inner})" if " " in inner else f"array of {inner}"
    elif kind == "object" and inline:
        members = [
            f"{render_member(f['name'])}{'' if f['required'] else '?'}: "
            f"{render_type(f['type'], inline=True)}"
            for f in desc.get("fields", [])
        ]
        text = "object {" + ", ".join(members) + "}"
    else:
        text = str(kind)
    if desc.get("nullable") and kind != "null":
        text += " or null"
    return text


class FieldRow:
    """One documented field: dotted path (``[]`` marks array elements), type and annotations.

    A plain class, not a dataclass: ``--help`` imports this module and ``dataclasses`` would
    cost it several ms.
    """

    __slots__ = ("default", "path", "required", "summary", "type")

    def __init__(
        self, path: str, type: str, required: bool, default: str | None, summary: str
    ) -> None:
        self.path = path
        self.type = type
        self.required = required
        self.default = default
        self.summary = summary

    def __repr__(self) -> str:
        return f"FieldRow({self.path!r}, {self.type!r})"


def _object_of(desc: Descriptor) -> Descriptor | None:
    """The object descriptor reached through ``desc`` and any array nesting, if any."""
    while desc["kind"] == "array":
        desc = desc["items"]
    return desc if desc["kind"] == "object" else None


def _array_suffix(desc: Descriptor) -> str:
    suffix = ""
    while desc["kind"] == "array":
        suffix += "[]"
        desc = desc["items"]
    return suffix


def flatten_fields(fields: list[Field], prefix: str = "") -> list[FieldRow]:
    """Fields in declaration order, each followed by its nested object fields (depth first)."""
    rows: list[FieldRow] = []
    for field in fields:
        path = prefix + render_member(field["name"])
        ftype = field["type"]
        default = render_default(field["default"]) if "default" in field else None
        rows.append(
            FieldRow(path, render_type(ftype), bool(field["required"]), default, field["summary"])
        )
        nested = _object_of(ftype)
        if nested is not None:
            rows.extend(flatten_fields(nested["fields"], path + _array_suffix(ftype) + "."))
    return rows
