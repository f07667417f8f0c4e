"""Tool-specific error records (RFC-0004 §3): ``code``, ``summary``, optional ``data``.

``data`` describes the error object's ``data`` member, which RFC-0002 §7.1 defines as an
object: its descriptor must be of kind object. It may be nullable, as RFC-0004 §3 allows
nullable in error data at any depth (null data carries no details, like absent data).
"""

from __future__ import annotations

from typing import Any, Final, cast

from venom_proto.conventions import is_name_component as is_error_component
from venom_schema.manifest._errors import Problems
from venom_schema.manifest._raw import check_members, check_text, expect_struct, expect_tuple
from venom_schema.manifest._validate_types import validate_type
from venom_schema.model import Error
from venom_schema.names import ERROR_CLASSES
from venom_schema.zon._values import ZonValue

__all__ = ("validate_errors",)

_EMPTY_OBJECT: Final = {"kind": "object", "fields": []}


def validate_errors(raw: ZonValue, path: str, problems: Problems) -> list[Error] | None:
    """Validate the ``errors`` tuple; normalized records (data defaulted) or None."""
    items = expect_tuple(raw, path, problems)
    if items is None:
        return None
    before = len(problems)
    records: list[Error] = []
    seen: set[str] = set()
    for index, item in enumerate(items):
        code = item.get("code") if isinstance(item, dict) else None
        label = code if isinstance(code, str) and code not in seen else str(index)
        if isinstance(code, str) and code in seen:
            problems.add(path, f'duplicate error code "{code}"')
        elif isinstance(code, str):
            seen.add(code)
        record = _validate_error(item, f"{path}[{label}]", problems)
        if record is not None:
            records.append(record)
    return records if len(problems) == before else None


def _validate_error(raw: ZonValue, path: str, problems: Problems) -> Error | None:
    record = expect_struct(raw, path, problems)
    if record is None:
        return None
    before = len(problems)
    check_members(
        record, path, problems, allowed=("code", "summary", "data"), required=("code", "summary")
    )
    out: dict[str, Any] = {}
    if "code" in record:
        code = check_text(record["code"], f"{path}.code", problems)
        if code is not None:
            _check_code(code, f"{path}.code", problems)
        out["code"] = code
    if "summary" in record:
        out["summary"] = check_text(record["summary"], f"{path}.summary", problems)
    if "data" in record:
        data = validate_type(record["data"], f"{path}.data", problems, in_params=False)
        if data is not None and data["kind"] != "object":
            problems.add(
                f"{path}.data",
                "must be an object descriptor (RFC-0002 §7.1: an error's data is an object), "
                f"got .{data['kind']}",
            )
            data = None
        out["data"] = data
    else:
        out["data"] = dict(_EMPTY_OBJECT, fields=[])
    return cast("Error", out) if len(problems) == before else None


def _check_code(code: str, path: str, problems: Problems) -> None:
    components = code.split(".")
    if components[0] not in ERROR_CLASSES:
        problems.add(path, f'"{code}" does not start with an RFC-0002 error class')
        return
    if len(components) < 2:
        problems.add(path, f'"{code}" needs a refinement, e.g. "{code}.something"')
        return
    for component in components[1:]:
        if not is_error_component(component):
            problems.add(path, f'"{code}": component "{component}" does not match [a-z][a-z0-9_]*')
            return
