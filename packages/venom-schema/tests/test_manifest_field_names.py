"""Field names outside params, and the shape of error data (RFC-0004 §2-§4, RFC-0002 §7.1).

RFC-0004 §4 holds *parameter* names to ``[a-z][a-z0-9_]*`` (they become ``--flags``); result,
item and error-data field names are JSON member names, which §2 only asks to be free of
control characters. An error's ``data`` is an object (RFC-0002 §7.1), so its descriptor must
be an object (nullable or not: RFC-0004 §3 allows nullable in error data at any depth).
"""

from __future__ import annotations

import re

import pytest

from venom_schema.canonical import digest
from venom_schema.manifest import ManifestError, validate_manifest
from venom_schema.runtime import compile_verb
from venom_schema.zon._values import ZonEnum, ZonValue

E = ZonEnum
Raw = dict[str, ZonValue]

#: Member names a JSON API may well use, and names that stress every output format.
HOSTILE_NAMES = [
    "createdAt", "created_at", "Created", "created at", " padded ", "a.b", "a-b", "1st", "_x",
    "__x", "__init__", "from", "class", "self", "str", "None", "TypedDict", "a\"b", "a'b",
    "a\\b", "`tick`", "*star*", "_under_", "[x]", "<b>", "&amp;", "|", "a|b", "#", "$HOME",
    "{}", "%s", "--json", "-", ".", "..", "'", ".TH", "\\fB", "é", "ñandú", "日本", "😀",
    "a\u2028b", "\u200b", "\ufeff", "\u202e", "x" * 200,
]  # fmt: skip
CONTROL_NAMES = ["a\x00b", "\x01", "tab\tname", "line\nbreak", "\x7f", "\x85", "\x9f"]


def ty(kind: str, **members: ZonValue) -> Raw:
    return {"kind": E(kind), **members}


def fld(name: str, type_: ZonValue, **members: ZonValue) -> Raw:
    return {"name": name, "summary": "S", "type": type_, **members}


def _manifest(**verb: ZonValue) -> Raw:
    base: Raw = {"name": "v", "summary": "S", "result": ty("null"), "grant": E("read")}
    base.update(verb)
    return {"format": 1, "tool": "t", "summary": "A tool", "verbs": [base]}


def _everywhere(name: str) -> Raw:
    """``name`` as a field of the result, of a nested result object, of array items, of the
    stream item and of an error's data."""
    inner = ty("object", fields=[fld(name, ty("string"))])
    result = ty(
        "object",
        fields=[
            fld(name, ty("integer"), required=True),
            fld("nested", inner),
            fld("list", ty("array", items=inner)),
        ],
    )
    error: Raw = {"code": "conflict.busy", "summary": "S", "data": inner}
    return _manifest(result=result, streams=True, item=inner, errors=[error])


def _problems(raw: Raw) -> tuple[str, ...]:
    with pytest.raises(ManifestError) as info:
        validate_manifest(raw, source="verbs.zon")
    return info.value.problems


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_any_name_without_controls_is_accepted_outside_params(name: str) -> None:
    model = validate_manifest(_everywhere(name), source="verbs.zon")
    (verb,) = [v for v in model["verbs"] if v["name"] == "v"]
    assert verb["result"]["fields"][0]["name"] == name
    assert verb["item"]["fields"][0]["name"] == name
    assert verb["errors"][0]["data"]["fields"][0]["name"] == name
    assert digest(model).startswith("sha256:")  # canonical JSON copes
    checks = compile_verb(verb)
    assert checks.result({name: 1}) == {name: 1}
    assert checks.item({name: "x"}) == {name: "x"}


@pytest.mark.parametrize(
    "name", [n for n in [*HOSTILE_NAMES, "A"] if not re.fullmatch("[a-z][a-z0-9_]*", n)]
)
def test_params_keep_the_parameter_name_pattern(name: str) -> None:
    """Top-level params and the fields of object params alike: they are CLI spellings."""
    (top,) = _problems(_manifest(params=[fld(name, ty("string"))]))
    assert top.endswith("does not match ^[a-z][a-z0-9_]*$"), top
    nested = _manifest(params=[fld("p", ty("object", fields=[fld(name, ty("string"))]))])
    (inner,) = _problems(nested)
    assert inner.endswith("does not match ^[a-z][a-z0-9_]*$"), inner


@pytest.mark.parametrize("name", CONTROL_NAMES)
def test_control_characters_are_refused_everywhere(name: str) -> None:
    problems = _problems(_everywhere(name))
    assert len(problems) == 5  # result, nested, list items, item, error data
    assert all("contains control character U+" in p for p in problems), problems


@pytest.mark.parametrize("name", ["", "   ", "\u2028"])
def test_blank_names_are_refused(name: str) -> None:
    problems = _problems(_everywhere(name))
    assert all(p.endswith(".name: must not be empty") for p in problems), problems


def test_problem_paths_quote_names_that_are_not_identifiers() -> None:
    raw = _manifest(result=ty("object", fields=[fld("a.b]", ty("integer", min=2, max=1))]))
    assert _problems(raw) == ('verbs[v].result.fields["a.b]"].type: min 2 is greater than max 1',)


def test_duplicate_names_are_refused_outside_params() -> None:
    raw = _manifest(result=ty("object", fields=[fld("a b", ty("null")), fld("a b", ty("null"))]))
    assert _problems(raw) == ('verbs[v].result.fields: duplicate field name "a b"',)


@pytest.mark.parametrize(
    ("data", "got"),
    [
        (ty("string"), ".string"),
        (ty("integer"), ".integer"),
        (ty("number"), ".number"),
        (ty("boolean"), ".boolean"),
        (ty("null"), ".null"),
        (ty("array", items=ty("string")), ".array"),
        (ty("array", items=ty("object", fields=[])), ".array"),
    ],
)
def test_error_data_must_be_an_object(data: Raw, got: str) -> None:
    """RFC-0002 §7.1: data is an object; anything else is refused with the located message."""
    raw = _manifest(errors=[{"code": "conflict.busy", "summary": "S", "data": data}])
    assert _problems(raw) == (
        f"verbs[v].errors[conflict.busy].data: must be an object descriptor"
        f" (RFC-0002 §7.1: an error's data is an object), got {got}",
    )


@pytest.mark.parametrize(
    "data",
    [
        ty("object", fields=[fld("when", ty("string", nullable=True), required=True)]),
        ty("object", fields=[], nullable=True),  # RFC-0004 §3: nullable at any depth
    ],
)
def test_error_data_objects_may_be_nullable(data: Raw) -> None:
    raw = _manifest(errors=[{"code": "conflict.busy", "summary": "S", "data": data}])
    validate_manifest(raw, source="verbs.zon")
