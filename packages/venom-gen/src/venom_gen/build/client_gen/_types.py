"""RFC-0004 §3 type descriptors as Python annotations, plus the TypedDicts and Literal aliases
they need, rendered in definition order (a nested type before the type that uses it).

``string`` -> ``str`` (choices: a ``Literal`` alias), ``boolean`` -> ``bool``, ``integer`` ->
``int``, ``number`` -> ``float``, ``null`` -> ``None``, ``array`` -> ``list[...]``, ``object`` ->
a ``TypedDict`` whose optional fields are ``NotRequired``; ``nullable`` adds ``| None``.
Bounds are not types; they appear in docstrings and the daemon enforces them.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Sequence

from venom_gen.build.client_gen._names import NameTable, member_camel
from venom_gen.build.client_gen._text import (
    LINE_LIMIT,
    comment_lines,
    docstring_lines,
    plain,
    py_str,
)
from venom_gen.render._escape import json_compact
from venom_gen.render._views import GenerationError
from venom_schema.model import Descriptor, Field

__all__ = ("TypeRegistry", "field_note")

Desc = Descriptor  # the short name the renderers below use

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def field_note(field: Field) -> str:
    """A field's summary plus its bounds and default, as one sentence-ish line."""
    note = plain(str(field.get("summary", ""))).rstrip(".")
    desc = field["type"]
    bounds = [f"{key} {json_compact(desc[key])}" for key in ("min", "max") if key in desc]
    if bounds:
        note += f" ({', '.join(bounds)})"
    if "default" in field:
        note += f"; default {json_compact(field['default'])}"
    return note + "."


class TypeRegistry:
    """Collects the module-level type definitions of one product's verbs.

    Params have two forms: as a caller sends them (``sent``: a field with a default may be
    left out) and as a handler receives them (``received``: the daemon has inserted every
    default). An object type with a default at any depth therefore has two definitions; the
    received one is named ``<Verb>Params...`` and the sent one ``<Verb>Args...`` (see
    `sent_params`). Everything else is defined once: a second identical definition of a name
    is the same type, a different one is a `GenerationError`.
    """

    def __init__(self, names: NameTable) -> None:
        self._names = names
        #: True while rendering params as a handler receives them: the daemon has inserted
        #: every default, so a field with one is always present (not ``NotRequired``).
        self.received = False
        #: While rendering params as a caller sends them: ``(params prefix, args prefix)``.
        self._sent: tuple[str, str] | None = None
        #: Rendered definitions, each a list of lines, in dependency order.
        self.blocks: list[list[str]] = []
        self._defined: dict[str, list[str]] = {}
        #: Every name defined or reused, in order (nested types first), for re-exports.
        self.reached: list[str] = []
        #: ``typing`` names the definitions use.
        self.typing_names: set[str] = set()

    def annotation(self, desc: Desc, name: str, doc: str) -> str:
        """The annotation for ``desc``; ``name`` names any alias or TypedDict it needs."""
        kind = desc["kind"]
        if kind == "null":
            return "None"
        if kind == "object":
            fields = desc.get("fields", [])
            base = self._typed_dict(name, self._shown(name, fields), doc, fields)[0]
        elif kind == "array":
            items = self.annotation(desc["items"], name + "Item", f"An item of {doc}")
            base = f"list[{items}]"
        elif kind == "string" and desc.get("choices"):
            base = self._literal(name, doc, [str(c) for c in desc["choices"]])
        else:
            base = {"string": "str", "boolean": "bool", "integer": "int", "number": "float"}[kind]
        return f"{base} | None" if desc.get("nullable") else base

    def sent_params(self, base: str, fields: Sequence[Field]) -> list[str]:
        """Each param's annotation as a caller sends it, for the verb whose types are named
        ``base`` (``EchoTypes``); defines the types they need but no ``<base>Params``."""
        self._sent = (base + "Params", base + "Args")
        try:
            return self._entries(base + "Params", fields)[1]
        finally:
            self._sent = None

    def _shown(self, name: str, fields: Sequence[Field]) -> str:
        if self._sent is None or not _has_default(fields):
            return name
        params, args = self._sent
        return args + name[len(params) :] if name.startswith(params) else name

    def _define(self, name: str, lines: list[str]) -> None:
        previous = self._defined.setdefault(name, lines)
        if previous is lines:
            self.blocks.append(lines)
        elif previous != lines:
            raise GenerationError(f"Python name {name!r} is generated for two different types")

    def _literal(self, name: str, doc: str, choices: list[str]) -> str:
        self._names.claim(name, doc)
        self.typing_names.update(("Literal", "TypeAlias"))
        values = [py_str(choice) for choice in choices]
        one_line = f"{name}: TypeAlias = Literal[{', '.join(values)}]"
        if len(one_line) <= LINE_LIMIT:
            lines = [one_line]
        else:  # the magic trailing comma keeps ruff from joining it again
            lines = [f"{name}: TypeAlias = Literal[", *(f"    {v}," for v in values), "]"]
        self._define(name, [*comment_lines(doc, ""), *lines])
        self.reached.append(name)
        return name

    def typed_dict(self, name: str, doc: str, fields: Sequence[Field]) -> str:
        """Define a TypedDict ``name`` for ``fields`` (nested types first); return ``name``."""
        return self._typed_dict(name, name, doc, fields)[0]

    def _typed_dict(
        self, name: str, shown: str, doc: str, fields: Sequence[Field]
    ) -> tuple[str, list[str]]:
        """Define ``shown`` (nested types named after ``name``); return it and the fields'
        annotations (without ``NotRequired``)."""
        self._names.claim(shown, doc)
        entries, annotations = self._entries(name, fields)
        self.typing_names.add("TypedDict")
        if any(value.startswith("NotRequired[") for _, value, _ in entries):
            self.typing_names.add("NotRequired")
        if _class_syntax_fits(entries):
            self._define(shown, _class(shown, doc, entries))
        else:
            self._define(shown, _functional(shown, doc, entries))
        self.reached.append(shown)
        return shown, annotations

    def _entries(
        self, name: str, fields: Sequence[Field]
    ) -> tuple[list[tuple[str, str, str]], list[str]]:
        entries: list[tuple[str, str, str]] = []
        annotations: list[str] = []
        parts: set[str] = set()
        for field in fields:
            key = str(field["name"])
            note = field_note(field)
            part = _unique(member_camel(key), parts)
            value = self.annotation(field["type"], name + part, f"{name}.{key}: {note}")
            annotations.append(value)
            present = field.get("required", False) or (self.received and "default" in field)
            if not present:
                value = f"NotRequired[{value}]"
            entries.append((key, value, note))
        return entries, annotations


def _has_default(fields: Sequence[Field]) -> bool:
    """Whether a field at any depth has a default (so sent and received forms differ)."""
    for field in fields:
        desc = field["type"]
        while desc["kind"] == "array":
            desc = desc["items"]
        nested = desc.get("fields", []) if desc["kind"] == "object" else []
        if "default" in field or _has_default(nested):
            return True
    return False


def _unique(part: str, taken: set[str]) -> str:
    """``part``, or ``part2``, ``part3``... for the first not yet in ``taken`` (then taken)."""
    candidate, n = part, 1
    while candidate in taken:
        n += 1
        candidate = f"{part}{n}"
    taken.add(candidate)
    return candidate


def _class_syntax_fits(entries: list[tuple[str, str, str]]) -> bool:
    """Whether every key can be a class attribute spelled as itself.

    Not: a keyword (``from``), a name Python would change (``__x`` is mangled in a class
    body, non-ASCII identifiers are NFKC-normalized), anything that is no identifier
    (``created at``), or a name the annotations use (``str: str`` would shadow the type).
    The functional syntax takes any string key.
    """
    used = {word for _, value, _ in entries for word in _IDENTIFIER.findall(value)}
    return all(
        key.isascii()
        and key.isidentifier()
        and not keyword.iskeyword(key)
        and not key.startswith("__")
        and key not in used
        for key, _, _ in entries
    )


def _class(name: str, doc: str, entries: list[tuple[str, str, str]]) -> list[str]:
    lines = [f"class {name}(TypedDict):", *docstring_lines([[doc]], "    ")]
    for key, value, note in entries:
        lines += ["", *comment_lines(note, "    "), f"    {key}: {value}"]
    return lines


def _functional(name: str, doc: str, entries: list[tuple[str, str, str]]) -> list[str]:
    # For keys that cannot be class attributes (see _class_syntax_fits).
    lines = [*comment_lines(doc, ""), f"{name} = TypedDict(", f"    {py_str(name)},", "    {"]
    for key, value, note in entries:
        lines += [*comment_lines(note, "        "), f"        {py_str(key)}: {value},"]
    return [*lines, "    },", ")"]
