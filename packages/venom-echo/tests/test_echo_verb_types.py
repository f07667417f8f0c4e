"""venom-echo's generated type modules: `verb_types` defines every verb's types once, and
`handler_types` imports and re-exports the product verbs' (issue 22)."""

from __future__ import annotations

from venom_echo import handler_types, verb_types


def test_handler_types_reexport_the_product_verbs_types() -> None:
    """``handler_types`` imports its types from ``verb_types`` and re-exports those of the
    product verbs (params as received, results, items and what they reach), nothing else."""
    assert handler_types.EchoParams is verb_types.EchoParams
    assert "EchoTypesParamsNested" in handler_types.__all__
    assert "EchoTypesArgsNested" not in handler_types.__all__  # the client's form
    assert "DoctorResult" not in handler_types.__all__  # a shared verb: no handler
