"""One method template for each daemon verb, filled for the blocking and the anyio class.

Optional params default to ``ABSENT``; `venom_proto.typed` leaves them out of the request, so the
daemon inserts its declared default and "absent" stays distinct from an explicit ``None`` (JSON
null). The method's text is ``ruff format``'s, so the generated module needs no formatter.
"""

from __future__ import annotations

from dataclasses import dataclass

from venom_gen.build.client_gen._names import arg_name
from venom_gen.build.client_gen._runtime import Flavor
from venom_gen.build.client_gen._text import LINE_LIMIT, docstring_lines, plain, py_str
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


def _fits(line: str) -> bool:
    return len(line) <= LINE_LIMIT


def _signature(types: VerbTypes, returns: str, flavor: Flavor) -> list[str]:
    """The ``def`` line(s) the way ruff formats them: on one line when it fits, else the
    parameters on one indented line, else one per line with a magic trailing comma."""
    params = ["self"]
    if types.params:
        params.append("*")
    for _, arg, annotation, field in types.params:
        optional = "" if field.get("required", False) else " | Absent = ABSENT"
        params.append(f"{arg}: {annotation}{optional}")
    head, tail = f"    {flavor.define} {types.method}(", f") -> {returns}:"
    one = head + ", ".join(params) + tail
    if _fits(one):
        return [one]
    middle = "        " + ", ".join(params)
    if _fits(middle) and _fits("    " + tail):
        return [head, middle, "    " + tail]
    return [head, *(f"        {param}," for param in params), "    " + tail]


def _request(types: VerbTypes) -> str:
    pairs = [f"{py_str(key)}: {arg}" for key, arg, _, _ in types.params]
    return "{" + ", ".join(pairs) + "}"


def _body(wire: str, types: VerbTypes, flavor: Flavor) -> list[str]:
    """``return cast(Result, self._call(wire, {...}))`` in as few lines as ruff allows. The
    layout is chosen for the longer, awaiting line, so both classes' bodies read alike."""
    if types.item is not None:
        call, wrap = "_stream", "{}"
    elif types.result == "None":
        call, wrap = "_call", "{}"
    else:
        call, wrap = "_call", f"cast({py_str(types.result)}, {{}})"
    keep = "" if types.result == "None" and types.item is None else "return "

    def statement(request: str, wait: str = "await ") -> str:
        return f"        {keep}{wrap.format(f'{wait}self.{call}({wire}, {request})')}"

    if _fits(statement(_request(types))):
        return [statement(_request(types), flavor.wait)]
    request = f"        params = {_request(types)}"
    if not _fits(request):
        pairs = [f"            {py_str(key)}: {arg}," for key, arg, _, _ in types.params]
        lines = ["        params = {", *pairs, "        }"]
    else:
        lines = [request]
    if _fits(statement("params")) or not keep or wrap == "{}":
        return [*lines, statement("params", flavor.wait)]
    result = f"        result = {flavor.wait}self.{call}({wire}, params)"
    return [*lines, result, f"        return cast({py_str(types.result)}, result)"]


def render_method(verb: Verb, types: VerbTypes, flavor: Flavor, *, full_doc: bool) -> list[str]:
    """The method's lines, indented for the class body; ``full_doc`` adds the arguments and
    errors to its summary."""
    if types.item is None:
        returns = types.result
    else:
        returns = f"{flavor.stream}[{types.item}, {types.result}]"
    paragraphs = _doc(verb, types)
    lines = _signature(types, returns, flavor)
    lines += docstring_lines(paragraphs if full_doc else paragraphs[:1], "        ")
    return lines + _body(py_str(str(verb["name"])), types, flavor)


def verb_types_params(verb: Verb) -> list[tuple[str, str, Field]]:
    """``(wire name, keyword argument, field)`` per param (the annotation comes later)."""
    return [(str(f["name"]), arg_name(str(f["name"])), f) for f in verb.get("params", [])]
