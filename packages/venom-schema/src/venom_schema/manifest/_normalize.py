"""Assembly of the normalized model (RFC-0004 §7, docs/architecture.md).

The per-topic validators already return normalized pieces (defaults expanded, enum literals as
strings, tuples as lists, ``nullable`` only when true); this module puts them in their final
order: verbs sorted by wire name, members in the documented order for readable caches.
"""

from __future__ import annotations

from typing import Final, cast

from venom_schema.manifest._validate_verbs import BUNDLE_MEMBERS, VERB_MEMBERS
from venom_schema.model import Model, Verb

__all__ = ("assemble_model",)

#: Member order of a normalized verb: the manifest members, then the bundle metadata.
_VERB_ORDER: Final = (*VERB_MEMBERS, *BUNDLE_MEMBERS)


def assemble_model(tool: str, summary: str, verbs: list[Verb]) -> Model:
    """The normalized model: ``{"format": 1, "tool", "summary", "verbs": [sorted]}``."""
    ordered = [_in_order(verb) for verb in sorted(verbs, key=lambda v: v["name"])]
    return {"format": 1, "tool": tool, "summary": summary, "verbs": ordered}


def _in_order(verb: Verb) -> Verb:
    members: dict[str, object] = dict(verb)
    return cast("Verb", {key: members[key] for key in _VERB_ORDER if key in members})
