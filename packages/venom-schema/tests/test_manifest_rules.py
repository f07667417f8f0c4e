"""One failing manifest per validator rule, with the exact problem text (RFC-0004 §2-§4, §7)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from venom_schema.manifest import ManifestError, validate_manifest
from venom_schema.zon._values import ZON_EMPTY, ZonChar, ZonEnum, ZonValue

E = ZonEnum
Raw = dict[str, ZonValue]


def ty(kind: str, **members: ZonValue) -> Raw:
    return {"kind": E(kind), **members}


def fld(name: str, type_: ZonValue, **members: ZonValue) -> Raw:
    return {"name": name, "summary": "S", "type": type_, **members}


def verb(name: str = "v", /, **members: ZonValue) -> Raw:
    base: Raw = {"name": name, "summary": "S", "result": ty("null"), "grant": E("read")}
    base.update(members)
    return base


def manifest(*verbs: ZonValue, **root: ZonValue) -> Raw:
    base: Raw = {"format": 1, "tool": "t", "summary": "A tool", "verbs": list(verbs)}
    base.update(root)
    return base


def without(record: Raw, member: str) -> Raw:
    return {k: v for k, v in record.items() if k != member}


def param(type_: ZonValue, **members: ZonValue) -> Raw:
    """A verb ``v`` with the single param ``p``."""
    return manifest(verb(params=[fld("p", type_, **members)]))


def result(type_: ZonValue, **members: ZonValue) -> Raw:
    return manifest(verb(result=type_, **members))


STATUS = fld("status", ty("integer", min=0, max=255), required=True)
TEXT_PARAMS: list[ZonValue] = [
    fld("text", ty("string"), required=True),
    fld("style", ty("string", choices=["plain", "upper"]), default="plain"),
]
TEXT_RESULT = ty("object", fields=[fld("text", ty("string"), required=True)])


def example(params: ZonValue, res: ZonValue) -> Raw:
    return manifest(
        verb(params=TEXT_PARAMS, result=TEXT_RESULT, examples=[{"params": params, "result": res}])
    )


def status_exit(field: Raw) -> Raw:
    return result(ty("object", fields=[field]), exit={"kind": E("result"), "field": "status"})


GRANT_LIST = ".none, .read, .write, .respond, .files, .spawn, .admin"
KIND_LIST = ".string, .boolean, .integer, .number, .null, .array, .object"
P = "verbs[v].params[p]"

ROWS: list[tuple[str, Callable[[], ZonValue], str]] = [
    # root (§2, §7)
    ("root-not-struct", list, "manifest: expected a struct, got tuple"),
    (
        "format-missing",
        lambda: without(manifest(), "format"),
        'manifest: missing required member "format"',
    ),
    (
        "format-2-stops",
        lambda: manifest(format=2, extra=1, tool="BAD"),
        "format: unsupported format integer 2; only format 1 is supported",
    ),
    (
        "format-string",
        lambda: manifest(format="1"),
        'format: unsupported format string "1"; only format 1 is supported',
    ),
    (
        "format-bool",
        lambda: manifest(format=True),
        "format: unsupported format boolean true; only format 1 is supported",
    ),
    (
        "format-float",
        lambda: manifest(format=1.0),
        "format: unsupported format number 1.0; only format 1 is supported",
    ),
    (
        "tool-missing",
        lambda: without(manifest(), "tool"),
        'manifest: missing required member "tool"',
    ),
    (
        "summary-missing",
        lambda: without(manifest(), "summary"),
        'manifest: missing required member "summary"',
    ),
    (
        "verbs-missing",
        lambda: without(manifest(), "verbs"),
        'manifest: missing required member "verbs"',
    ),
    ("root-unknown", lambda: manifest(version="1"), 'manifest: unknown member "version"'),
    (
        "tool-pattern",
        lambda: manifest(tool="Venom"),
        'tool: "Venom" does not match ^[a-z][a-z0-9-]{0,31}$',
    ),
    (
        "tool-too-long",
        lambda: manifest(tool="a" * 33),
        f'tool: "{"a" * 33}" does not match ^[a-z][a-z0-9-]{{0,31}}$',
    ),
    ("tool-enum", lambda: manifest(tool=E("t")), "tool: expected a string, got enum literal .t"),
    ("summary-empty", lambda: manifest(summary=""), "summary: must not be empty"),
    ("summary-blank", lambda: manifest(summary="   "), "summary: must not be empty"),
    (
        "summary-control",
        lambda: manifest(summary="a\x07b"),
        "summary: contains control character U+0007",
    ),
    (
        "summary-c1-control",
        lambda: manifest(summary="a\x85b"),
        "summary: contains control character U+0085",
    ),
    (
        "summary-surrogate",
        lambda: manifest(summary="a\ud800"),
        "summary: is not valid UTF-8 (lone surrogate)",
    ),
    ("verbs-not-tuple", lambda: manifest(verbs="x"), 'verbs: expected a tuple, got string "x"'),
    # verbs (§2, §4, §7)
    ("verb-not-struct", lambda: manifest(1), "verbs[0]: expected a struct, got integer 1"),
    ("verb-duplicate", lambda: manifest(verb(), verb()), 'verbs: duplicate verb name "v"'),
    (
        "verb-shared-core",
        lambda: manifest(verb("ping")),
        'verbs[ping]: "ping" is a shared verb of the core bundle; products must not declare it',
    ),
    (
        "verb-shared-agent",
        lambda: manifest(verb("config.get")),
        'verbs[config.get]: "config.get" is a shared verb of the agent bundle;'
        " products must not declare it",
    ),
    ("verb-unknown", lambda: manifest(verb(handler="x")), 'verbs[v]: unknown member "handler"'),
    (
        "verb-shared-member",
        lambda: manifest(verb(shared=E("core"))),
        'verbs[v]: unknown member "shared"',
    ),
    (
        "verb-no-result",
        lambda: manifest(without(verb(), "result")),
        'verbs[v]: missing required member "result"',
    ),
    (
        "verb-no-grant",
        lambda: manifest(without(verb(), "grant")),
        'verbs[v]: missing required member "grant"',
    ),
    (
        "verb-no-name",
        lambda: manifest(without(verb(), "name")),
        'verbs[0]: missing required member "name"',
    ),
    (
        "verb-name-upper",
        lambda: manifest(verb("Echo")),
        'verbs[0].name: "Echo" does not match ^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)*$',
    ),
    (
        "verb-name-double-dot",
        lambda: manifest(verb("a..b")),
        'verbs[0].name: "a..b" does not match ^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)*$',
    ),
    (
        "verb-name-hyphen",
        lambda: manifest(verb("set-title")),
        'verbs[0].name: "set-title" does not match ^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)*$',
    ),
    (
        "verb-summary-newline",
        lambda: manifest(verb(summary="a\nb")),
        "verbs[v].summary: contains control character U+000A",
    ),
    (
        "grant-string",
        lambda: manifest(verb(grant="read")),
        f'verbs[v].grant: expected an enum literal ({GRANT_LIST}), got string "read"',
    ),
    (
        "grant-unknown",
        lambda: manifest(verb(grant=E("root"))),
        f"verbs[v].grant: unknown .root; expected one of {GRANT_LIST}",
    ),
    (
        "streams-int",
        lambda: manifest(verb(streams=1)),
        "verbs[v].streams: expected a boolean, got integer 1",
    ),
    (
        "streams-no-item",
        lambda: manifest(verb(streams=True)),
        'verbs[v]: missing member "item" (required when streams = true)',
    ),
    (
        "item-without-streams",
        lambda: manifest(verb(item=ty("null"))),
        "verbs[v].item: only allowed when streams = true",
    ),
    (
        "verb-bridge",
        lambda: manifest(verb("bridge")),
        'verbs[bridge]: "bridge" is a shared verb of the agent bundle; '
        "products must not declare it",
    ),
    (
        "mcp-too-long",
        lambda: manifest(verb("a_" * 43)),
        f"verbs[{'a_' * 43}].name: MCP tool name is 129 bytes after encoding; the limit is 128",
    ),
    (
        "man-collision",
        lambda: manifest(verb("a_b.c"), verb("a.b_c")),
        'verbs[a_b.c]: man page name "t-a-b-c" collides with verb "a.b_c"',
    ),
    (
        "param-json",
        lambda: manifest(verb(params=[fld("json", ty("boolean"))])),
        'verbs[v].params[json]: param name "json" collides with the global flag --json',
    ),
    (
        "param-socket",
        lambda: manifest(verb(params=[fld("socket", ty("string"))])),
        'verbs[v].params[socket]: param name "socket" collides with the global flag --socket',
    ),
    (
        "param-help",
        lambda: manifest(verb(params=[fld("help", ty("string"))])),
        'verbs[v].params[help]: param name "help" collides with the global flag --help',
    ),
    (
        "param-timeout",
        lambda: manifest(verb(params=[fld("timeout", ty("integer"))])),
        'verbs[v].params[timeout]: param name "timeout" is reserved for a future shared'
        " deadline policy",
    ),
    # fields (§2, §4)
    (
        "field-name-upper",
        lambda: manifest(verb(params=[fld("Text", ty("string"))])),
        'verbs[v].params[0].name: "Text" does not match ^[a-z][a-z0-9_]*$',
    ),
    (
        "field-name-dot",
        lambda: manifest(verb(params=[fld("a.b", ty("string"))])),
        'verbs[v].params[0].name: "a.b" does not match ^[a-z][a-z0-9_]*$',
    ),
    (
        "field-duplicate",
        lambda: manifest(verb(params=[fld("p", ty("string"))] * 2)),
        'verbs[v].params: duplicate field name "p"',
    ),
    ("field-unknown", lambda: param(ty("string"), alias="x"), f'{P}: unknown member "alias"'),
    (
        "field-no-type",
        lambda: manifest(verb(params=[without(fld("p", ty("null")), "type")])),
        f'{P}: missing required member "type"',
    ),
    (
        "field-no-summary",
        lambda: manifest(verb(params=[without(fld("p", ty("null")), "summary")])),
        f'{P}: missing required member "summary"',
    ),
    (
        "field-summary-empty",
        lambda: param(ty("string"), summary=""),
        f"{P}.summary: must not be empty",
    ),
    (
        "field-required-default",
        lambda: param(ty("string"), required=True, default="x"),
        f'{P}: "required = true" and "default" are exclusive',
    ),
    (
        "field-required-string",
        lambda: param(ty("string"), required="yes"),
        f'{P}.required: expected a boolean, got string "yes"',
    ),
    (
        "default-type",
        lambda: param(ty("integer"), default="3"),
        f'{P}.default: expected an integer, got string "3"',
    ),
    (
        "default-float-for-integer",
        lambda: param(ty("integer"), default=1.0),
        f"{P}.default: expected an integer, got number 1.0",
    ),
    (
        "default-choice",
        lambda: param(ty("string", choices=["plain", "upper"]), default="loud"),
        f'{P}.default: string "loud" is not one of "plain", "upper"',
    ),
    (
        "default-range",
        lambda: param(ty("integer", min=0, max=10), default=11),
        f"{P}.default: 11 is greater than the maximum 10",
    ),
    (
        "default-below",
        lambda: param(ty("number", min=0.5), default=0),
        f"{P}.default: 0 is less than the minimum 0.5",
    ),
    (
        "default-null",
        lambda: param(ty("string"), default=None),
        f"{P}.default: expected a string, got null",
    ),
    (
        "default-nested-missing",
        lambda: param(
            ty("object", fields=[fld("a", ty("string"), required=True)]), default=ZON_EMPTY
        ),
        f'{P}.default: missing required field "a"',
    ),
    (
        "default-nested-unknown",
        lambda: param(ty("object", fields=ZON_EMPTY), default={"b": 1}),
        f'{P}.default: unknown field "b"',
    ),
    (
        "default-array-item",
        lambda: param(ty("array", items=ty("boolean")), default=[True, 1]),
        f"{P}.default[1]: expected a boolean, got integer 1",
    ),
    (
        "result-field-duplicate",
        lambda: result(ty("object", fields=[fld("a", ty("null")), fld("a", ty("null"))])),
        'verbs[v].result.fields: duplicate field name "a"',
    ),
    # types (§3)
    (
        "type-not-struct",
        lambda: param(E("string")),
        f"{P}.type: expected a struct, got enum literal .string",
    ),
    (
        "type-no-kind",
        lambda: param({"choices": ["a"]}),
        f'{P}.type: missing required member "kind"',
    ),
    (
        "kind-string",
        lambda: param({"kind": "string"}),
        f'{P}.type.kind: expected an enum literal ({KIND_LIST}), got string "string"',
    ),
    (
        "kind-unknown",
        lambda: param(ty("map")),
        f"{P}.type.kind: unknown .map; expected one of {KIND_LIST}",
    ),
    (
        "string-min",
        lambda: param(ty("string", min=1)),
        f'{P}.type: unknown member "min" for kind .string',
    ),
    (
        "boolean-choices",
        lambda: param(ty("boolean", choices=["a"])),
        f'{P}.type: unknown member "choices" for kind .boolean',
    ),
    (
        "null-items",
        lambda: result(ty("null", items=ty("null"))),
        'verbs[v].result: unknown member "items" for kind .null',
    ),
    (
        "choices-empty",
        lambda: param(ty("string", choices=ZON_EMPTY)),
        f"{P}.type.choices: must not be empty",
    ),
    (
        "choices-duplicate",
        lambda: param(ty("string", choices=["plain", "upper", "plain"])),
        f'{P}.type.choices: duplicate choice "plain"',
    ),
    (
        "choices-not-string",
        lambda: param(ty("string", choices=["a", 1])),
        f"{P}.type.choices[1]: expected a string, got integer 1",
    ),
    (
        "choices-enum",
        lambda: param(ty("string", choices=[E("a")])),
        f"{P}.type.choices[0]: expected a string, got enum literal .a",
    ),
    (
        "bounds-unordered",
        lambda: param(ty("integer", min=5, max=1)),
        f"{P}.type: min 5 is greater than max 1",
    ),
    (
        "number-bounds-unordered",
        lambda: param(ty("number", min=0.5, max=0.25)),
        f"{P}.type: min 0.5 is greater than max 0.25",
    ),
    (
        "integer-bound-float",
        lambda: param(ty("integer", min=1.5)),
        f"{P}.type.min: expected an integer, got number 1.5",
    ),
    (
        "integer-bound-unsafe",
        lambda: param(ty("integer", max=9007199254740992)),
        f"{P}.type.max: integer 9007199254740992 is outside ±9007199254740991",
    ),
    (
        "integer-bound-unsafe-negative",
        lambda: param(ty("integer", min=-9007199254740992)),
        f"{P}.type.min: integer -9007199254740992 is outside ±9007199254740991",
    ),
    (
        "number-bound-inf",
        lambda: param(ty("number", max=float("inf"))),
        f"{P}.type.max: must be finite, got inf",
    ),
    (
        "number-bound-nan",
        lambda: param(ty("number", min=float("nan"))),
        f"{P}.type.min: must be finite, got nan",
    ),
    (
        "number-bound-bool",
        lambda: param(ty("number", min=True)),
        f"{P}.type.min: expected a number, got boolean true",
    ),
    ("array-no-items", lambda: param(ty("array")), f'{P}.type: missing required member "items"'),
    (
        "object-no-fields",
        lambda: param(ty("object")),
        f'{P}.type: missing required member "fields"',
    ),
    (
        "nullable-param",
        lambda: param(ty("string", nullable=True)),
        f"{P}.type.nullable: not allowed under params (RFC-0004 §3)",
    ),
    (
        "nullable-false-param",
        lambda: param(ty("string", nullable=False)),
        f"{P}.type.nullable: not allowed under params (RFC-0004 §3)",
    ),
    (
        "nullable-param-items",
        lambda: param(ty("array", items=ty("integer", nullable=True))),
        f"{P}.type.items.nullable: not allowed under params (RFC-0004 §3)",
    ),
    (
        "nullable-param-field",
        lambda: param(ty("object", fields=[fld("a", ty("null", nullable=True))])),
        f"{P}.type.fields[a].type.nullable: not allowed under params (RFC-0004 §3)",
    ),
    (
        "nullable-not-bool",
        lambda: result(ty("string", nullable=1)),
        "verbs[v].result.nullable: expected a boolean, got integer 1",
    ),
    # errors (§3)
    (
        "error-no-refinement",
        lambda: manifest(verb(errors=[{"code": "conflict", "summary": "S"}])),
        'verbs[v].errors[conflict].code: "conflict" needs a refinement, e.g. "conflict.something"',
    ),
    (
        "error-unknown-class",
        lambda: manifest(verb(errors=[{"code": "oops.x", "summary": "S"}])),
        'verbs[v].errors[oops.x].code: "oops.x" does not start with an RFC-0002 error class',
    ),
    (
        "error-component",
        lambda: manifest(verb(errors=[{"code": "conflict.Busy", "summary": "S"}])),
        'verbs[v].errors[conflict.Busy].code: "conflict.Busy": component "Busy" does not match'
        " [a-z][a-z0-9_]*",
    ),
    (
        "error-empty-component",
        lambda: manifest(verb(errors=[{"code": "conflict..x", "summary": "S"}])),
        'verbs[v].errors[conflict..x].code: "conflict..x": component "" does not match'
        " [a-z][a-z0-9_]*",
    ),
    (
        "error-duplicate",
        lambda: manifest(verb(errors=[{"code": "conflict.busy", "summary": "S"}] * 2)),
        'verbs[v].errors: duplicate error code "conflict.busy"',
    ),
    (
        "error-unknown-member",
        lambda: manifest(verb(errors=[{"code": "conflict.busy", "summary": "S", "exit": 3}])),
        'verbs[v].errors[conflict.busy]: unknown member "exit"',
    ),
    (
        "error-no-summary",
        lambda: manifest(verb(errors=[{"code": "conflict.busy"}])),
        'verbs[v].errors[conflict.busy]: missing required member "summary"',
    ),
    (
        "error-data-bad",
        lambda: manifest(verb(errors=[{"code": "failed.x", "summary": "S", "data": ty("array")}])),
        'verbs[v].errors[failed.x].data: missing required member "items"',
    ),
    (
        "errors-not-tuple",
        lambda: manifest(verb(errors="x")),
        'verbs[v].errors: expected a tuple, got string "x"',
    ),
    # exit policy (§3)
    (
        "exit-standard-extra",
        lambda: result(ty("null"), exit={"kind": E("standard"), "field": "x"}),
        'verbs[v].exit: unknown member "field" for kind .standard',
    ),
    (
        "exit-no-kind",
        lambda: result(ty("null"), exit=ZON_EMPTY),
        'verbs[v].exit: missing required member "kind"',
    ),
    (
        "exit-kind-unknown",
        lambda: result(ty("null"), exit={"kind": E("custom")}),
        "verbs[v].exit.kind: unknown .custom; expected one of .standard, .result",
    ),
    (
        "exit-no-field",
        lambda: result(ty("null"), exit={"kind": E("result")}),
        'verbs[v].exit: missing required member "field"',
    ),
    (
        "exit-extra",
        lambda: result(
            ty("object", fields=[STATUS]), exit={"kind": E("result"), "field": "status", "x": 1}
        ),
        'verbs[v].exit: unknown member "x" for kind .result',
    ),
    (
        "exit-result-not-object",
        lambda: result(ty("integer"), exit={"kind": E("result"), "field": "status"}),
        'verbs[v].exit.field: the result is integer, not an object with field "status"',
    ),
    (
        "exit-field-absent",
        lambda: status_exit(fld("code", ty("integer", min=0, max=255))),
        'verbs[v].exit.field: "status" is not a field of the result',
    ),
    (
        "exit-field-optional",
        lambda: status_exit(fld("status", ty("integer", min=0, max=255))),
        'verbs[v].exit.field: result field "status" must be required',
    ),
    (
        "exit-field-string",
        lambda: status_exit(fld("status", ty("string"), required=True)),
        'verbs[v].exit.field: result field "status" must be a non-nullable integer',
    ),
    (
        "exit-field-nullable",
        lambda: status_exit(
            fld("status", ty("integer", min=0, max=1, nullable=True), required=True)
        ),
        'verbs[v].exit.field: result field "status" must be a non-nullable integer',
    ),
    (
        "exit-field-unbounded",
        lambda: status_exit(fld("status", ty("integer"), required=True)),
        'verbs[v].exit.field: result field "status" must be bounded by min >= 0 and max <= 255',
    ),
    (
        "exit-field-256",
        lambda: status_exit(fld("status", ty("integer", min=0, max=256), required=True)),
        'verbs[v].exit.field: result field "status" must be bounded by min >= 0 and max <= 255',
    ),
    (
        "exit-field-negative",
        lambda: status_exit(fld("status", ty("integer", min=-1, max=255), required=True)),
        'verbs[v].exit.field: result field "status" must be bounded by min >= 0 and max <= 255',
    ),
    # examples (§2)
    (
        "example-unknown-param",
        lambda: example({"text": "hi", "colour": "red"}, {"text": "hi"}),
        'verbs[v].examples[0].params: unknown field "colour"',
    ),
    (
        "example-missing-param",
        lambda: example(ZON_EMPTY, {"text": "hi"}),
        'verbs[v].examples[0].params: missing required field "text"',
    ),
    (
        "example-param-type",
        lambda: example({"text": 1}, {"text": "1"}),
        "verbs[v].examples[0].params.text: expected a string, got integer 1",
    ),
    (
        "example-param-choice",
        lambda: example({"text": "a", "style": "loud"}, {"text": "a"}),
        'verbs[v].examples[0].params.style: string "loud" is not one of "plain", "upper"',
    ),
    (
        "example-result-type",
        lambda: example({"text": "hi"}, {"text": None}),
        "verbs[v].examples[0].result.text: expected a string, got null",
    ),
    (
        "example-result-missing",
        lambda: example({"text": "hi"}, ZON_EMPTY),
        'verbs[v].examples[0].result: missing required field "text"',
    ),
    (
        "example-char",
        lambda: example({"text": ZonChar(97)}, {"text": "a"}),
        "verbs[v].examples[0].params.text: expected a string, got character literal",
    ),
    (
        "example-no-result",
        lambda: manifest(verb(params=TEXT_PARAMS, examples=[{"params": {"text": "x"}}])),
        'verbs[v].examples[0]: missing required member "result"',
    ),
    (
        "example-unknown-member",
        lambda: manifest(verb(examples=[{"params": ZON_EMPTY, "result": None, "title": "x"}])),
        'verbs[v].examples[0]: unknown member "title"',
    ),
    (
        "example-unsafe-integer",
        lambda: manifest(
            verb(result=ty("integer"), examples=[{"params": ZON_EMPTY, "result": 2**53}])
        ),
        "verbs[v].examples[0].result: integer 9007199254740992 is outside ±9007199254740991",
    ),
    (
        "example-nan",
        lambda: manifest(
            verb(result=ty("number"), examples=[{"params": ZON_EMPTY, "result": float("nan")}])
        ),
        "verbs[v].examples[0].result: number must be finite, got nan",
    ),
    (
        "examples-not-tuple",
        lambda: manifest(verb(examples=ZonEnum("none"))),
        "verbs[v].examples: expected a tuple, got enum literal .none",
    ),
]


@pytest.mark.parametrize(("case", "build", "expected"), ROWS, ids=[row[0] for row in ROWS])
def test_rule_reports_exact_problem(
    case: str, build: Callable[[], ZonValue], expected: str
) -> None:
    """RFC-0004 §2 §3 §4 §7: each invalid manifest fails with one precise problem."""
    with pytest.raises(ManifestError) as info:
        validate_manifest(build(), source="verbs.zon")
    assert info.value.problems == (expected,), case
    assert str(info.value) == f"verbs.zon: {expected}"


def test_table_is_large() -> None:
    assert len(ROWS) >= 60
    assert len({row[0] for row in ROWS}) == len(ROWS)


def test_all_problems_are_listed() -> None:
    """RFC-0004 §2: one run lists every problem, each as path: message."""
    raw = manifest(verb(grant="read", streams=1), summary="", extra=True)
    with pytest.raises(ManifestError) as info:
        validate_manifest(raw, source="m.zon")
    assert info.value.problems == (
        'manifest: unknown member "extra"',
        "summary: must not be empty",
        f'verbs[v].grant: expected an enum literal ({GRANT_LIST}), got string "read"',
        "verbs[v].streams: expected a boolean, got integer 1",
    )
    assert info.value.first == 'manifest: unknown member "extra"'
    assert str(info.value).splitlines()[1] == "m.zon: summary: must not be empty"


def test_manifest_error_is_value_error() -> None:
    with pytest.raises(ValueError, match="format"):
        validate_manifest(manifest(format=0), source="x")


def _unused(_: Any) -> None:  # keeps Any imported for annotations above
    return None
