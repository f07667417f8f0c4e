"""Verb records (RFC-0004 §2): members, defaults, grant, streaming and the exit policy."""

from __future__ import annotations

from typing import Any, Final, cast

from venom_proto.conventions import WIRE_NAME_PATTERN, is_wire_name
from venom_schema.grants import GRANTS, PUBLIC_GRANTS
from venom_schema.manifest._bundles import BUNDLE_NAMES
from venom_schema.manifest._errors import Problems
from venom_schema.manifest._raw import (
    check_members,
    check_text,
    enum_choice,
    expect_bool,
    expect_struct,
)
from venom_schema.manifest._validate_errors import validate_errors
from venom_schema.manifest._validate_examples import validate_examples
from venom_schema.manifest._validate_names import check_verb_names
from venom_schema.manifest._validate_types import validate_fields, validate_type
from venom_schema.model import Descriptor, Exit, Verb
from venom_schema.zon._values import ZON_EMPTY, ZonValue

__all__ = ("GRANTS", "validate_verb")

VERB_MEMBERS: Final = (
    "name",
    "summary",
    "params",
    "result",
    "errors",
    "grant",
    "destructive",
    "streams",
    "item",
    "exit",
    "examples",
)
BUNDLE_MEMBERS: Final = ("shared", "dispatch")
_DISPATCH: Final = ("transport", "local")


def validate_verb(
    raw: ZonValue, path: str, problems: Problems, *, bundle: bool = False
) -> Verb | None:
    """Validate one verb record; the normalized verb or None after reporting problems.

    ``bundle`` admits the ``shared`` and ``dispatch`` members; only the merge of the standard
    bundle files' records passes it (``_bundles``), never a product's manifest.
    """
    record = expect_struct(raw, path, problems)
    if record is None:
        return None
    before = len(problems)
    allowed = VERB_MEMBERS + BUNDLE_MEMBERS if bundle else VERB_MEMBERS
    check_members(
        record, path, problems, allowed=allowed, required=("name", "summary", "result", "grant")
    )
    verb: dict[str, Any] = {}
    if "name" in record:
        name = check_text(record["name"], f"{path}.name", problems)
        if name is not None and not is_wire_name(name):
            problems.add(f"{path}.name", f'"{name}" does not match {WIRE_NAME_PATTERN}')
        verb["name"] = name
    if "summary" in record:
        verb["summary"] = check_text(record["summary"], f"{path}.summary", problems)
    verb["params"] = validate_fields(
        record.get("params", ZON_EMPTY), f"{path}.params", problems, in_params=True
    )
    result = None
    if "result" in record:
        result = validate_type(record["result"], f"{path}.result", problems, in_params=False)
    verb["result"] = result
    verb["errors"] = validate_errors(record.get("errors", ZON_EMPTY), f"{path}.errors", problems)
    if "grant" in record:
        verb["grant"] = enum_choice(record["grant"], GRANTS, f"{path}.grant", problems)
    if "destructive" in record:
        _validate_destructive(record["destructive"], verb.get("grant"), path, problems, verb)
    streams = False
    if "streams" in record:
        streams = bool(expect_bool(record["streams"], f"{path}.streams", problems))
    verb["streams"] = streams
    if streams and "item" not in record:
        problems.add(path, 'missing member "item" (required when streams = true)')
    elif not streams and "item" in record:
        problems.add(f"{path}.item", "only allowed when streams = true")
    elif streams:
        verb["item"] = validate_type(record["item"], f"{path}.item", problems, in_params=False)
    verb["exit"] = (
        _validate_exit(record["exit"], result, f"{path}.exit", problems)
        if "exit" in record
        else {"kind": "standard"}
    )
    verb["examples"] = validate_examples(
        record.get("examples", ZON_EMPTY),
        f"{path}.examples",
        problems,
        params=verb["params"],
        result=result,
    )
    if bundle:
        for member, choices in (("shared", BUNDLE_NAMES), ("dispatch", _DISPATCH)):
            if member in record:
                verb[member] = enum_choice(record[member], choices, f"{path}.{member}", problems)
    check_verb_names(verb.get("name"), _raw_param_names(record), path, problems, bundle=bundle)
    return cast("Verb", verb) if len(problems) == before else None


def _validate_destructive(
    raw: ZonValue, grant: str | None, path: str, problems: Problems, verb: dict[str, Any]
) -> None:
    # An MCP host reads destructiveHint only beside readOnlyHint false (rfcs/0004 D-S36): on a
    # none/read verb, which the catalog marks read-only, the member would contradict it.
    value = expect_bool(raw, f"{path}.destructive", problems)
    if value is None:
        return
    if grant in PUBLIC_GRANTS:  # every caller holds it: the verb changes nothing
        problems.add(
            f"{path}.destructive",
            f"only allowed on a verb that changes state (grant {grant!r} is read-only)",
        )
        return
    verb["destructive"] = bool(value)


def _raw_param_names(record: dict[str, ZonValue]) -> list[str]:
    """Param names as declared, so name rules report even when a param is otherwise invalid."""
    params = record.get("params")
    if not isinstance(params, list):
        return []
    return [
        name
        for item in params
        if isinstance(item, dict) and isinstance(name := item.get("name"), str)
    ]


def _validate_exit(
    raw: ZonValue, result: Descriptor | None, path: str, problems: Problems
) -> Exit | None:
    record = expect_struct(raw, path, problems)
    if record is None:
        return None
    if "kind" not in record:
        problems.add(path, 'missing required member "kind"')
        return None
    kind = enum_choice(record["kind"], ("standard", "result"), f"{path}.kind", problems)
    if kind == "standard":
        check_members(record, path, problems, allowed=("kind",), context=" for kind .standard")
        return {"kind": "standard"}
    if kind != "result":
        return None
    before = len(problems)
    check_members(
        record,
        path,
        problems,
        allowed=("kind", "field"),
        required=("field",),
        context=" for kind .result",
    )
    if "field" not in record:
        return None
    field_name = check_text(record["field"], f"{path}.field", problems)
    if field_name is not None and result is not None:
        _check_status_field(field_name, result, f"{path}.field", problems)
    if field_name is None or len(problems) > before:
        return None
    return {"kind": "result", "field": field_name}


def _check_status_field(name: str, result: Descriptor, path: str, problems: Problems) -> None:
    """RFC-0004 §3: a required top-level integer result field bounded 0-255."""
    if result["kind"] != "object":
        problems.add(path, f'the result is {result["kind"]}, not an object with field "{name}"')
        return
    field = next((f for f in result["fields"] if f["name"] == name), None)
    if field is None:
        problems.add(path, f'"{name}" is not a field of the result')
        return
    desc = field["type"]
    if not field["required"]:
        problems.add(path, f'result field "{name}" must be required')
    elif desc["kind"] != "integer" or desc.get("nullable"):
        problems.add(path, f'result field "{name}" must be a non-nullable integer')
    elif desc.get("min", -1) < 0 or desc.get("max", 256) > 255:
        problems.add(path, f'result field "{name}" must be bounded by min >= 0 and max <= 255')
