"""The normalized model: defaults, enum literals, ordering and nullable (RFC-0004 §2, §3, §7)."""

from __future__ import annotations

from typing import Any, cast

import pytest

from venom_schema.manifest import ManifestError, validate_manifest
from venom_schema.model import Model, Verb
from venom_schema.zon._values import ZON_EMPTY, ZonEnum, ZonValue

E = ZonEnum


def ty(kind: str, **members: ZonValue) -> dict[str, ZonValue]:
    return {"kind": E(kind), **members}


def fld(name: str, type_: ZonValue, **members: ZonValue) -> dict[str, ZonValue]:
    return {"name": name, "summary": f"The {name}", "type": type_, **members}


def echo_raw() -> dict[str, ZonValue]:
    """RFC-0004 §1's echo manifest as ZON values."""
    return {
        "format": 1,
        "tool": "venom-echo",
        "summary": "A toy daemon for protocol conformance",
        "verbs": [
            {
                "name": "echo",
                "summary": "Return the supplied text",
                "params": [
                    {
                        "name": "text",
                        "summary": "Text to return",
                        "type": ty("string"),
                        "required": True,
                    },
                    {
                        "name": "style",
                        "summary": "Output casing",
                        "type": ty("string", choices=["plain", "upper"]),
                        "default": "plain",
                    },
                ],
                "result": ty(
                    "object",
                    fields=[
                        {
                            "name": "text",
                            "summary": "Returned text",
                            "type": ty("string"),
                            "required": True,
                        },
                    ],
                ),
                "errors": ZON_EMPTY,
                "grant": E("read"),
                "streams": False,
                "examples": [
                    {"params": {"text": "hi"}, "result": {"text": "hi"}},
                    {"params": {"text": "hi", "style": "upper"}, "result": {"text": "HI"}},
                ],
            }
        ],
    }


ECHO_VERB: dict[str, Any] = {
    "name": "echo",
    "summary": "Return the supplied text",
    "params": [
        {"name": "text", "summary": "Text to return", "type": {"kind": "string"}, "required": True},
        {
            "name": "style",
            "summary": "Output casing",
            "type": {"kind": "string", "choices": ["plain", "upper"]},
            "required": False,
            "default": "plain",
        },
    ],
    "result": {
        "kind": "object",
        "fields": [
            {
                "name": "text",
                "summary": "Returned text",
                "type": {"kind": "string"},
                "required": True,
            },
        ],
    },
    "errors": [],
    "grant": "read",
    "streams": False,
    "exit": {"kind": "standard"},
    "examples": [
        {"params": {"text": "hi"}, "result": {"text": "hi"}},
        {"params": {"text": "hi", "style": "upper"}, "result": {"text": "HI"}},
    ],
}


def product_verbs(model: Model) -> list[Verb]:
    return [v for v in model["verbs"] if "shared" not in v]


def test_echo_normalizes_exactly() -> None:
    """RFC-0004 §7: defaults expanded, enum literals as strings, tuples as arrays."""
    model = validate_manifest(echo_raw(), source="verbs.zon")
    assert model["format"] == 1
    assert model["tool"] == "venom-echo"
    assert model["summary"] == "A toy daemon for protocol conformance"
    assert product_verbs(model) == [ECHO_VERB]
    assert list(model) == ["format", "tool", "summary", "verbs"]


def test_verbs_sorted_by_wire_name() -> None:
    """RFC-0004 §7: verbs sorted by wire name, bundles included."""
    raw = echo_raw()
    verbs = raw["verbs"]
    assert isinstance(verbs, list)
    verbs.insert(0, {"name": "zeta", "summary": "Z", "result": ty("null"), "grant": E("none")})
    verbs.append({"name": "alpha.beta", "summary": "A", "result": ty("null"), "grant": E("none")})
    names = [v["name"] for v in validate_manifest(raw)["verbs"]]
    assert names == sorted(names)
    assert names[0] == "alpha.beta"
    assert names[-1] == "zeta"


def test_empty_struct_accepted_for_tuples_and_structs() -> None:
    """`.{}` stands for an empty tuple or struct wherever one is expected."""
    verb: dict[str, ZonValue] = {
        "name": "v",
        "summary": "S",
        "params": ZON_EMPTY,
        "result": ty("object", fields=ZON_EMPTY),
        "errors": ZON_EMPTY,
        "grant": E("none"),
        "examples": [{"params": ZON_EMPTY, "result": ZON_EMPTY}],
    }
    raw: dict[str, ZonValue] = {"format": 1, "tool": "t", "summary": "S", "verbs": [verb]}
    (out,) = product_verbs(validate_manifest(raw))
    assert out["params"] == []
    assert out["errors"] == []
    assert out["result"] == {"kind": "object", "fields": []}
    assert out["examples"] == [{"params": {}, "result": {}}]
    assert product_verbs(validate_manifest({**raw, "verbs": ZON_EMPTY})) == []


def test_nullable_legal_outside_params_and_kept_only_when_true() -> None:
    """RFC-0004 §3, §7: nullable at any depth in result, item and error data; only true kept."""
    deep = ty("array", items=ty("object", fields=[fld("a", ty("integer", nullable=True))]))
    verb: dict[str, ZonValue] = {
        "name": "v",
        "summary": "S",
        "result": ty(
            "object", fields=[fld("x", deep, required=True), fld("y", ty("string", nullable=False))]
        ),
        "grant": E("read"),
        "streams": True,
        "item": ty("string", nullable=True),
        "errors": [
            {
                "code": "failed.v",
                "summary": "S",
                "data": ty("object", nullable=True, fields=ZON_EMPTY),
            }
        ],
        "examples": [{"params": ZON_EMPTY, "result": {"x": [{"a": None}, {"a": 1}, {}]}}],
    }
    (out,) = product_verbs(
        validate_manifest({"format": 1, "tool": "t", "summary": "S", "verbs": [verb]})
    )
    x_type = out["result"]["fields"][0]["type"]
    assert x_type["items"]["fields"][0]["type"] == {"kind": "integer", "nullable": True}
    assert out["result"]["fields"][1]["type"] == {"kind": "string"}
    assert out["item"] == {"kind": "string", "nullable": True}
    assert out["errors"][0]["data"] == {"kind": "object", "fields": [], "nullable": True}
    assert out["examples"][0]["result"] == {"x": [{"a": None}, {"a": 1}, {}]}


def test_error_data_defaults_to_empty_object() -> None:
    """RFC-0004 §3: errors data defaults to the empty object."""
    verb: dict[str, ZonValue] = {
        "name": "v",
        "summary": "S",
        "result": ty("null"),
        "grant": E("read"),
        "errors": [{"code": "conflict.v_busy", "summary": "Busy"}],
    }
    (out,) = product_verbs(
        validate_manifest({"format": 1, "tool": "t", "summary": "S", "verbs": [verb]})
    )
    assert out["errors"] == [
        {"code": "conflict.v_busy", "summary": "Busy", "data": {"kind": "object", "fields": []}}
    ]


def test_enum_literal_values_become_strings() -> None:
    """RFC-0004 §3: enum literals are metadata; values are strings."""
    verb: dict[str, ZonValue] = {
        "name": "v",
        "summary": "S",
        "result": ty("string"),
        "grant": E("read"),
        "params": [fld("mode", ty("string", choices=["a", "b"]), default=E("b"))],
        "examples": [{"params": {"mode": E("a")}, "result": E("ok")}],
    }
    (out,) = product_verbs(
        validate_manifest({"format": 1, "tool": "t", "summary": "S", "verbs": [verb]})
    )
    assert out["params"][0]["default"] == "b"
    assert out["examples"] == [{"params": {"mode": "a"}, "result": "ok"}]


def test_defaults_of_every_kind_normalize() -> None:
    """RFC-0004 §2: defaults validated against their type and kept as JSON values."""
    params: list[ZonValue] = [
        fld("n", ty("number", min=-1, max=1), default=0.5),
        fld("i", ty("integer"), default=-3),
        fld("b", ty("boolean"), default=False),
        fld("a", ty("array", items=ty("integer")), default=ZON_EMPTY),
        fld("o", ty("object", fields=[fld("k", ty("string"), default="d")]), default=ZON_EMPTY),
        fld("z", ty("null"), default=None),
    ]
    verb: dict[str, ZonValue] = {
        "name": "v",
        "summary": "S",
        "result": ty("null"),
        "grant": E("read"),
        "params": params,
    }
    (out,) = product_verbs(
        validate_manifest({"format": 1, "tool": "t", "summary": "S", "verbs": [verb]})
    )
    assert [p["default"] for p in out["params"]] == [0.5, -3, False, [], {}, None]


def test_example_validates_after_default_insertion() -> None:
    """RFC-0004 §2: examples validate after default insertion (defaults satisfy nothing
    required, so an example omitting a defaulted param is valid and kept as written)."""
    raw = echo_raw()
    model = validate_manifest(raw)
    assert product_verbs(model)[0]["examples"][0]["params"] == {"text": "hi"}


def test_prefix_verbs_allowed() -> None:
    """RFC-0004 §4: a verb may be a prefix of another (skill and skill.install)."""
    verbs: list[ZonValue] = [
        {"name": n, "summary": "S", "result": ty("null"), "grant": E("read")}
        for n in ("pane", "pane.split", "pane.set_title")
    ]
    model = validate_manifest({"format": 1, "tool": "t", "summary": "S", "verbs": verbs})
    assert [v["name"] for v in product_verbs(model)] == ["pane", "pane.set_title", "pane.split"]


def test_input_is_not_mutated() -> None:
    raw = echo_raw()
    before = repr(raw)
    validate_manifest(raw)
    assert repr(raw) == before


def test_bad_bundle_name_is_value_error() -> None:
    with pytest.raises(ValueError, match="unknown bundle"):
        validate_manifest(echo_raw(), bundles=("nope",))


def test_problem_in_default_reported_once() -> None:
    verb: dict[str, ZonValue] = {
        "name": "v",
        "summary": "S",
        "result": ty("null"),
        "grant": E("read"),
        "params": [fld("a", ty("integer", min=0), default=-1)],
    }
    with pytest.raises(ManifestError) as info:
        validate_manifest({"format": 1, "tool": "t", "summary": "S", "verbs": [verb]})
    assert info.value.problems == ("verbs[v].params[a].default: -1 is less than the minimum 0",)


def test_cli_collision_guard() -> None:
    """RFC-0004 §4: mapped CLI paths must be unique (unreachable through valid wire names,
    since they contain no hyphen; the guard is exercised directly)."""
    from venom_schema.manifest._errors import Problems
    from venom_schema.manifest._validate_names import check_names

    problems = Problems()
    check_names("t", [cast("Verb", {"name": "a-b"}), cast("Verb", {"name": "a_b"})], problems)
    assert problems.items == [
        'verbs[a_b]: CLI command "a-b" collides with verb "a-b"',
        'verbs[a_b]: man page name "t-a-b" collides with verb "a-b"',
    ]


def test_documentation_change_changes_digest() -> None:
    """RFC-0004 §7: the digest covers summaries and examples, not just types."""
    from venom_schema.canonical import digest

    base = digest(validate_manifest(echo_raw()))
    raw = echo_raw()
    verbs = raw["verbs"]
    assert isinstance(verbs, list)
    verb = verbs[0]
    assert isinstance(verb, dict)
    verb["summary"] = "Return the supplied text, unchanged"
    assert digest(validate_manifest(raw)) != base
    verb["summary"] = "Return the supplied text"
    verb["examples"] = ZON_EMPTY
    assert digest(validate_manifest(raw)) != base
    verb.pop("examples")
    verb.pop("errors")
    verb.pop("streams")
    assert digest(validate_manifest(raw)) == digest(
        validate_manifest({**echo_raw(), "verbs": [{**verb, "examples": ZON_EMPTY}]})
    )
