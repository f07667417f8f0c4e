"""Manifest evolution (RFC-0004 §7): every difference between two normalized models, each
classified breaking or compatible.

`compare(old, new)` answers "may a client built against ``old`` call a daemon serving ``new``?":
it returns a `Report` whose `Change` records name the verb, a path inside it, a kind, whether it
breaks, and a message. The rules (RFC-0004 §7 and the silent cases decided in
rfcs/0004-schema-decisions.md D-S42..D-S49) run on the plain model dicts, shared bundles
included, so a model from the cache, from ``venom-gen normalize``, from the daemon's
``manifest`` verb or from a declaration compares alike. `read_model` validates model JSON with
the manifest validator. Pure logic: no files, no I/O; build time and ``doctor``, never a call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from venom_schema.compat._diff import diff_models
from venom_schema.compat._read import read_model
from venom_schema.model import Model

__all__ = ("Change", "Report", "compare", "read_model", "version_allows_break")


@dataclass(frozen=True, slots=True)
class Change:
    """One difference: ``verb`` ('' for the model's root), a ``path`` inside it
    (``params[style].type.choices``; '' for the verb itself), a stable ``kind``
    (``verb.removed``, ``param.required``...), whether it ``breaking``, and a ``message``."""

    verb: str
    path: str
    kind: str
    breaking: bool
    message: str

    def to_json(self) -> dict[str, Any]:
        """``{"verb", "path", "kind", "breaking", "message"}``."""
        return {
            "verb": self.verb,
            "path": self.path,
            "kind": self.kind,
            "breaking": self.breaking,
            "message": self.message,
        }

    def render(self) -> str:
        """One human line: ``breaking: echo: params[style]: ...``."""
        where = ": ".join(part for part in (self.verb or "(model)", self.path) if part)
        return f"{'breaking' if self.breaking else 'compatible'}: {where}: {self.message}"


@dataclass(frozen=True, slots=True)
class Report:
    """Every change from an old model to a new one, in verb then path order."""

    changes: tuple[Change, ...]

    @property
    def compatible(self) -> bool:
        """True when no change breaks a client of the old model."""
        return not any(change.breaking for change in self.changes)

    @property
    def breaking(self) -> tuple[Change, ...]:
        """The changes that break a client of the old model."""
        return tuple(change for change in self.changes if change.breaking)

    def to_json(self) -> dict[str, Any]:
        """``{"compatible": bool, "changes": [...]}``: what ``venom-gen compat --json`` prints."""
        return {"compatible": self.compatible, "changes": [c.to_json() for c in self.changes]}


def compare(old: Model, new: Model) -> Report:
    """Every difference from ``old`` to ``new``, each classified by RFC-0004 §7.

    Compatible means a client of ``old`` keeps working against ``new``; the relation is not
    symmetric (a new optional param is compatible one way, a removed param breaking the other).
    """
    return Report(tuple(Change(*found) for found in diff_models(old, new)))


def _release(version: str) -> tuple[int, int]:
    parts = version.split(".")
    try:
        major = int(parts[0])
        minor = int(parts[1]) if len(parts) > 1 else 0
    except ValueError:
        raise ValueError(f"{version!r} is not a MAJOR.MINOR.PATCH version") from None
    return major, minor


def version_allows_break(released: str, current: str) -> bool:
    """Whether ``current`` says it breaks ``released`` (SemVer): a higher major, or from 0.x a
    higher minor (0.1.3 -> 0.2.0; 1.2.3 -> 2.0.0). Raises `ValueError` for a malformed
    version."""
    old, new = _release(released), _release(current)
    if new[0] != old[0]:
        return new[0] > old[0]
    return old[0] == 0 and new[1] > old[1]
