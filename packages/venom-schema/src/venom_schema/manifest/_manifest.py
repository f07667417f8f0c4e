"""`Manifest`: a whole manifest declared in Python, validated like a ZON one (RFC-0004 §2)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from venom_schema.manifest._builder import Verb
from venom_schema.manifest._validate_root import validate_manifest
from venom_schema.model import Model
from venom_schema.zon import ZonValue

__all__ = ("Manifest",)


@dataclass(frozen=True, slots=True)
class Manifest:
    """A whole manifest; ``validate()`` gives the normalized model (bundles merged)."""

    tool: str
    summary: str
    verbs: Sequence[Verb] = field(default_factory=tuple)
    format: int = 1

    def to_raw(self) -> dict[str, ZonValue]:
        verbs: list[ZonValue] = [v.to_raw() for v in self.verbs]
        return {"format": self.format, "tool": self.tool, "summary": self.summary, "verbs": verbs}

    def validate(self, *, source: str = "<python>", bundles: Sequence[str] | None = None) -> Model:
        """Run the manifest validator; raises ``ManifestError``."""
        if bundles is None:
            return validate_manifest(self.to_raw(), source=source)
        return validate_manifest(self.to_raw(), source=source, bundles=bundles)
