"""Type descriptors (RFC-0004 §3): closed records selected by ``kind``."""

from __future__ import annotations

import math
from typing import Any, Final

from venom_schema.manifest import _validate_fields
from venom_schema.manifest._errors import Problems
from venom_schema.manifest._raw import (
    MAX_SAFE_INTEGER,
    check_members,
    describe,
    enum_choice,
    expect_bool,
    expect_struct,
    expect_tuple,
    is_number,
    quote,
)
from venom_schema.zon._values import ZonValue

__all__ = ("KINDS", "validate_type")

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
) -> dict[str, Any] | None:
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
        desc["fields"] = _validate_fields.validate_fields(
            record["fields"], f"{path}.fields", problems, in_params=in_params
        )
    if "nullable" in record:
        if in_params:
            problems.add(f"{path}.nullable", "not allowed under params (RFC-0004 §3)")
        elif expect_bool(record["nullable"], f"{path}.nullable", problems):
            desc["nullable"] = True
    if len(problems) > before or any(value is None for value in desc.values()):
        return None
    return desc


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
