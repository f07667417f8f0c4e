"""The verb-types table: every verb's types registered once, for the three generated modules
that name them (`venom_gen.build.verb_types` defines them; the typed client and the typed
handlers import them), and the text helpers those modules share.

The generated module is ``verb_types.py``, beside the client and the handler types in the
product's package:
The typed client (`venom_gen.build.client_gen`) and the typed handlers
(`venom_gen.build.handler_types`) both import their types from this one module, beside them in
the product's package: for each verb, its result (``<Verb>Result``), its stream item
(``<Verb>Item``), the ``Literal`` aliases and nested TypedDicts they need, and for each product
verb its params as the handler receives them (``<Verb>Params``). A nested object param with a
default at any depth has a second form, as a caller sends it (``<Verb>Args...``), which the
client's keyword arguments use. The module imports ``typing`` only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from venom_gen.build.client_gen._names import RUNTIME_NAMES, NameTable, camel, client_class
from venom_gen.build.client_gen._text import LINE_LIMIT, plain, py_str
from venom_gen.build.client_gen._types import TypeRegistry
from venom_proto.model_cache import CACHE_KEY
from venom_schema.canonical import digest
from venom_schema.model import Descriptor, Model, Verb
from venom_schema.surfaces import verbs_on

__all__ = (
    "HANDLER_NAMES",
    "MODULE",
    "VerbTypeNames",
    "VerbTypeTable",
    "all_lines",
    "header",
    "import_lines",
    "isort_key",
    "schema_digest",
    "verb_type_table",
)

#: The module's name: the typed client and the typed handlers import ``.verb_types``.
MODULE = "verb_types"

#: Names the typed-handlers module binds, which no generated type may take.
HANDLER_NAMES = frozenset(
    {"Awaitable", "Call", "ConnectionInfo", "Handler", "ItemT_contra", "StreamingCall"}
    | {"bind_handlers", "cast", "Protocol", "TypeVar"}
)
_TYPING = frozenset({"Literal", "NotRequired", "TypeAlias", "TypedDict"})
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass
class VerbTypeNames:
    """One verb's annotations, each naming types of the verb-types module."""

    verb: Verb
    result: str
    item: str | None
    #: Params as the handler receives them: a TypedDict name (product verbs only).
    params: str | None = None
    #: Each param's annotation as a caller sends it, in manifest order (client verbs only).
    args: list[str] | None = None
    #: Every generated type its params as received, its result and its item reach (what the
    #: typed handlers re-export), in definition order.
    reached: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class VerbTypeTable:
    """Every verb's types, registered once for the three modules that use them."""

    registry: TypeRegistry
    names: NameTable
    verbs: dict[str, VerbTypeNames]

    def referenced(self, annotations: list[str]) -> list[str]:
        """The generated names ``annotations`` mention, sorted (for an import)."""
        defined = set(self.names.claimed())
        found = {word for text in annotations for word in _IDENTIFIER.findall(text)}
        return sorted(found & defined, key=isort_key)


def _is_product_verb(verb: Verb) -> bool:
    return "shared" not in verb


def verb_type_table(model: Model) -> VerbTypeTable:
    """Register every client and daemon verb's types, in model order (deterministic)."""
    tool = str(model["tool"])
    reserved = RUNTIME_NAMES | HANDLER_NAMES | _TYPING
    reserved |= {client_class(tool, is_async=False), client_class(tool, is_async=True)}
    names = NameTable("Python name", reserved | {camel(tool) + "Handlers"})
    registry = TypeRegistry(names)
    client = {str(v["name"]) for v in verbs_on(model, "client")}
    daemon = {str(v["name"]) for v in verbs_on(model, "daemon") if _is_product_verb(v)}
    table: dict[str, VerbTypeNames] = {}
    for verb in model["verbs"]:
        wire = str(verb["name"])
        if wire not in client | daemon:
            continue
        base = camel(wire)
        start = len(registry.reached)
        params = args = None
        fields = verb.get("params", [])
        if wire in daemon:
            registry.received = True
            doc = f"Params of ``{wire}`` as its handler receives them."
            params = registry.typed_dict(base + "Params", doc, fields)
            registry.received = False
        received = registry.reached[start:]
        if wire in client:
            args = registry.sent_params(base, fields)
        start = len(registry.reached)
        result = registry.annotation(verb["result"], base + "Result", f"Result of ``{wire}``.")
        item = None
        if verb["streams"]:
            item_desc: Descriptor = verb.get("item") or {"kind": "object", "fields": []}
            item = registry.annotation(item_desc, base + "Item", f"Stream item of ``{wire}``.")
        reached = list(dict.fromkeys([*received, *registry.reached[start:]]))
        table[wire] = VerbTypeNames(verb, result, item, params, args, reached)
    return VerbTypeTable(registry, names, table)


def isort_key(name: str) -> tuple[int, str]:
    """ruff's isort order within one import: CONSTANTS, then Classes, then functions."""
    group = 0 if name.isupper() else 1 if name[:1].isupper() else 2
    return group, name.lower()


def _all_key(name: str) -> tuple[int, str]:
    # RUF022 wants isort order, case-sensitive within each group.
    return (0 if name.isupper() else 1 if name[:1].isupper() else 2), name


def import_lines(module: str, names: list[str]) -> list[str]:
    """``from module import ...``, exploded the way ruff formats a long one."""
    if not names:
        return []
    line = f"from {module} import {', '.join(names)}"
    if len(line) <= LINE_LIMIT:
        return [line]
    return [f"from {module} import (", *(f"    {name}," for name in names), ")"]


def all_lines(public: list[str]) -> list[str]:
    """A tuple ``__all__`` in the order ruff's RUF022 wants."""
    if not public:
        return ["__all__ = ()"]
    return ["__all__ = (", *(f"    {py_str(name)}," for name in sorted(public, key=_all_key)), ")"]


def schema_digest(model: Model) -> str:
    """The digest generated modules name: the model's, without its cache member."""
    return digest({key: value for key, value in model.items() if key != CACHE_KEY})


def header(command: str, model: Model) -> list[str]:
    """The comment that opens every generated module."""
    return [
        f"# Generated by `venom-gen {command}` from the {plain(str(model['tool']))} verb schema",
        f"# {schema_digest(model)}.",
        "# Do not edit: regenerate it when the manifest changes.",
    ]
