"""The standard bundles merged into every model (RFC-0004 §6, §7; rfcs/0001, rfcs/0003)."""

from __future__ import annotations

import pytest

from venom_schema.canonical import digest
from venom_schema.manifest import (
    BUNDLES,
    SHARED_NAMES,
    Manifest,
    ManifestError,
    Object,
    Verb,
    validate_manifest,
)
from venom_schema.model import Model
from venom_schema.model import Verb as ModelVerb

AGENT = [
    "completion.bash",
    "completion.fish",
    "completion.zsh",
    "bridge",
    "config.check",
    "config.get",
    "config.reload",
    "config.schema",
    "config.set",
    "doctor",
    "man",
    "man.install",
    "manifest",
    "mcp",
    "mcp.config",
    "serve",
    "service.install",
    "shutdown",
    "skill",
    "skill.install",
    "token.issue",
    "token.list",
    "token.revoke",
]


def model(bundles: tuple[str, ...] | None = None) -> Model:
    return Manifest(tool="t", summary="S").validate(bundles=bundles)


def by_name(m: Model) -> dict[str, ModelVerb]:
    return {v["name"]: v for v in m["verbs"]}


def test_default_merge_has_every_shared_verb() -> None:
    """RFC-0004 §7: core, agent-contract and event bundles are merged."""
    verbs = by_name(model())
    assert sorted(verbs) == sorted(["hello", "cancel", "ping", *AGENT, "events"])
    assert {v["shared"] for v in verbs.values()} == {"core", "agent", "events"}
    assert sorted(SHARED_NAMES) == sorted(verbs)


def test_dispatch_metadata() -> None:
    """RFC-0004 §7: hello/cancel are transport operations, serve/mcp/bridge local, the rest
    daemon (rfcs/0006 §2)."""
    verbs = by_name(model())
    assert {n for n, v in verbs.items() if v.get("dispatch") == "transport"} == {"hello", "cancel"}
    assert {n for n, v in verbs.items() if v.get("dispatch") == "local"} == {
        "serve",
        "mcp",
        "mcp.config",
        "service.install",
        "completion.bash",
        "completion.zsh",
        "completion.fish",
        "man",
        "man.install",
        "bridge",
    }
    assert "dispatch" not in verbs["ping"]
    assert verbs["ping"]["grant"] == "none"
    assert verbs["ping"]["shared"] == "core"


def test_skill_result_is_content_object() -> None:
    """RFC-0004 §6: skill --json returns {"content": "<SKILL.md>"}; its schema says so."""
    skill = by_name(model())["skill"]
    assert skill["result"] == {
        "kind": "object",
        "fields": [
            {
                "name": "content",
                "summary": "The complete SKILL.md text",
                "type": {"kind": "string"},
                "required": True,
            }
        ],
    }


def test_grants_and_exit_policies() -> None:
    """rfcs/0001: config.set needs write; doctor and config.check pass a 0/1 status through."""
    verbs = by_name(model())
    assert verbs["config.set"]["grant"] == "write"
    assert verbs["config.reload"]["grant"] == "write"
    assert verbs["config.get"]["grant"] == "read"
    assert verbs["skill.install"]["grant"] == "files"
    assert verbs["doctor"]["exit"] == {"kind": "result", "field": "exit"}
    assert verbs["config.check"]["exit"] == {"kind": "result", "field": "exit"}
    checks = next(f for f in verbs["doctor"]["result"]["fields"] if f["name"] == "checks")
    item_fields = [f["name"] for f in checks["type"]["items"]["fields"]]
    assert item_fields == ["name", "status", "message", "hint"]


def test_events_streams_with_item_envelope() -> None:
    """rfcs/0003: events streams items {seq, type, time, data}; types defaults to all."""
    events = by_name(model())["events"]
    assert events["streams"] is True
    assert [f["name"] for f in events["item"]["fields"]] == ["seq", "type", "time", "data"]
    types = events["params"][0]
    assert types["name"] == "types"
    assert types["default"] == ["*"]


def test_bundle_selection_changes_digest() -> None:
    """RFC-0004 §7: the digest covers the complete merged model."""
    full, core = model(), model(("core",))
    assert {v["name"] for v in core["verbs"]} == {"hello", "cancel", "ping"}
    assert digest(full) != digest(core)
    assert digest(full) == digest(model())


@pytest.mark.parametrize("name", sorted(SHARED_NAMES))
def test_products_cannot_declare_shared_names(name: str) -> None:
    """RFC-0004 §7: products MUST NOT override a shared wire name."""
    m = Manifest(
        tool="t", summary="S", verbs=[Verb(name=name, summary="S", result=Object(), grant="none")]
    )
    with pytest.raises(ManifestError) as info:
        m.validate(bundles=("core",))
    bundle = SHARED_NAMES[name]
    assert info.value.problems == (
        f'verbs[{name}]: "{name}" is a shared verb of the {bundle} bundle;'
        " products must not declare it",
    )


def test_bundles_are_declared_with_the_builder() -> None:
    assert set(BUNDLES) == {"core", "agent", "events"}
    assert all(isinstance(v, Verb) for verbs in BUNDLES.values() for v in verbs)


def test_shared_members_rejected_in_products() -> None:
    raw = Manifest(
        tool="t",
        summary="S",
        verbs=[Verb(name="v", summary="S", result=Object(), grant="none", dispatch="local")],
    ).to_raw()
    with pytest.raises(ManifestError) as info:
        validate_manifest(raw)
    assert info.value.problems == ('verbs[v]: unknown member "dispatch"',)
