"""The manifest root (RFC-0004 §2, §7): format, tool, summary, verbs and the bundle merge."""

from __future__ import annotations

import os
from collections.abc import Sequence

from venom_proto.conventions import TOOL_NAME_PATTERN, is_tool_name, is_wire_name
from venom_schema.manifest._bundles import DEFAULT_BUNDLES, bundle_verbs, shared_names
from venom_schema.manifest._errors import ManifestError, Problems
from venom_schema.manifest._normalize import assemble_model
from venom_schema.manifest._raw import (
    check_members,
    check_text,
    describe,
    expect_struct,
    expect_tuple,
)
from venom_schema.manifest._validate_names import check_names
from venom_schema.manifest._validate_verbs import validate_verb
from venom_schema.model import Model, Verb
from venom_schema.zon._values import ZonValue

__all__ = ("load_manifest", "validate_manifest")


def load_manifest(
    path: str | os.PathLike[str], *, bundles: Sequence[str] = DEFAULT_BUNDLES
) -> Model:
    """Read, parse and validate a ``verbs.zon``; the normalized model with bundles merged.

    Raises ``OSError`` if unreadable, ``ZonError`` for bad syntax, ``ManifestError`` otherwise.
    """
    from venom_schema.zon import parse_zon

    source = os.fspath(path)
    with open(source, "rb") as handle:
        data = handle.read()
    raw: ZonValue = parse_zon(data, source)
    return validate_manifest(raw, source=source, bundles=bundles)


def validate_manifest(
    raw: ZonValue, *, source: str = "<manifest>", bundles: Sequence[str] = DEFAULT_BUNDLES
) -> Model:
    """Validate a raw manifest and return its normalized model; raises ``ManifestError``.

    ``format`` is checked first: any value other than the integer 1 stops validation there.
    """
    problems = Problems()
    root = expect_struct(raw, "manifest", problems)
    if root is None:
        raise ManifestError(source, problems.items)
    if "format" not in root:
        raise ManifestError(source, ['manifest: missing required member "format"'])
    fmt = root["format"]
    if isinstance(fmt, bool) or fmt != 1 or not isinstance(fmt, int):
        raise ManifestError(
            source, [f"format: unsupported format {describe(fmt)}; only format 1 is supported"]
        )
    check_members(
        root,
        "manifest",
        problems,
        allowed=("format", "tool", "summary", "verbs"),
        required=("tool", "summary", "verbs"),
    )
    tool = check_text(root["tool"], "tool", problems) if "tool" in root else None
    if tool is not None and not is_tool_name(tool):
        problems.add("tool", f'"{tool}" does not match {TOOL_NAME_PATTERN}')
        tool = None
    summary = check_text(root["summary"], "summary", problems) if "summary" in root else None
    verbs = _validate_verbs(root.get("verbs"), bundles, problems) if "verbs" in root else []
    check_names(tool, verbs, problems)
    problems.raise_if_any(source)
    if tool is None or summary is None:  # already reported; keeps the types honest
        raise ManifestError(source, ["manifest: invalid tool or summary"])
    return assemble_model(tool, summary, verbs)


def _validate_verbs(raw: ZonValue, bundles: Sequence[str], problems: Problems) -> list[Verb]:
    items = expect_tuple(raw, "verbs", problems)
    valid: list[Verb] = []
    seen: set[str] = set()
    shared = shared_names()
    for index, item in enumerate(items or []):
        name = item.get("name") if isinstance(item, dict) else None
        label: str = str(index)
        keep = True
        if isinstance(name, str) and is_wire_name(name):
            if name in shared:
                problems.add(
                    f"verbs[{name}]",
                    f'"{name}" is a shared verb of the {shared[name]} bundle;'
                    " products must not declare it",
                )
                continue
            if name in seen:
                problems.add("verbs", f'duplicate verb name "{name}"')
                keep = False  # still validated under its index, never merged twice
            else:
                seen.add(name)
                label = name
        _add_verb(item, f"verbs[{label}]", problems, valid if keep else [], bundle=False)
    for record in bundle_verbs(bundles):
        _add_verb(record, f"verbs[{record['name']}]", problems, valid, bundle=True)
    return valid


def _add_verb(
    raw: ZonValue, path: str, problems: Problems, out: list[Verb], *, bundle: bool
) -> None:
    verb = validate_verb(raw, path, problems, bundle=bundle)
    if verb is not None:
        out.append(verb)
