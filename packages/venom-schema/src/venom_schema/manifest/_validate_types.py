"""Type descriptors (RFC-0004 §3) and field records (§2), which contain each other.

A descriptor is a closed record selected by ``kind``; an object's ``fields`` are field records,
each with a ``type`` descriptor. Field names differ by place. A param's name, at any depth under
params, becomes a CLI spelling and must match ``[a-z][a-z0-9_]*`` (RFC-0004 §4). Every other
field name is a JSON member name: any non-blank text without control characters (§2), so
``createdAt`` or ``created at`` can describe an existing API. Problem paths show such a name as a
JSON string (``fields["a.b"]``), so the path stays readable whatever the name holds.
"""

from __future__ import annotations

import json
import math
from typing import Any, Final, cast

from venom_proto.conventions import PARAM_NAME_PATTERN
from venom_proto.conventions import is_name_component as is_param_name
from venom_schema.manifest._errors import Problems
from venom_schema.manifest._raw import (
    MAX_SAFE_INTEGER,
    check_members,
    check_text,
    describe,
    enum_choice,
    expect_bool,
    expect_struct,
    expect_tuple,
    is_number,
    quote,
)
from venom_schema.manifest._value_check import INVALID, check_value
from venom_schema.model import Descriptor, Field
from venom_schema.zon._values import ZonValue

__all__ = ("KINDS", "validate_fields", "validate_type")

#: Each kind's members besides ``kind`` and ``nullable``, and which of them are required.
_MEMBERS: Final[dict[str, tuple[tuple[str, ...], tuple[str, ...]]]] = {
    "string": (("choices",), ()),
    "boolean": ((), ()),
    "integer": (("min", "max"), ()),
    "number": (("min", "max"), ()),
    "null": ((), ()),
    "array": (("items",), ("items",)),
    "object": (("fields",), ("fields",)),
}
KINDS: Final = tuple(_MEMBERS)


def validate_type(
    raw: ZonValue, path: str, problems: Problems, *, in_params: bool
) -> Descriptor | None:
    """Validate one descriptor; the normalized descriptor, or None after reporting problems.

    ``in_params`` forbids ``nullable`` at any depth (RFC-0004 §3).
    """
    record = expect_struct(raw, path, problems)
    if record is None:
        return None
    if "kind" not in record:
        problems.add(path, 'missing required member "kind"')
        return None
    kind = enum_choice(record["kind"], KINDS, f"{path}.kind", problems)
    if kind is None:
        return None
    extra, required = _MEMBERS[kind]
    before = len(problems)
    check_members(
        record,
        path,
        problems,
        allowed=("kind", "nullable", *extra),
        required=required,
        context=f" for kind .{kind}",
    )
    desc: dict[str, Any] = {"kind": kind}
    if kind == "string" and "choices" in record:
        desc["choices"] = _choices(record["choices"], f"{path}.choices", problems)
    elif kind in ("integer", "number"):
        desc.update(_bounds(record, kind, path, problems))
    elif kind == "array" and "items" in record:
        desc["items"] = validate_type(
            record["items"], f"{path}.items", problems, in_params=in_params
        )
    elif kind == "object" and "fields" in record:
        desc["fields"] = validate_fields(
            record["fields"], f"{path}.fields", problems, in_params=in_params
        )
    if "nullable" in record:
        if in_params:
            problems.add(f"{path}.nullable", "not allowed under params (RFC-0004 §3)")
        elif expect_bool(record["nullable"], f"{path}.nullable", problems):
            desc["nullable"] = True
    if len(problems) > before or any(value is None for value in desc.values()):
        return None
    return cast("Descriptor", desc)


def _choices(raw: ZonValue, path: str, problems: Problems) -> list[str] | None:
    items = expect_tuple(raw, path, problems)
    if items is None:
        return None
    if not items:
        problems.add(path, "must not be empty")
        return None
    seen: list[str] = []
    ok = True
    for index, item in enumerate(items):
        if not isinstance(item, str):
            problems.add(f"{path}[{index}]", f"expected a string, got {describe(item)}")
            ok = False
        elif not _is_utf8(item):
            problems.add(f"{path}[{index}]", "is not valid UTF-8 (lone surrogate)")
            ok = False
        elif item in seen:
            problems.add(path, f"duplicate choice {quote(item)}")
            ok = False
        else:
            seen.append(item)
    return seen if ok else None


def _is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _bounds(
    record: dict[str, ZonValue], kind: str, path: str, problems: Problems
) -> dict[str, Any]:
    bounds: dict[str, Any] = {}
    for name in ("min", "max"):
        if name not in record:
            continue
        value = record[name]
        member = f"{path}.{name}"
        if kind == "integer" and not (isinstance(value, int) and not isinstance(value, bool)):
            problems.add(member, f"expected an integer, got {describe(value)}")
        elif kind == "number" and not is_number(value):
            problems.add(member, f"expected a number, got {describe(value)}")
        elif isinstance(value, float) and not math.isfinite(value):
            problems.add(member, f"must be finite, got {value!r}")
        elif isinstance(value, int) and abs(value) > MAX_SAFE_INTEGER:
            problems.add(member, f"integer {value} is outside ±{MAX_SAFE_INTEGER}")
        else:
            bounds[name] = value
    if "min" in bounds and "max" in bounds and bounds["min"] > bounds["max"]:
        problems.add(path, f"min {bounds['min']!r} is greater than max {bounds['max']!r}")
    return bounds


_FIELD_MEMBERS: Final = ("name", "summary", "type", "required", "default")


def validate_fields(
    raw: ZonValue, path: str, problems: Problems, *, in_params: bool
) -> list[Field] | None:
    """Validate a tuple of field records; the normalized fields, or None after problems."""
    items = expect_tuple(raw, path, problems)
    if items is None:
        return None
    before = len(problems)
    fields: list[Field] = []
    seen: set[str] = set()
    for index, item in enumerate(items):
        name = _field_name(item, in_params=in_params)
        if name is not None and name in seen:
            problems.add(path, f'duplicate field name "{name}"')
            name = None
        elif name is not None:
            seen.add(name)
        label = str(index) if name is None else name if is_param_name(name) else json.dumps(name)
        field_path = f"{path}[{label}]"
        field = _validate_field(item, field_path, problems, in_params=in_params)
        if field is not None:
            fields.append(field)
    return fields if len(problems) == before else None


def _field_name(item: ZonValue, *, in_params: bool) -> str | None:
    """The record's name if it is a valid one here (for duplicates and problem paths)."""
    if isinstance(item, dict):
        name = item.get("name")
        if isinstance(name, str) and (is_param_name(name) if in_params else _is_member(name)):
            return name
    return None


def _is_member(name: str) -> bool:
    return check_text(name, "", Problems()) is not None


def _validate_field(
    raw: ZonValue, path: str, problems: Problems, *, in_params: bool
) -> Field | None:
    record = expect_struct(raw, path, problems)
    if record is None:
        return None
    before = len(problems)
    check_members(
        record, path, problems, allowed=_FIELD_MEMBERS, required=("name", "summary", "type")
    )
    field: dict[str, Any] = {}
    if "name" in record:
        name = check_text(record["name"], f"{path}.name", problems)
        if name is not None and in_params and not is_param_name(name):
            problems.add(f"{path}.name", f'"{name}" does not match {PARAM_NAME_PATTERN}')
        field["name"] = name
    if "summary" in record:
        field["summary"] = check_text(record["summary"], f"{path}.summary", problems)
    desc = None
    if "type" in record:
        desc = validate_type(record["type"], f"{path}.type", problems, in_params=in_params)
    field["type"] = desc
    required = False
    if "required" in record:
        required = bool(expect_bool(record["required"], f"{path}.required", problems))
    field["required"] = required
    if "default" in record:
        if required:
            problems.add(path, '"required = true" and "default" are exclusive')
        elif desc is not None:
            default = check_value(record["default"], desc, f"{path}.default", problems)
            if default is not INVALID:
                field["default"] = default
    return cast("Field", field) if len(problems) == before else None
