"""``venom-gen handler-types``: the typed face of a product's handlers, as a generated module.

`render_handler_types` turns the normalized model into a module with, for each product verb
(the ``daemon`` surface less the shared verbs the daemon answers itself): a TypedDict of the
params as the handler receives them (validated, every default inserted), the result and the
stream item; a ``Protocol`` with one method per verb; and ``bind_handlers``, which maps an
implementation of that protocol to the ``{wire name: handler}`` mapping `Product.handlers`
returns. ``mypy --strict`` then checks each handler's keys, types and results against the
schema. Typing only: the daemon hands handlers the same plain dicts and validates what they
return, so the hot path is unchanged. The module imports venom-proto and ``typing`` only.
"""

from __future__ import annotations

import keyword

from venom_gen.build.client_gen._names import NameTable, camel
from venom_gen.build.client_gen._text import LINE_LIMIT, docstring_lines, plain, py_str
from venom_gen.build.client_gen._types import TypeRegistry
from venom_proto.model_cache import CACHE_KEY
from venom_schema.canonical import digest
from venom_schema.model import Descriptor, Model, Verb
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

_RESERVED = frozenset(
    {"Awaitable", "Call", "ConnectionInfo", "Handler", "ItemT_contra", "StreamingCall"}
    | {"bind_handlers", "cast", "Literal", "NotRequired", "Protocol", "TypeAlias", "TypedDict"}
    | {"TypeVar"}
)


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


def _typing_import(names: set[str]) -> list[str]:
    ordered = sorted(names, key=_isort_key)
    line = f"from typing import {', '.join(ordered)}"
    if len(line) <= LINE_LIMIT:
        return [line]
    return ["from typing import (", *(f"    {name}," for name in ordered), ")"]


def render_handler_types(model: Model) -> str:
    """The handler-types module for ``model`` (a normalized model) as Python source.

    Deterministic, ``ruff format`` clean and ``mypy --strict`` clean as generated. Raises
    `venom_gen._model.GenerationError` when two verbs or types would get one Python name.
    """
    tool = str(model["tool"])
    protocol = protocol_name(tool)
    names = NameTable("Python name", _RESERVED | {protocol})
    registry = TypeRegistry(names)
    methods = NameTable("handler method", frozenset({"self"}))
    verbs = handler_verbs(model)
    members: list[list[str]] = []
    binds: list[str] = []
    streams = False
    for verb in verbs:
        wire = str(verb["name"])
        base = camel(wire)
        method = methods.claim(_method(wire), f"verb {wire!r}")
        registry.received = True
        params = registry.typed_dict(
            base + "Params",
            f"Params of ``{wire}`` as its handler receives them.",
            verb.get("params", []),
        )
        registry.received = False
        result = registry.annotation(verb["result"], base + "Result", f"Result of ``{wire}``.")
        call = "Call"
        if verb["streams"]:
            streams = True
            item_desc: Descriptor = verb.get("item") or {"kind": "object", "fields": []}
            item = registry.annotation(item_desc, base + "Item", f"Stream item of ``{wire}``.")
            call = f"StreamingCall[{item}]"
        summary = plain(str(verb.get("summary", ""))).rstrip(".")
        members.append(
            [
                *_signature(method, call, params, result),
                *docstring_lines([[f"``{wire}``: {summary}."]], "        "),
            ]
        )
        binds.append(f"        {py_str(wire)}: cast(Handler, handlers.{method}),")
    schema = digest({key: value for key, value in model.items() if key != CACHE_KEY})
    typing_names = {"Protocol", "cast", *registry.typing_names}
    if streams:
        typing_names.add("TypeVar")
    if any("TypedDict" in line for block in registry.blocks for line in block):
        typing_names.add("TypedDict")
    public = [*(["StreamingCall"] if streams else []), protocol, "bind_handlers", *names.claimed()]
    doc = [
        [f"Typed handlers for {tool}: {plain(str(model.get('summary', ''))).rstrip('.')}."],
        [
            "Each product verb's params as its handler receives them (validated, every default "
            "inserted: a param with a default is always present, an optional one without is "
            f"``NotRequired``), its result and its stream items. `{protocol}` has one method "
            "per verb, named by the wire name with dots as underscores; `bind_handlers` maps "
            "an implementation of it to the handlers by exact wire name that the product's "
            "``handlers`` function returns. Typing only: the daemon passes the same plain dicts "
            "and validates every result and item, so a call costs nothing more."
        ],
    ]
    head = [
        f"# Generated by `venom-gen handler-types` from the {plain(tool)} verb schema",
        f"# {schema}.",
        "# Do not edit: regenerate it when the manifest changes.",
        *docstring_lines(doc, ""),
        "",
        "from __future__ import annotations",
        "",
        "from collections.abc import Awaitable",
        *_typing_import(typing_names),
        "",
        "from venom_proto import Call, ConnectionInfo, Handler"
        if streams
        else "from venom_proto import Call, Handler",
        "",
        "__all__ = (",
        *(f"    {py_str(name)}," for name in sorted(public, key=_all_key)),
        ")",
    ]
    blocks: list[list[str]] = [head]
    if streams:
        blocks.append(_STREAMING_CALL.split("\n"))
    blocks += registry.blocks
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
        "``handlers``' methods by exact wire name, for the product's ``handlers`` function "
        "(the registry refuses to start when one is missing or extra)."
    )
    blocks.append(
        [
            f"def bind_handlers(handlers: {protocol}) -> dict[str, Handler]:",
            *docstring_lines([[bind_doc]], "    "),
            "    return {",
            *binds,
            "    }",
        ]
    )
    return "\n\n\n".join("\n".join(block) for block in blocks) + "\n"


def _isort_key(name: str) -> tuple[int, str]:
    # ruff's isort order within one import: CONSTANTS, then Classes, then functions.
    group = 0 if name.isupper() else 1 if name[:1].isupper() else 2
    return group, name.lower()


def _all_key(name: str) -> tuple[int, str]:
    # RUF022 wants isort order: CONSTANTS, then Classes, then the rest.
    return (0 if name.isupper() else 1 if name[:1].isupper() else 2), name
