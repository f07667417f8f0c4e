"""``venom-gen handler-types``: the typed face of a product's handlers, as a generated module.

`render_handler_types` turns the normalized model into a module with, for each product verb
(the ``daemon`` surface less the shared verbs the daemon answers itself): a TypedDict of the
params as the handler receives them (validated, every default inserted), the result and the
stream item; a ``Protocol`` with one method per verb; and ``bind_handlers``, which maps an
implementation of that protocol to the ``{wire name: handler}`` mapping `Product.handlers`
returns. ``mypy --strict`` then checks each handler's keys, types and results against the
schema. Typing only: the daemon hands handlers the same plain dicts and validates what they
return, so the hot path is unchanged. The types themselves are the product's generated
``verb_types`` module (`venom_gen.build.verb_types`), which this one imports and re-exports the
product verbs' types of; otherwise it imports venom-proto and ``typing`` only.
"""

from __future__ import annotations

import keyword

from venom_gen.build.client_gen._names import NameTable, camel
from venom_gen.build.client_gen._table import (
    MODULE,
    all_lines,
    header,
    import_lines,
    isort_key,
    verb_type_table,
)
from venom_gen.build.client_gen._text import LINE_LIMIT, docstring_lines, plain, py_str
from venom_schema.model import Model, Verb
from venom_schema.surfaces import verbs_on

__all__ = ("handler_verbs", "protocol_name", "render_handler_types")

_STREAMING_CALL = '''
ItemT_contra = TypeVar("ItemT_contra", contravariant=True)


class StreamingCall(Protocol[ItemT_contra]):
    """The `Call` a streaming verb's handler gets: ``emit`` takes only that verb's items.

    The daemon passes its ordinary `Call` (which validates every item before it is sent);
    this protocol only narrows what the type checker lets a handler emit.
    """

    @property
    def id(self) -> int | str: ...

    @property
    def verb(self) -> str: ...

    @property
    def connection(self) -> ConnectionInfo: ...

    @property
    def cancelled(self) -> bool: ...

    async def emit(self, item: ItemT_contra, /) -> None: ...
'''.strip("\n")


def handler_verbs(model: Model) -> list[Verb]:
    """The verbs a product writes handlers for: daemon verbs that no standard bundle supplies."""
    return [verb for verb in verbs_on(model, "daemon") if "shared" not in verb]


def protocol_name(tool: str) -> str:
    """``venom-echo`` -> ``VenomEchoHandlers``."""
    return camel(tool) + "Handlers"


def _method(wire: str) -> str:
    name = wire.replace(".", "_")
    return name + "_" if keyword.iskeyword(name) or name == "self" else name


def _signature(name: str, call: str, params: str, result: str) -> list[str]:
    returns = f"Awaitable[{result}] | {result}"
    one = f"    def {name}(self, call: {call}, params: {params}, /) -> {returns}:"
    if len(one) <= LINE_LIMIT:
        return [one]
    middle = f"        self, call: {call}, params: {params}, /"
    if len(middle) <= LINE_LIMIT:
        return [f"    def {name}(", middle, f"    ) -> {returns}:"]
    return [
        f"    def {name}(",
        "        self,",
        f"        call: {call},",
        f"        params: {params},",
        "        /,",
        f"    ) -> {returns}:",
    ]


def render_handler_types(model: Model) -> str:
    """The handler-types module for ``model`` (a normalized model) as Python source.

    Deterministic, ``ruff format`` clean and ``mypy --strict`` clean as generated. Raises
    `venom_gen.render._views.GenerationError` when two verbs or types would get one Python name.
    """
    tool = str(model["tool"])
    protocol = protocol_name(tool)
    table = verb_type_table(model)
    methods = NameTable("handler method", frozenset({"self"}))
    members: list[list[str]] = []
    binds: list[str] = []
    reexported: list[str] = []
    streams = False
    for verb in handler_verbs(model):
        wire = str(verb["name"])
        names = table.verbs[wire]
        method = methods.claim(_method(wire), f"verb {wire!r}")
        reexported += names.reached
        call = "Call"
        if names.item is not None:
            streams = True
            call = f"StreamingCall[{names.item}]"
        summary = plain(str(verb.get("summary", ""))).rstrip(".")
        members.append(
            [
                *_signature(method, call, str(names.params), names.result),
                *docstring_lines([[f"``{wire}``: {summary}."]], "        "),
            ]
        )
        binds.append(f"    {py_str(wire)}: {py_str(method)},")
    reexported = sorted(set(reexported), key=isort_key)
    typing_names = ["Protocol", *(["TypeVar"] if streams else []), "cast"]
    public = [*(["StreamingCall"] if streams else []), protocol, "bind_handlers", *reexported]
    doc = [
        [f"Typed handlers for {tool}: {plain(str(model.get('summary', ''))).rstrip('.')}."],
        [
            "Each product verb's params as its handler receives them (validated, every default "
            "inserted: a param with a default is always present, an optional one without is "
            f"``NotRequired``), its result and its stream items, from ``{MODULE}`` (re-exported "
            f"here). `{protocol}` has one method "
            "per verb, named by the wire name with dots as underscores; `bind_handlers` maps "
            "an implementation of it to the handlers by exact wire name that the product's "
            "``handlers`` function returns. Typing only: the daemon passes the same plain dicts "
            "and validates every result and item, so a call costs nothing more."
        ],
    ]
    proto = ["Call", "ConnectionInfo", "Handler"] if streams else ["Call", "Handler"]
    head = [
        *header("handler-types", model),
        *docstring_lines(doc, ""),
        "",
        "from __future__ import annotations",
        "",
        "from collections.abc import Awaitable",
        *import_lines("typing", typing_names),
        "",
        *import_lines("venom_proto", proto),
        "",
        *import_lines("." + MODULE, reexported),
        "",
        *all_lines(public),
    ]
    if not reexported:
        del head[-3:-1]
    blocks: list[list[str]] = [head]
    if streams:
        blocks.append(_STREAMING_CALL.split("\n"))
    protocol_doc = (
        f"One method per {tool} verb: implement it (a plain class will do; it need not "
        "inherit this one) and pass an instance to `bind_handlers`. A method may be ``def`` "
        "or ``async def``."
    )
    body = [f"class {protocol}(Protocol):", *docstring_lines([[protocol_doc]], "    ")]
    for member in members:
        body += ["", *member]
    blocks.append(body)
    bind_doc = (
        "``handlers``' methods by exact wire name, for the product's ``handlers`` function. "
        "A method it lacks is left out, so the daemon refuses to start with one line naming "
        "the missing and the extra handlers (rfcs/0004-schema-decisions.md D-S55), never an "
        "``AttributeError``."
    )
    blocks.append(
        [
            "#: Each verb's wire name and the method of `bind_handlers` that handles it.",
            "_METHODS: dict[str, str] = {",
            *binds,
            "}",
        ]
    )
    blocks.append(
        [
            f"def bind_handlers(handlers: {protocol}) -> dict[str, Handler]:",
            *docstring_lines([[bind_doc]], "    "),
            "    return {",
            "        wire: cast(Handler, getattr(handlers, method))",
            "        for wire, method in _METHODS.items()",
            "        if hasattr(handlers, method)",
            "    }",
        ]
    )
    return "\n\n\n".join("\n".join(block) for block in blocks) + "\n"
