"""Compiled validators for one normalized verb."""

from __future__ import annotations

# The same class as collections.abc.Mapping, from the module `os` has already loaded:
# `collections.abc` would import `collections` (~1 ms of every CLI call).
from _collections_abc import Mapping  # isinstance checks at run time

from venom_proto import VenomError

from ._compile import compile_descriptor, compile_params, object_plans
from ._errors import DescriptorError

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would cost every CLI call ~3 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ._compile import Validator
    from ._generated import FieldPlan

__all__ = ("CompiledVerb", "compile_verb")


class CompiledVerb:
    """The validators of one normalized verb (RFC-0004 §2/§3), compiled once.

    ``params(p)`` returns the params with defaults inserted (``None`` means ``{}``) or raises
    ``invalid_params.*``; ``result(v)`` and ``item(v)`` return the checked value or raise
    ``internal.result``.
    """

    __slots__ = (
        "grant",
        "item",
        "name",
        "params",
        "params_plans",
        "result",
        "result_plans",
        "streams",
        "verb",
    )

    def __init__(self, verb: Mapping[str, Any], *, generate: bool = False) -> None:
        if not isinstance(verb, Mapping) or not isinstance(verb.get("name"), str):
            raise DescriptorError("verb must be an object with a string name")
        name: str = verb["name"]
        params = verb.get("params", [])
        if not isinstance(params, list):
            raise DescriptorError(f"verb {name!r}: params must be a list of fields")
        if "result" not in verb:
            raise DescriptorError(f"verb {name!r}: result descriptor is required")
        self.verb: Mapping[str, Any] = verb
        self.name: str = name
        self.grant: str = str(verb.get("grant", ""))
        self.streams: bool = verb.get("streams", False) is True
        self.params: Validator = compile_params(params, generate=generate)
        # With ``generate``, the plans let the registry inline both checks into one function.
        self.params_plans: list[FieldPlan] | None = None
        self.result_plans: list[FieldPlan] | None = None
        if generate:
            self.params_plans = object_plans({"kind": "object", "fields": params}, "params")
            self.result_plans = object_plans(verb["result"], "result")
        self.result: Validator = compile_descriptor(
            verb["result"], kind="result", generate=generate
        )
        if self.streams:
            if "item" not in verb:
                raise DescriptorError(f"verb {name!r}: a streaming verb needs an item descriptor")
            self.item: Validator = compile_descriptor(verb["item"], kind="item", generate=generate)
        else:
            self.item = _no_items(name)

    def __repr__(self) -> str:
        return f"CompiledVerb({self.name!r})"


def _no_items(name: str) -> Validator:
    def refuse(value: Any) -> Any:
        raise VenomError(
            "internal.result",
            f"verb '{name}' does not stream, so it cannot emit items",
            {"path": "", "reason": "type"},
        )

    return refuse


def compile_verb(verb: Mapping[str, Any], *, generate: bool = False) -> CompiledVerb:
    """Compile the params, result and item validators of a normalized verb.

    ``generate``: faster generated checks for long-running processes (see `compile_descriptor`).
    """
    return CompiledVerb(verb, generate=generate)
