"""A compact recursive checker for raw values (defaults and examples) against normalized types.

The fast runtime validators live in ``venom_schema.runtime``; this one only serves the
manifest validator, so it favours precise messages over speed. It returns the value converted
to JSON data (enum literals become strings, ``.{}`` becomes ``[]`` or ``{}``) as written:
defaults are not inserted, which is equivalent for validation because every default has been
checked against its own type and a field with a default is never required.
"""

from __future__ import annotations

import math
from typing import Any, Final

from venom_schema.manifest._errors import Problems
from venom_schema.manifest._raw import MAX_SAFE_INTEGER, describe, quote
from venom_schema.model import Descriptor, Field
from venom_schema.zon._values import ZON_EMPTY, ZonEnum, ZonValue

__all__ = ("INVALID", "check_value")


class _Invalid:
    __slots__ = ()

    def __repr__(self) -> str:
        return "INVALID"


#: Returned when the value did not validate (the problems say why).
INVALID: Final = _Invalid()

_KIND_NAMES: Final = {
    "string": "a string",
    "boolean": "a boolean",
    "integer": "an integer",
    "number": "a number",
    "null": "null",
    "array": "an array (tuple)",
    "object": "an object (struct)",
}


def _expected(desc: Descriptor) -> str:
    text = _KIND_NAMES[desc["kind"]]
    return f"{text} or null" if desc.get("nullable") else text


def check_value(value: ZonValue, desc: Descriptor, path: str, problems: Problems) -> Any:
    """Check ``value`` against normalized descriptor ``desc``; INVALID after reporting."""
    kind = desc["kind"]
    if value is None and (kind == "null" or desc.get("nullable")):
        return None
    if isinstance(value, ZonEnum) and kind == "string":
        value = value.name  # enum literals are metadata; on the wire they are strings (§3)
    if value is ZON_EMPTY and kind in ("array", "object"):
        value = [] if kind == "array" else {}
    result: Any = INVALID
    if kind == "string" and isinstance(value, str):
        result = _check_string(value, desc, path, problems)
    elif kind == "boolean" and isinstance(value, bool):
        result = value
    elif kind in ("integer", "number") and _numeric_for(kind, value):
        assert isinstance(value, int | float)
        result = _check_number(value, desc, path, problems)
    elif kind == "array" and isinstance(value, list):
        result = _check_array(value, desc, path, problems)
    elif kind == "object" and isinstance(value, dict):
        result = _check_object(value, desc["fields"], path, problems)
    else:
        problems.add(path, f"expected {_expected(desc)}, got {describe(value)}")
    return result


def _numeric_for(kind: str, value: object) -> bool:
    if isinstance(value, bool):
        return False
    if kind == "integer":
        return isinstance(value, int)
    return isinstance(value, int | float)


def _check_string(value: str, desc: Descriptor, path: str, problems: Problems) -> Any:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        problems.add(path, "string is not valid UTF-8 (lone surrogate)")
        return INVALID
    choices = desc.get("choices")
    if choices is not None and value not in choices:
        listed = ", ".join(quote(choice) for choice in choices)
        problems.add(path, f"{describe(value)} is not one of {listed}")
        return INVALID
    return value


def _check_number(value: int | float, desc: Descriptor, path: str, problems: Problems) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        problems.add(path, f"number must be finite, got {value!r}")
        return INVALID
    if isinstance(value, int) and abs(value) > MAX_SAFE_INTEGER:
        problems.add(path, f"integer {value} is outside ±{MAX_SAFE_INTEGER}")
        return INVALID
    if "min" in desc and value < desc["min"]:
        problems.add(path, f"{value!r} is less than the minimum {desc['min']!r}")
        return INVALID
    if "max" in desc and value > desc["max"]:
        problems.add(path, f"{value!r} is greater than the maximum {desc['max']!r}")
        return INVALID
    return value


def _check_array(value: list[ZonValue], desc: Descriptor, path: str, problems: Problems) -> Any:
    items = [
        check_value(item, desc["items"], f"{path}[{i}]", problems) for i, item in enumerate(value)
    ]
    return INVALID if any(item is INVALID for item in items) else items


def _check_object(
    value: dict[str, ZonValue], fields: list[Field], path: str, problems: Problems
) -> Any:
    by_name = {field["name"]: field for field in fields}
    out: dict[str, Any] = {}
    ok = True
    for name, member in value.items():
        field = by_name.get(name)
        if field is None:
            problems.add(path, f"unknown field {quote(name)}")
            ok = False
            continue
        checked = check_value(member, field["type"], f"{path}.{name}", problems)
        ok = ok and checked is not INVALID
        out[name] = checked
    for field in fields:
        if field["required"] and field["name"] not in value:
            problems.add(path, f'missing required field "{field["name"]}"')
            ok = False
    return out if ok else INVALID
