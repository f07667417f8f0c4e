"""Field records (RFC-0004 §2): params, object fields of results, items and error data.

Names differ by place. A param's name, at any depth under params, becomes a CLI spelling and
must match ``[a-z][a-z0-9_]*`` (RFC-0004 §4). Every other field name is a JSON member name:
any non-blank text without control characters (§2), so ``createdAt`` or ``created at`` can
describe an existing API. Problem paths show such a name as a JSON string
(``fields["a.b"]``), so the path stays readable whatever the name holds.
"""

from __future__ import annotations

import json
from typing import Any, Final

from venom_schema.manifest import _validate_types
from venom_schema.manifest._errors import Problems
from venom_schema.manifest._raw import (
    check_members,
    check_text,
    expect_bool,
    expect_struct,
    expect_tuple,
)
from venom_schema.manifest._value_check import INVALID, check_value
from venom_schema.names import PARAM_NAME_PATTERN, is_param_name
from venom_schema.zon._values import ZonValue

__all__ = ("validate_fields",)

_FIELD_MEMBERS: Final = ("name", "summary", "type", "required", "default")


def validate_fields(
    raw: ZonValue, path: str, problems: Problems, *, in_params: bool
) -> list[dict[str, Any]] | None:
    """Validate a tuple of field records; the normalized fields, or None after problems."""
    items = expect_tuple(raw, path, problems)
    if items is None:
        return None
    before = len(problems)
    fields: list[dict[str, Any]] = []
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
) -> dict[str, Any] | None:
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
        desc = _validate_types.validate_type(
            record["type"], f"{path}.type", problems, in_params=in_params
        )
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
    return field if len(problems) == before else None
