"""The optional ``destructive`` verb member (rfcs/0004 D-S36): validated, kept only if declared."""

from __future__ import annotations

import pytest

from venom_schema.canonical import digest as schema_digest
from venom_schema.manifest import ManifestError, validate_manifest
from venom_schema.model import Model, Verb
from venom_schema.zon._values import ZonEnum, ZonValue

Raw = dict[str, ZonValue]


def _manifest(**members: ZonValue) -> Raw:
    verb: Raw = {
        "name": "v",
        "summary": "S",
        "result": {"kind": ZonEnum("null")},
        "grant": ZonEnum("write"),
    }
    verb.update(members)
    return {"format": 1, "tool": "t", "summary": "A tool", "verbs": [verb]}


def _verb(model: Model) -> Verb:
    return next(verb for verb in model["verbs"] if verb["name"] == "v")


def _problems(raw: Raw) -> list[str]:
    with pytest.raises(ManifestError) as caught:
        validate_manifest(raw)
    return list(caught.value.problems)


@pytest.mark.parametrize("value", [True, False])
def test_declared_value_is_recorded(value: bool) -> None:
    """The model holds exactly what the author declared, after ``grant``."""
    verb = _verb(validate_manifest(_manifest(destructive=value)))
    assert verb["destructive"] is value
    names = list(verb)
    assert names.index("destructive") == names.index("grant") + 1


def test_absent_stays_absent_and_keeps_the_digest() -> None:
    """Undeclared, the member is not invented: models and digests of older manifests hold."""
    verb = _verb(validate_manifest(_manifest()))
    assert "destructive" not in verb
    declared = validate_manifest(_manifest(destructive=True))
    assert schema_digest(validate_manifest(_manifest())) != schema_digest(declared)


def test_not_a_boolean_is_refused() -> None:
    assert _problems(_manifest(destructive="yes")) == [
        'verbs[v].destructive: expected a boolean, got string "yes"'
    ]


@pytest.mark.parametrize("grant", ["none", "read"])
def test_refused_on_a_read_only_verb(grant: str) -> None:
    """A none/read verb is annotated readOnlyHint; destructive would contradict it."""
    problems = _problems(_manifest(grant=ZonEnum(grant), destructive=False))
    assert problems == [
        f"verbs[v].destructive: only allowed on a verb that changes state"
        f" (grant {grant!r} is read-only)"
    ]
