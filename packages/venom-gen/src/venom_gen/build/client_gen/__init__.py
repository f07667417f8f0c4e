"""``venom-gen client``: a typed Python client module for one product (issue 7).

`render_client` turns the normalized model into the source of a module with a TypedDict per
verb's params, result and stream item, ``Literal`` aliases for choices, and two classes, a
blocking one over ``venom_proto.sync_client.SyncClient`` and an anyio one over
``venom_proto.client.AsyncClient``, with one keyword-only method per daemon verb. The module
imports venom-proto only, is ``ruff format`` clean as generated and passes ``mypy --strict``.
Naming rules are in `venom_gen.build.client_gen._names`.
"""

from __future__ import annotations

from collections.abc import Mapping

from venom_gen._model import GenerationError
from venom_gen.build.client_gen import _runtime
from venom_gen.build.client_gen._methods import VerbTypes, render_method, verb_types_params
from venom_gen.build.client_gen._names import (
    RUNTIME_NAMES,
    NameTable,
    camel,
    client_class,
    method_name,
)
from venom_gen.build.client_gen._text import docstring_lines, plain, py_str
from venom_gen.build.client_gen._types import TypeRegistry
from venom_proto.conventions import env_var
from venom_proto.model_cache import CACHE_KEY
from venom_schema.canonical import digest
from venom_schema.model import Descriptor, Model, Verb
from venom_schema.surfaces import verbs_on

__all__ = ("GenerationError", "client_verbs", "render_client")


def client_verbs(model: Model) -> list[Verb]:
    """The verbs that get a method: those on the ``client`` surface (`venom_schema.surfaces`)."""
    return verbs_on(model, "client")


def _register(verb: Verb, registry: TypeRegistry, methods: NameTable) -> VerbTypes:
    wire = str(verb["name"])
    base = camel(wire)
    method = methods.claim(method_name(wire), f"verb {wire!r}")
    params = verb_types_params(verb)
    arguments = NameTable(f"keyword argument of {wire!r}")
    for key, arg, _ in params:
        arguments.claim(arg, f"param {key!r}")
    fields = verb.get("params", [])
    kinds = registry.typed_dict_fields(base + "Params", f"Params of ``{wire}``.", fields)
    annotated = [
        (key, arg, kind, field) for (key, arg, field), kind in zip(params, kinds, strict=True)
    ]
    result = registry.annotation(verb["result"], base + "Result", f"Result of ``{wire}``.")
    item = None
    if verb["streams"]:
        item_desc: Descriptor = verb.get("item") or {"kind": "object", "fields": []}
        item = registry.annotation(item_desc, base + "Item", f"Stream item of ``{wire}``.")
    return VerbTypes(method=method, params=annotated, result=result, item=item)


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


def _all(public: list[str]) -> list[str]:
    # RUF022 wants isort order: CONSTANTS, then Classes, then the rest.
    def key(name: str) -> tuple[int, str]:
        return (0 if name.isupper() else 1 if name[:1].isupper() else 2), name

    return ["__all__ = (", *(f"    {py_str(name)}," for name in sorted(public, key=key)), ")"]


def _imports(typing_names: set[str]) -> list[str]:
    return [
        "from __future__ import annotations",
        "",
        "import enum",
        "from collections.abc import AsyncIterator, Iterator",
        "from types import TracebackType",
        *_runtime.typing_import(typing_names),
        "",
        "from venom_proto import StreamCall, SyncClient, VenomError",
        _runtime.CONVENTIONS_IMPORT,
        "",
        "if TYPE_CHECKING:",
        "    from venom_proto.client import AsyncClient, AsyncStreamCall",
    ]


def render_client(model: Model) -> str:
    """The typed client module for ``model`` (a normalized model) as Python source.

    Deterministic: the same model gives the same bytes. Raises `GenerationError` when two verbs
    or types would get the same Python name.
    """
    tool = str(model["tool"])
    sync_name = client_class(tool, is_async=False)
    async_name = client_class(tool, is_async=True)
    names = NameTable("Python name", RUNTIME_NAMES | {sync_name, async_name})
    registry = TypeRegistry(names)
    methods = NameTable("client method")
    verbs = [(verb, _register(verb, registry, methods)) for verb in client_verbs(model)]
    schema = digest({key: value for key, value in model.items() if key != CACHE_KEY})
    public = [
        *("TOOL", "SCHEMA_DIGEST", "CLIENT_NAME", "ABSENT", "Absent", "Stream", "AsyncStream"),
        *("VenomError", sync_name, async_name, *names.claimed()),
    ]
    blocks: list[list[str]] = [
        [
            f"# Generated by `venom-gen client` from the {plain(tool)} verb schema",
            f"# {schema}.",
            "# Do not edit: regenerate it when the manifest changes.",
            *_module_doc(tool, str(model.get("summary", "")), sync_name, async_name),
            "",
            *_imports(registry.typing_names),
            "",
            *_all(public),
        ]
    ]
    substitutions = {
        "__TOOL__": py_str(tool),
        "__TOOL_NAME__": tool,
        "__ENV__": env_var(tool, "SOCKET"),
        "__TOKEN_ENV__": env_var(tool, "TOKEN"),
        "__DIGEST__": py_str(schema),
        "__CLIENT_NAME__": py_str(tool + "-client"),
    }
    blocks.append(_fill(_runtime.RUNTIME, substitutions))
    blocks += registry.blocks
    for is_async, name in ((False, sync_name), (True, async_name)):
        head = _runtime.ASYNC_CLASS_HEAD if is_async else _runtime.SYNC_CLASS_HEAD
        lines = _fill(head, {**substitutions, "__CLASS__": name})
        for verb, types in verbs:
            lines += ["", *render_method(verb, types, is_async=is_async)]
        blocks.append(lines)
    return "\n\n\n".join("\n".join(block) for block in blocks) + "\n"


def _fill(template: str, substitutions: Mapping[str, str]) -> list[str]:
    for placeholder, value in substitutions.items():
        template = template.replace(placeholder, value)
    return template.strip("\n").split("\n")
