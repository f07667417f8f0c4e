"""``venom-gen client``: a typed Python client module for one product (issue 7).

`render_client` turns the normalized model into the source of a module with two thin classes,
a blocking one over `venom_proto.typed.TypedClient` and an anyio one over
`venom_proto.typed.AsyncTypedClient`, with one keyword-only method per daemon verb, both filled
from one method template (`_methods`). Its types come from the product's generated
``verb_types`` module beside it (`venom_gen.build.verb_types`). The module imports venom-proto
and that module only, is ``ruff format`` clean as generated and passes ``mypy --strict``.
Naming rules are in `venom_gen.build.client_gen._names`.
"""

from __future__ import annotations

from venom_gen.build.client_gen._methods import VerbTypes, render_method, verb_types_params
from venom_gen.build.client_gen._names import NameTable, client_class, method_name
from venom_gen.build.client_gen._runtime import ASYNC, SYNC, class_head
from venom_gen.build.client_gen._table import (
    MODULE,
    VerbTypeTable,
    all_lines,
    header,
    import_lines,
    isort_key,
    schema_digest,
    verb_type_table,
)
from venom_gen.build.client_gen._text import docstring_lines, plain, py_str
from venom_gen.render._views import GenerationError
from venom_schema.model import Model, Verb
from venom_schema.surfaces import verbs_on

__all__ = ("GenerationError", "client_verbs", "render_client")


def client_verbs(model: Model) -> list[Verb]:
    """The verbs that get a method: those on the ``client`` surface (`venom_schema.surfaces`)."""
    return verbs_on(model, "client")


def _register(verb: Verb, table: VerbTypeTable, methods: NameTable) -> VerbTypes:
    wire = str(verb["name"])
    method = methods.claim(method_name(wire), f"verb {wire!r}")
    params = verb_types_params(verb)
    arguments = NameTable(f"keyword argument of {wire!r}")
    for key, arg, _ in params:
        arguments.claim(arg, f"param {key!r}")
    names = table.verbs[wire]
    kinds = names.args or []
    annotated = [
        (key, arg, kind, field) for (key, arg, field), kind in zip(params, kinds, strict=True)
    ]
    return VerbTypes(method=method, params=annotated, result=names.result, item=names.item)


def _module_doc(tool: str, summary: str, sync_name: str, async_name: str) -> list[str]:
    paragraphs = [
        [f"Typed client for {tool}: {plain(summary).rstrip('.')}."],
        [
            f"`{sync_name}` blocks (venom-proto's SyncClient); `{async_name}` runs on anyio "
            "(its AsyncClient). Each has one keyword-only method per daemon verb, named by the "
            "wire name with dots as underscores (``config.get`` is ``config_get``). Optional "
            "arguments left out are absent from the request, so the daemon applies its "
            "defaults; ``None`` sends JSON null. Results are typed as the daemon's schema "
            "declares them (the daemon validates them); failures raise `VenomError`."
        ],
    ]
    return docstring_lines(paragraphs, "")


#: `venom_proto.typed`'s names the module uses: the bases, and the re-exports a caller needs.
_TYPED = ("ABSENT", "Absent", "AsyncStream", "AsyncTypedClient", "Stream", "TypedClient")
_REEXPORTED = ("ABSENT", "Absent", "AsyncStream", "Stream", "VenomError")


def _imports(table: VerbTypeTable, verbs: list[VerbTypes]) -> list[str]:
    annotations = [a for v in verbs for a in (v.result, v.item or "", *(p[2] for p in v.params))]
    typing = ["Final"]
    if any(v.item is None and v.result != "None" for v in verbs):
        typing.append("cast")
    return [
        "from __future__ import annotations",
        "",
        *import_lines("typing", typing),
        "",
        "from venom_proto import VenomError",
        *import_lines("venom_proto.typed", sorted(_TYPED, key=isort_key)),
        "",
        *import_lines("." + MODULE, table.referenced(annotations)),
    ]


def render_client(model: Model) -> str:
    """The typed client module for ``model`` (a normalized model) as Python source.

    Deterministic: the same model gives the same bytes. Raises `GenerationError` when two verbs
    or types would get the same Python name.
    """
    tool = str(model["tool"])
    sync_name = client_class(tool, is_async=False)
    async_name = client_class(tool, is_async=True)
    table = verb_type_table(model)
    methods = NameTable("client method")
    verbs = [(verb, _register(verb, table, methods)) for verb in client_verbs(model)]
    public = ["TOOL", "SCHEMA_DIGEST", "CLIENT_NAME", *_REEXPORTED, sync_name, async_name]
    imports = _imports(table, [types for _, types in verbs])
    if imports[-1] == "":
        imports.pop()
    blocks: list[list[str]] = [
        [
            *header("client", model),
            *_module_doc(tool, str(model.get("summary", "")), sync_name, async_name),
            "",
            *imports,
            "",
            *all_lines(public),
            "",
            "#: The daemon this module talks to.",
            f"TOOL: Final = {py_str(tool)}",
            "#: Digest of the verb schema this module was generated from; "
            '``hello_result["schema"]`` is the',
            "#: daemon's.",
            f"SCHEMA_DIGEST: Final = {py_str(schema_digest(model))}",
            "#: The client name sent in hello, for the daemon's logs.",
            f"CLIENT_NAME: Final = {py_str(tool + '-client')}",
        ]
    ]
    for flavor, name in ((SYNC, sync_name), (ASYNC, async_name)):
        lines = class_head(name, plain(tool), flavor, sync_name)
        for verb, types in verbs:
            method = render_method(verb, types, flavor, full_doc=flavor is SYNC)
            lines += ["", *method]
        blocks.append(lines)
    return "\n\n\n".join("\n".join(block) for block in blocks) + "\n"
