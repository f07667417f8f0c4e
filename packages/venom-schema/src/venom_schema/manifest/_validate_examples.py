"""Examples (RFC-0004 §2): ``{params, result}`` records checked against the verb's types."""

from __future__ import annotations

from typing import Any, cast

from venom_schema.manifest._errors import Problems
from venom_schema.manifest._raw import check_members, expect_struct, expect_tuple
from venom_schema.manifest._value_check import INVALID, check_value
from venom_schema.model import Descriptor, Example, Field
from venom_schema.zon._values import ZonValue

__all__ = ("validate_examples",)


def validate_examples(
    raw: ZonValue,
    path: str,
    problems: Problems,
    *,
    params: list[Field] | None,
    result: Descriptor | None,
) -> list[Example] | None:
    """Validate examples; params and result are None when their declarations were invalid.

    Example params are kept as written (not default-expanded) so that generated CLI examples
    show what the author wrote; they validate as they would after default insertion.
    """
    items = expect_tuple(raw, path, problems)
    if items is None:
        return None
    before = len(problems)
    examples: list[Example] = []
    for index, item in enumerate(items):
        item_path = f"{path}[{index}]"
        record = expect_struct(item, item_path, problems)
        if record is None:
            continue
        if not check_members(
            record, item_path, problems, allowed=("params", "result"), required=("params", "result")
        ):
            continue
        example: dict[str, Any] = {}
        if params is not None:
            params_desc: Descriptor = {"kind": "object", "fields": params}
            example["params"] = check_value(
                record["params"], params_desc, f"{item_path}.params", problems
            )
        if result is not None:
            example["result"] = check_value(
                record["result"], result, f"{item_path}.result", problems
            )
        if params is not None and result is not None and INVALID not in example.values():
            examples.append(cast("Example", example))
    return examples if len(problems) == before else None
