"""The standard bundles merged into every model (RFC-0004 §6, §7; rfcs/0001, rfcs/0003)."""

from __future__ import annotations

from importlib.resources import files

import pytest

from venom_schema.canonical import digest
from venom_schema.grants import GRANTS
from venom_schema.manifest import BUNDLES, SHARED_NAMES, ManifestError, validate_manifest
from venom_schema.manifest._bundles import _check_bundle_file
from venom_schema.model import Model, Verb
from venom_schema.zon import ZonEnum, ZonValue, parse_zon

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


def product(*verbs: dict[str, ZonValue]) -> dict[str, ZonValue]:
    return {"format": 1, "tool": "t", "summary": "S", "verbs": list(verbs)}


def model(bundles: tuple[str, ...] | None = None) -> Model:
    if bundles is None:
        return validate_manifest(product())
    return validate_manifest(product(), bundles=bundles)


def by_name(m: Model) -> dict[str, Verb]:
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


def verb(name: str, **members: ZonValue) -> dict[str, ZonValue]:
    record: dict[str, ZonValue] = {
        "name": name,
        "summary": "S",
        "result": {"kind": ZonEnum("object"), "fields": []},
        "grant": ZonEnum("none"),
    }
    record.update(members)
    return record


@pytest.mark.parametrize("name", sorted(SHARED_NAMES))
def test_products_cannot_declare_shared_names(name: str) -> None:
    """RFC-0004 §7: products MUST NOT override a shared wire name."""
    with pytest.raises(ManifestError) as info:
        validate_manifest(product(verb(name)), bundles=("core",))
    bundle = SHARED_NAMES[name]
    assert info.value.problems == (
        f'verbs[{name}]: "{name}" is a shared verb of the {bundle} bundle;'
        " products must not declare it",
    )


@pytest.mark.parametrize("member", ["shared", "dispatch"])
def test_shared_members_rejected_in_products(member: str) -> None:
    """Only a bundle file's records may carry shared and dispatch (manifest/_bundles.py)."""
    with pytest.raises(ManifestError) as info:
        validate_manifest(product(verb("v", **{member: ZonEnum("local")})))
    assert info.value.problems == (f'verbs[v]: unknown member "{member}"',)


def test_bundles_are_zon_files_shipped_in_the_package() -> None:
    """The bundles are data: one verbs.zon-like file each, in merge order."""
    assert list(BUNDLES) == ["core", "agent", "events"]
    for name, wire_names in BUNDLES.items():
        text = (files("venom_schema") / "bundles" / f"{name}.zon").read_bytes()
        root = parse_zon(text, name)
        assert isinstance(root, dict)
        assert root["bundle"] == ZonEnum(name)
        records = root["verbs"]
        assert isinstance(records, list)
        assert tuple(r["name"] for r in records if isinstance(r, dict)) == wire_names
    assert BUNDLES["core"] == ("hello", "cancel", "ping")
    assert {n: b for b, names in BUNDLES.items() for n in names} == SHARED_NAMES


def test_grant_choices_follow_the_grant_vocabulary() -> None:
    """The data spells the grants out; they must stay venom_schema.grants' (rfcs/0005 §7)."""
    verbs = by_name(model())
    for name in ("mcp", "mcp.config"):
        max_grant = next(p for p in verbs[name]["params"] if p["name"] == "max_grant")
        assert max_grant["type"]["choices"] == list(GRANTS)
    # token.issue's grants carry no choices (the handler answers invalid_params.grant,
    # rfcs/0005 §7.1); its summary spells them out.
    grants = next(p for p in verbs["token.issue"]["params"] if p["name"] == "grants")
    issuable = [g for g in GRANTS if g not in ("none", "admin")]
    assert "choices" not in grants["type"]["items"]
    assert grants["summary"].endswith(": " + ", ".join(issuable))


_GOOD_RECORD: dict[str, ZonValue] = {"name": "ping", "shared": ZonEnum("core")}


@pytest.mark.parametrize(
    ("root", "problem"),
    [
        (
            {"format": 1, "bundle": ZonEnum("core"), "verbs": [{"name": "ping"}]},
            'verbs[0]: missing required member "shared"',
        ),
        (
            {
                "format": 1,
                "bundle": ZonEnum("core"),
                "verbs": [{"name": "ping", "shared": ZonEnum("agent")}],
            },
            "verbs[0].shared: unknown .agent; expected one of .core",
        ),
        (
            {"format": 1, "bundle": ZonEnum("agent"), "verbs": [_GOOD_RECORD]},
            "bundle: unknown .agent; expected one of .core",
        ),
        (
            {"format": 2, "bundle": ZonEnum("core"), "verbs": [_GOOD_RECORD]},
            "format: unsupported format integer 2; only format 1 is supported",
        ),
        (
            {"format": 1, "tool": "t", "bundle": ZonEnum("core"), "verbs": [_GOOD_RECORD]},
            'bundle: unknown member "tool"',
        ),
        ({"format": 1, "bundle": ZonEnum("core"), "verbs": []}, "verbs: a bundle declares"),
    ],
)
def test_bundle_file_rules(root: ZonValue, problem: str) -> None:
    """A bundle file names itself, and every record names the file's bundle in .shared."""
    with pytest.raises(ManifestError) as info:
        _check_bundle_file(root, "core", "core.zon")
    assert info.value.problems[0].startswith(problem)
