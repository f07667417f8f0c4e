"""``venom-gen verb-types``: one product's verb types as a generated module, ``verb_types.py``.

The typed client (`venom_gen.build.client_gen`) and the typed handlers
(`venom_gen.build.handler_types`) both import their types from this one module, beside them in
the product's package: for each verb, its result (``<Verb>Result``), its stream item
(``<Verb>Item``), the ``Literal`` aliases and nested TypedDicts they need, and for each product
verb its params as the handler receives them (``<Verb>Params``). A nested object param with a
default at any depth has a second form, as a caller sends it (``<Verb>Args...``), which the
client's keyword arguments use. The module imports ``typing`` only.
"""

from __future__ import annotations

from venom_gen.build.client_gen._table import (
    all_lines,
    header,
    import_lines,
    isort_key,
    verb_type_table,
)
from venom_gen.build.client_gen._text import docstring_lines, plain
from venom_schema.model import Model

__all__ = ("render_verb_types",)


def render_verb_types(model: Model) -> str:
    """The verb-types module for ``model`` (a normalized model) as Python source.

    Deterministic, ``ruff format`` clean and ``mypy --strict`` clean as generated. Raises
    `venom_gen.render._views.GenerationError` when two verbs or types would get one Python name.
    """
    tool = str(model["tool"])
    table = verb_type_table(model)
    summary = plain(str(model.get("summary", ""))).rstrip(".")
    doc = [
        [f"The verb types of {tool}: {summary}."],
        [
            "For each verb, its result (``<Verb>Result``) and stream item (``<Verb>Item``); "
            "for each product verb, its params as its handler receives them "
            "(``<Verb>Params``: validated, every default inserted). A nested object param "
            "with a default is ``<Verb>Args...`` as a caller sends it (a field with a default "
            "may be left out). The typed client and the typed handlers use these types."
        ],
    ]
    typing_names = sorted(table.registry.typing_names, key=isort_key)
    head = [
        *header("verb-types", model),
        *docstring_lines(doc, ""),
        "",
        "from __future__ import annotations",
        *([""] if typing_names else []),
        *import_lines("typing", typing_names),
        "",
        *all_lines(table.names.claimed()),
    ]
    blocks = [head, *table.registry.blocks]
    return "\n\n\n".join("\n".join(block) for block in blocks) + "\n"
