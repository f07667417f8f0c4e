"""RFC-0004 §7 as `venom_schema.compat.compare`: every rule and every decided silent case
(rfcs/0004-schema-decisions.md D-S42..D-S49), each checked in both directions, since a change
that is compatible from OLD to NEW may break from NEW to OLD; model JSON read back by
`read_model`; a model against itself, reordered, reports no breaking change."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from venom_schema.canonical import canonical_json, digest
from venom_schema.compat import Change, Report, compare, read_model, version_allows_break
from venom_schema.manifest import ManifestError, validate_manifest
from venom_schema.model import Model
from venom_schema.zon import parse_zon

BASE = """\
.{
    .format = 1,
    .tool = "kv",
    .summary = "A key-value daemon",
    .verbs = .{
        .{
            .name = "kv.put",
            .summary = "Store a value",
            .params = .{
                .{ .name = "key", .summary = "Key", .type = .{ .kind = .string }, .required = true },
                .{ .name = "mode", .summary = "Mode", .type = .{ .kind = .string, .choices = .{ "a", "b" } }, .default = "a" },
                .{ .name = "count", .summary = "Count", .type = .{ .kind = .integer, .min = 0, .max = 10 } },
                .{ .name = "tags", .summary = "Tags", .type = .{ .kind = .array, .items = .{ .kind = .string } } },
                .{ .name = "opts", .summary = "Options", .type = .{ .kind = .object, .fields = .{
                    .{ .name = "ttl", .summary = "TTL", .type = .{ .kind = .integer, .min = 1 } },
                } } },
            },
            .result = .{ .kind = .object, .fields = .{
                .{ .name = "ok", .summary = "Stored", .type = .{ .kind = .boolean }, .required = true },
                .{ .name = "old", .summary = "Previous", .type = .{ .kind = .string, .nullable = true } },
                .{ .name = "status", .summary = "Status", .type = .{ .kind = .integer, .min = 0, .max = 3 }, .required = true },
            } },
            .errors = .{ .{ .code = "conflict.busy", .summary = "Busy" } },
            .grant = .write,
            .examples = .{ .{ .params = .{ .key = "k" }, .result = .{ .ok = true, .status = 0 } } },
        },
        .{
            .name = "kv.watch",
            .summary = "Watch keys",
            .result = .{ .kind = .null },
            .grant = .read,
            .streams = true,
            .item = .{ .kind = .object, .fields = .{
                .{ .name = "key", .summary = "Key", .type = .{ .kind = .string }, .required = true },
            } },
        },
    },
}
"""  # noqa: E501


def base() -> Model:
    return validate_manifest(parse_zon(BASE.encode(), "base.zon"), source="base.zon")


def verb(model: Model, name: str) -> Any:
    return next(v for v in model["verbs"] if v["name"] == name)


def param(model: Model, name: str) -> Any:
    return next(p for p in verb(model, "kv.put")["params"] if p["name"] == name)


def result_field(model: Model, name: str) -> Any:
    return next(f for f in verb(model, "kv.put")["result"]["fields"] if f["name"] == name)


Edit = Callable[[Any], object]


def edited(edit: Edit) -> Model:
    """``base()`` after ``edit``, read back through the validator: a valid manifest."""
    model: Any = copy.deepcopy(base())
    edit(model)
    return read_model(json.dumps(model), "edited.json")


def kinds(report: Report) -> list[tuple[str, str, bool]]:
    return [(c.kind, c.path, c.breaking) for c in report.changes]


def _add_param(m: Any, name: str, required: bool) -> None:
    field = {"name": name, "summary": "N", "type": {"kind": "string"}, "required": required}
    verb(m, "kv.put")["params"].append(field)
    if required:  # the example must still validate
        verb(m, "kv.put")["examples"][0]["params"][name] = "x"


def _set_default(m: Any, name: str, value: Any) -> None:
    param(m, name)["default"] = value


# (name, edit, the kind OLD->NEW gives, breaking OLD->NEW, breaking NEW->OLD)
CASES: list[tuple[str, Edit, str, bool, bool]] = [
    (
        "verb added",
        lambda m: m["verbs"].append({**verb(m, "kv.watch"), "name": "kv.count"}),
        "verb.added",
        False,
        True,
    ),
    ("verb removed", lambda m: m["verbs"].remove(verb(m, "kv.watch")), "verb.removed", True, False),
    (
        "optional param added",
        lambda m: _add_param(m, "extra", False),
        "param.added_optional",
        False,
        True,
    ),
    (
        "required param added",
        lambda m: _add_param(m, "extra", True),
        "param.added_required",
        True,
        True,
    ),
    (
        "optional param made required",
        lambda m: (param(m, "count").update(required=True), verb(m, "kv.put")["examples"].clear()),
        "param.required",
        True,
        False,
    ),
    (
        "param removed",
        lambda m: verb(m, "kv.put")["params"].remove(param(m, "tags")),
        "field.removed",
        True,
        False,
    ),
    (
        "param kind changed",
        lambda m: param(m, "tags").update(type={"kind": "string"}),
        "type.kind",
        True,
        True,
    ),
    (
        "integer param widened to number",
        lambda m: param(m, "count")["type"].update(kind="number"),
        "type.kind",
        False,
        True,
    ),
    ("min raised", lambda m: param(m, "count")["type"].update(min=1), "type.narrowed", True, False),
    (
        "max lowered",
        lambda m: param(m, "count")["type"].update(max=9),
        "type.narrowed",
        True,
        False,
    ),
    ("max removed", lambda m: param(m, "count")["type"].pop("max"), "type.widened", False, True),
    (
        "choice removed",
        lambda m: param(m, "mode")["type"].update(choices=["a"]),
        "type.choice_removed",
        True,
        False,
    ),
    (
        "choices dropped",
        lambda m: param(m, "mode")["type"].pop("choices"),
        "type.choices_dropped",
        False,
        True,
    ),
    ("default changed", lambda m: _set_default(m, "mode", "b"), "default.changed", True, True),
    ("default added", lambda m: _set_default(m, "count", 3), "default.changed", True, True),
    (
        "nested param field made required",
        lambda m: param(m, "opts")["type"]["fields"][0].update(required=True),
        "param.required",
        True,
        False,
    ),
    (
        "nested param field min raised",
        lambda m: param(m, "opts")["type"]["fields"][0]["type"].update(min=2),
        "type.narrowed",
        True,
        False,
    ),
    (
        "array items narrowed",
        lambda m: param(m, "tags")["type"]["items"].update(choices=["x"]),
        "type.choices_added",
        True,
        False,
    ),
    (
        "result field removed",
        lambda m: verb(m, "kv.put")["result"]["fields"].remove(result_field(m, "old")),
        "field.removed",
        True,
        True,
    ),
    (
        "result field retyped",
        lambda m: result_field(m, "old")["type"].update(kind="integer"),
        "type.kind",
        True,
        True,
    ),
    (
        "result nullable dropped",
        lambda m: result_field(m, "old")["type"].pop("nullable"),
        "type.nullable",
        True,
        True,
    ),
    (
        "result range widened",
        lambda m: result_field(m, "status")["type"].update(max=255),
        "output.range",
        True,
        True,
    ),
    (
        "result field made optional",
        lambda m: result_field(m, "ok").update(required=False),
        "output.required",
        True,
        True,
    ),
    (
        "item field retyped",
        lambda m: verb(m, "kv.watch")["item"]["fields"][0].update(type={"kind": "integer"}),
        "type.kind",
        True,
        True,
    ),
    (
        "stream made plain",
        lambda m: (verb(m, "kv.watch").update(streams=False), verb(m, "kv.watch").pop("item")),
        "stream.changed",
        True,
        True,
    ),
    (
        "grant stronger",
        lambda m: verb(m, "kv.put").update(grant="admin"),
        "grant.stronger",
        True,
        False,
    ),
    (
        "grant to an incomparable one",
        lambda m: verb(m, "kv.put").update(grant="files"),
        "grant.other",
        True,
        True,
    ),
    (
        "exit policy changed",
        lambda m: verb(m, "kv.put").update(exit={"kind": "result", "field": "status"}),
        "exit.changed",
        True,
        True,
    ),
    (
        "summary changed",
        lambda m: verb(m, "kv.put").update(summary="Put"),
        "doc.summary",
        False,
        False,
    ),
    (
        "param summary changed",
        lambda m: param(m, "key").update(summary="The key"),
        "doc.summary",
        False,
        False,
    ),
    (
        "examples changed",
        lambda m: verb(m, "kv.put").update(examples=[]),
        "doc.examples",
        False,
        False,
    ),
    (
        "params reordered",
        lambda m: verb(m, "kv.put")["params"].reverse(),
        "doc.order",
        False,
        False,
    ),
    # D-S43: an added output field breaks a client validating against its closed object.
    (
        "result field added",
        lambda m: verb(m, "kv.put")["result"]["fields"].append(
            {"name": "n", "summary": "N", "type": {"kind": "integer"}, "required": False}
        ),
        "output.field_added",
        True,
        True,
    ),
    (
        "result choice added",
        lambda m: result_field(m, "old")["type"].update(choices=["x"]),
        "type.choices_added",
        True,
        True,
    ),
    # D-S45: declared errors document failures the class already allowed.
    (
        "declared error added",
        lambda m: verb(m, "kv.put")["errors"].append(
            {"code": "conflict.full", "summary": "Full", "data": {"kind": "object", "fields": []}}
        ),
        "error.added",
        False,
        False,
    ),
    (
        "error data changed",
        lambda m: verb(m, "kv.put")["errors"][0]["data"]["fields"].append(
            {"name": "who", "summary": "W", "type": {"kind": "string"}, "required": True}
        ),
        "output.field_added",
        True,
        True,
    ),
    # D-S47: annotations are hints to MCP hosts, not part of a call.
    (
        "destructive annotation",
        lambda m: verb(m, "kv.put").update(destructive=True),
        "annotation.destructive",
        False,
        False,
    ),
    ("tool renamed", lambda m: m.update(tool="kv2"), "tool.changed", True, True),
    ("model summary changed", lambda m: m.update(summary="Other"), "doc.summary", False, False),
]


@pytest.mark.parametrize(("edit", "kind", "forward", "backward"),
                         [case[1:] for case in CASES], ids=[case[0] for case in CASES])  # fmt: skip
def test_each_rule_both_ways(edit: Edit, kind: str, forward: bool, backward: bool) -> None:
    old, new = base(), edited(edit)
    ahead, back = compare(old, new), compare(new, old)
    assert kind in [c.kind for c in ahead.changes], kinds(ahead)
    assert ahead.compatible is not forward, kinds(ahead)
    assert back.compatible is not backward, kinds(back)


def test_required_param_made_optional_is_compatible_one_way() -> None:
    """D-S44: a caller that always passed it still may; an old daemon refuses its absence."""
    new = edited(lambda m: param(m, "key").update(required=False))
    assert kinds(compare(base(), new)) == [("param.optional", "params[key]", False)]
    assert kinds(compare(new, base())) == [("param.required", "params[key]", True)]


def test_identical_models_report_nothing() -> None:
    assert compare(base(), base()) == Report(())
    assert compare(base(), base()).compatible


def test_a_change_names_verb_path_and_kind() -> None:
    new = edited(lambda m: param(m, "mode")["type"].update(choices=["a"]))
    (change,) = compare(base(), new).changes
    assert change == Change(
        "kv.put", "params[mode].type.choices", "type.choice_removed", True, "choice 'b' removed"
    )
    assert change.render() == ("breaking: kv.put: params[mode].type.choices: choice 'b' removed")
    assert compare(base(), new).to_json() == {
        "compatible": False,
        "changes": [
            {
                "verb": "kv.put",
                "path": "params[mode].type.choices",
                "kind": "type.choice_removed",
                "breaking": True,
                "message": "choice 'b' removed",
            }
        ],
    }


def test_bundle_verbs_compare_as_recorded() -> None:
    """Shared bundles are part of the model: a bundle verb gone is a verb removed."""
    model = base()
    assert any(v.get("shared") == "agent" for v in model["verbs"])
    new = edited(lambda m: m["verbs"].remove(verb(m, "doctor")))
    assert ("verb.removed", "", True) in kinds(compare(model, new))


@pytest.mark.parametrize(
    ("released", "current", "allows"),
    [
        ("0.1.3", "0.2.0", True),
        ("0.1.3", "0.1.4", False),
        ("0.1.3", "0.1.3", False),
        ("0.2.0", "1.0.0", True),
        ("1.2.3", "1.3.0", False),
        ("1.2.3", "2.0.0", True),
        ("1.2.3", "0.9.0", False),
    ],
)
def test_the_version_says_it_breaks(released: str, current: str, allows: bool) -> None:
    assert version_allows_break(released, current) is allows


def test_a_malformed_version_is_refused() -> None:
    with pytest.raises(ValueError, match=r"not a MAJOR\.MINOR\.PATCH"):
        version_allows_break("one", "2.0.0")


def test_a_normalized_model_reads_back_unchanged() -> None:
    model = base()
    assert read_model(canonical_json(model), "m.json") == model
    assert digest(read_model(canonical_json(model))) == digest(model)


def test_the_cache_member_is_not_the_model() -> None:
    document = {**base(), "$cache": {"key": "1:x", "digest": "sha256:0", "bundles": []}}
    assert read_model(json.dumps(document)) == base()


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (b"{", "m.json: model: not JSON"),
        (b"[1]", "m.json: model: expected a JSON object, got tuple"),
        (b'{"format": 2}', "m.json: format: unsupported format integer 2"),
        (b'{"format": 1, "tool": "kv", "summary": "s", "verbs": [], "x": 1}',
         'm.json: model: unknown member "x"'),
        (b'{"format": 1, "tool": "kv", "summary": "s", "verbs": [], "extra": NaN}',
         "m.json: model: not JSON"),
    ],
)  # fmt: skip
def test_invalid_model_json_is_a_manifest_error(text: bytes, problem: str) -> None:
    with pytest.raises(ManifestError) as caught:
        read_model(text, "m.json")
    assert str(caught.value).startswith(problem)


def test_a_bad_verb_gets_the_validators_own_message() -> None:
    model: Any = copy.deepcopy(base())
    verb(model, "kv.put")["grant"] = "root"
    param(model, "count")["type"]["min"] = 20  # above max
    with pytest.raises(ManifestError) as caught:
        read_model(json.dumps(model), "m.json")
    problems = "\n".join(caught.value.problems)
    assert "verbs[kv.put].grant: unknown .root; expected one of .none, .read" in problems
    assert "verbs[kv.put].params[count].type" in problems


def test_a_product_verb_may_not_claim_dispatch() -> None:
    model: Any = copy.deepcopy(base())
    verb(model, "kv.put")["dispatch"] = "local"
    with pytest.raises(ManifestError, match='unknown member "dispatch"'):
        read_model(json.dumps(model))


@settings(max_examples=40, deadline=None)
@given(st.randoms(use_true_random=False))
def test_a_shuffled_model_is_compatible_with_itself(rnd: Any) -> None:
    """Verbs, params, fields, errors in any order: nothing breaking, only reorderings listed."""
    model: Any = copy.deepcopy(base())
    rnd.shuffle(model["verbs"])
    for v in model["verbs"]:
        rnd.shuffle(v["params"])
        rnd.shuffle(v["errors"])
        if v["result"]["kind"] == "object":
            rnd.shuffle(v["result"]["fields"])
    reordered = read_model(json.dumps(model))
    for old, new in ((base(), reordered), (reordered, base())):
        report = compare(old, new)
        assert report.compatible
        assert {c.kind for c in report.changes} <= {"doc.order"}
