"""Model JSON read back through the manifest validator (``venom-gen compat``'s model inputs).

A normalized model names its enum literals as strings; the validator takes ZON values, so the
members that are enum literals in a manifest (a verb's ``grant``, ``shared``, ``dispatch``, an
exit policy's and every descriptor's ``kind``) become `ZonEnum` again and the rest passes as
is. Bundle verbs (those with ``shared``) are checked as bundle records, as they were recorded:
a model from an older release keeps its older bundles. Members whose name starts with ``$``
are a file's own metadata (the model cache's ``$cache``), never the model's.
"""

from __future__ import annotations

import json
from typing import Any

from venom_schema.manifest._errors import ManifestError, Problems
from venom_schema.manifest._normalize import assemble_model
from venom_schema.manifest._raw import check_members, check_text, describe
from venom_schema.manifest._validate_names import check_names
from venom_schema.manifest._validate_verbs import validate_verb
from venom_schema.model import Model, Verb
from venom_schema.zon import ZonEnum

__all__ = ("read_model",)


def read_model(data: bytes | str, source: str = "<model>") -> Model:
    """The normalized model in the JSON text ``data`` (``venom-gen normalize``'s output, a
    model cache, the ``manifest`` verb's ``model``), checked by the manifest validator.

    Raises `venom_schema.manifest.ManifestError` (``source: path: message`` lines) for text
    that is not JSON or not a valid format-1 model.
    """
    try:
        document = json.loads(data, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        raise ManifestError(source, [f"model: not JSON: {exc}"]) from None
    if not isinstance(document, dict):
        raise ManifestError(source, [f"model: expected a JSON object, got {describe(document)}"])
    root = {k: v for k, v in document.items() if not (isinstance(k, str) and k.startswith("$"))}
    fmt = root.get("format")
    if isinstance(fmt, bool) or fmt != 1:
        problem = f"format: unsupported format {describe(fmt)}; only format 1 is supported"
        raise ManifestError(source, [problem])
    problems = Problems()
    members = ("format", "tool", "summary", "verbs")
    check_members(root, "model", problems, allowed=members, required=members)
    tool = check_text(root.get("tool"), "tool", problems) if "tool" in root else None
    summary = check_text(root.get("summary"), "summary", problems) if "summary" in root else None
    raw_verbs = root.get("verbs", [])
    if not isinstance(raw_verbs, list):
        problems.add("verbs", f"expected an array, got {describe(raw_verbs)}")
        raw_verbs = []
    verbs: list[Verb] = []
    seen: set[str] = set()
    for index, raw in enumerate(raw_verbs):
        name = raw.get("name") if isinstance(raw, dict) else None
        label = name if isinstance(name, str) else str(index)
        if isinstance(name, str) and name in seen:
            problems.add("verbs", f'duplicate verb name "{name}"')
            continue
        seen.add(label)
        bundle = isinstance(raw, dict) and "shared" in raw
        verb = validate_verb(_as_zon_verb(raw), f"verbs[{label}]", problems, bundle=bundle)
        if verb is not None:
            verbs.append(verb)
    check_names(tool, verbs, problems)
    problems.raise_if_any(source)
    if tool is None or summary is None:  # already reported
        raise ManifestError(source, ["model: invalid tool or summary"])
    return assemble_model(tool, summary, verbs)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON (RFC 8259 has no non-finite numbers)")


def _enum(value: Any) -> Any:
    return ZonEnum(value) if isinstance(value, str) else value


def _as_zon_verb(raw: Any) -> Any:
    if not isinstance(raw, dict):
        return raw
    verb = dict(raw)
    for member in ("grant", "shared", "dispatch"):
        if member in verb:
            verb[member] = _enum(verb[member])
    if isinstance(verb.get("exit"), dict):
        verb["exit"] = {**verb["exit"], "kind": _enum(verb["exit"].get("kind"))}
    if "params" in verb:
        verb["params"] = _fields(verb["params"])
    for member in ("result", "item"):
        if member in verb:
            verb[member] = _descriptor(verb[member])
    if isinstance(verb.get("errors"), list):
        verb["errors"] = [
            {**e, "data": _descriptor(e["data"])} if isinstance(e, dict) and "data" in e else e
            for e in verb["errors"]
        ]
    return verb


def _fields(raw: Any) -> Any:
    if not isinstance(raw, list):
        return raw
    return [
        {**f, "type": _descriptor(f["type"])} if isinstance(f, dict) and "type" in f else f
        for f in raw
    ]


def _descriptor(raw: Any) -> Any:
    if not isinstance(raw, dict):
        return raw
    desc = dict(raw)
    if "kind" in desc:
        desc["kind"] = _enum(desc["kind"])
    if "items" in desc:
        desc["items"] = _descriptor(desc["items"])
    if "fields" in desc:
        desc["fields"] = _fields(desc["fields"])
    return desc
