"""One typed method per daemon verb, for the blocking and the anyio client class.

Optional params default to ``ABSENT`` and are left out of the request, so the daemon inserts its
declared default and "absent" stays distinct from an explicit ``None`` (JSON null).
"""

from __future__ import annotations

from dataclasses import dataclass

from venom_gen.build.client_gen._names import arg_name
from venom_gen.build.client_gen._text import docstring_lines, plain, py_str
from venom_gen.build.client_gen._types import field_note
from venom_schema.model import Field, Verb

__all__ = ("VerbTypes", "render_method", "verb_types_params")


@dataclass(frozen=True)
class VerbTypes:
    """The annotations one verb's method needs, registered by the caller."""

    method: str
    #: ``(wire name, keyword argument, annotation, field)`` per param, in manifest order.
    params: list[tuple[str, str, str, Field]]
    result: str
    item: str | None


def _doc(verb: Verb, types: VerbTypes) -> list[list[str]]:
    summary = plain(str(verb.get("summary", ""))).rstrip(".") + "."
    paragraphs = [[f"``{verb['name']}``: {summary}"]]
    if types.item is not None:
        paragraphs.append(["Returns a stream: iterate it for the items, then read its result."])
    if types.params:
        args = [f"    {arg}: {field_note(field)}" for _, arg, _, field in types.params]
        paragraphs.append(["Args:", *args])
    raises = ["Raises:", "    VenomError: The daemon's or the transport's error."]
    errors = verb.get("errors", [])
    if errors:
        raises[1] = "    VenomError: The daemon's or the transport's error; declared codes:"
        for error in errors:
            note = plain(str(error.get("summary", ""))).rstrip(".")
            raises.append(f"        ``{plain(str(error['code']))}``: {note}.")
    paragraphs.append(raises)
    return paragraphs


def _signature(types: VerbTypes, returns: str, *, is_async: bool) -> list[str]:
    prefix = "    async def" if is_async else "    def"
    if not types.params:
        return [f"{prefix} {types.method}(self) -> {returns}:"]
    lines = [f"{prefix} {types.method}(", "        self,", "        *,"]
    for _, arg, annotation, field in types.params:
        if field.get("required", False):
            lines.append(f"        {arg}: {annotation},")
        else:
            lines.append(f"        {arg}: {annotation} | Absent = ABSENT,")
    return [*lines, f"    ) -> {returns}:"]


def render_method(verb: Verb, types: VerbTypes, *, is_async: bool) -> list[str]:
    """The method's lines, indented for the class body."""
    wire = py_str(str(verb["name"]))
    if types.item is None:
        returns = types.result
    else:
        stream = "AsyncStream" if is_async else "Stream"
        returns = f"{stream}[{types.item}, {types.result}]"
    lines = _signature(types, returns, is_async=is_async)
    lines += docstring_lines(_doc(verb, types), "        ")
    if types.params:
        lines.append("        params: dict[str, object] = {")
        lines += [f"            {py_str(key)}: {arg}," for key, arg, _, _ in types.params]
        lines.append("        }")
        request = "_present(params)"
    else:
        request = "{}"
    wait = "await " if is_async else ""
    if types.item is not None:
        lines.append(f"        call = {wait}self.raw.stream({wire}, {request})")
        lines.append(f"        return {stream}(call)")
    elif types.result == "None":
        lines.append(f"        {wait}self.raw.call({wire}, {request})")
    else:
        lines.append(f"        result = {wait}self.raw.call({wire}, {request})")
        lines.append(f"        return cast({py_str(types.result)}, result)")
    return lines


def verb_types_params(verb: Verb) -> list[tuple[str, str, Field]]:
    """``(wire name, keyword argument, field)`` per param (the annotation comes later)."""
    return [(str(f["name"]), arg_name(str(f["name"])), f) for f in verb.get("params", [])]
