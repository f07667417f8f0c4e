"""The standard verb bundles merged into every manifest (RFC-0004 §7), read from data.

* ``core``: RFC-0002 §4.5 ``hello``, ``cancel`` (transport operations) and ``ping``.
* ``agent``: RFC-0001 as designed in ``rfcs/0001-shared-verbs.md``: ``serve`` and ``mcp``
  (local bootstrap), ``skill``, ``doctor``, ``config.*``, the issued tokens and the rest.
* ``events``: ``events`` as designed in ``rfcs/0003-events.md``.

Each bundle is a ZON file shipped in this distribution, ``venom_schema/bundles/<name>.zon``,
written like a product's ``verbs.zon`` with ``.bundle = .<name>`` where a manifest has ``.tool``
and ``.summary``; the same ZON reader parses it and the same verb validator checks its records
each time they are merged.

The members ``shared`` and ``dispatch`` are admitted by where a record comes from, never by what
it says: ``validate_verb(..., bundle=True)`` accepts them, and only the merge of these files'
records passes ``bundle=True`` (``load_manifest`` and ``validate_manifest`` cannot ask for it, so
a product's ``verbs.zon`` or ``Declaration`` that uses them gets ``unknown member``). Every record
of a bundle file must carry ``.shared`` naming that file's bundle. Each file is read once per
process; the CLI never comes here (it reads the cached model JSON).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Final, TypeAlias

from venom_schema.manifest._errors import ManifestError, Problems
from venom_schema.manifest._raw import (
    check_members,
    describe,
    enum_choice,
    expect_struct,
    expect_tuple,
)
from venom_schema.zon._values import ZON_EMPTY, ZonValue

__all__ = (
    "BUNDLE_NAMES",
    "DEFAULT_BUNDLES",
    "bundle_records",
    "bundle_verbs",
    "bundles_by_name",
    "shared_names",
)

#: Every standard bundle, in merge order (the order of the raw records a model is built from).
BUNDLE_NAMES: Final = ("core", "agent", "events")
#: The bundles merged when the caller names none.
DEFAULT_BUNDLES: Final = BUNDLE_NAMES

_Record: TypeAlias = dict[str, ZonValue]


def bundle_verbs(names: Sequence[str]) -> list[_Record]:
    """The raw records of the named bundles (``core`` is always included), in merge order.

    The records are shared by every call: read them, never change them.
    """
    wanted = {"core", *names}
    unknown = wanted.difference(BUNDLE_NAMES)
    if unknown:
        raise ValueError(f"unknown bundle(s): {', '.join(sorted(unknown))}")
    return [record for name in BUNDLE_NAMES if name in wanted for record in bundle_records(name)]


@functools.cache
def bundle_records(name: str) -> tuple[_Record, ...]:
    """The raw verb records of bundle ``name`` in file order; `ManifestError` for a bad file."""
    from importlib.resources import files

    from venom_schema.zon import parse_zon

    if name not in BUNDLE_NAMES:
        raise ValueError(f"unknown bundle: {name}")
    source = f"venom_schema/bundles/{name}.zon"
    raw = parse_zon((files("venom_schema") / "bundles" / f"{name}.zon").read_bytes(), source)
    return _check_bundle_file(raw, name, source)


def _check_bundle_file(raw: ZonValue, name: str, source: str) -> tuple[_Record, ...]:
    """The root of a bundle file and each record's ``shared``; the merge validates the rest."""
    problems = Problems()
    root = expect_struct(raw, "bundle", problems) or {}
    members = ("format", "bundle", "verbs")
    check_members(root, "bundle", problems, allowed=members, required=members)
    fmt = root.get("format")
    if "format" in root and (isinstance(fmt, bool) or fmt != 1):
        problems.add("format", f"unsupported format {describe(fmt)}; only format 1 is supported")
    if "bundle" in root:
        enum_choice(root["bundle"], (name,), "bundle", problems)
    records: list[_Record] = []
    items = expect_tuple(root.get("verbs", ZON_EMPTY), "verbs", problems) or []
    for index, item in enumerate(items):
        path = f"verbs[{index}]"
        record = expect_struct(item, path, problems)
        if record is None:
            continue
        if not isinstance(record.get("name"), str):
            problems.add(path, f"expected a string name, got {describe(record.get('name'))}")
        if "shared" in record:
            enum_choice(record["shared"], (name,), f"{path}.shared", problems)
        else:
            problems.add(path, 'missing required member "shared"')
        records.append(record)
    problems.raise_if_any(source)
    if not records:
        raise ManifestError(source, ["verbs: a bundle declares at least one verb"])
    return tuple(records)


@functools.cache
def shared_names() -> Mapping[str, str]:
    """Shared wire name -> the bundle that declares it."""
    return MappingProxyType(
        {str(record["name"]): name for name in BUNDLE_NAMES for record in bundle_records(name)}
    )


@functools.cache
def bundles_by_name() -> Mapping[str, tuple[str, ...]]:
    """Bundle name -> the wire names of its verbs, in declaration order."""
    return MappingProxyType(
        {name: tuple(str(r["name"]) for r in bundle_records(name)) for name in BUNDLE_NAMES}
    )
