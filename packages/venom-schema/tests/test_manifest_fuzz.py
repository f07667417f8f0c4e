"""Bad input gets a ManifestError, never a traceback: random values anywhere in a manifest."""

from __future__ import annotations

import copy
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from venom_schema.manifest import ManifestError, validate_manifest
from venom_schema.zon import ZON_EMPTY, ZonChar, ZonEnum, ZonValue, parse_zon

ECHO = parse_zon((Path(__file__).parent / "manifests" / "echo.zon").read_bytes(), "echo.zon")

_names = st.sampled_from(
    [
        "name",
        "summary",
        "kind",
        "type",
        "fields",
        "items",
        "choices",
        "default",
        "required",
        "nullable",
        "min",
        "max",
        "code",
        "data",
        "params",
        "result",
        "grant",
        "x",
    ]
)
_leaf: st.SearchStrategy[ZonValue] = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**60), 2**60),
    st.floats(),
    st.text(max_size=5),
    st.builds(ZonChar, st.integers(0, 0x10FFFF)),
    st.builds(ZonEnum, st.sampled_from(["string", "object", "read", "result", "zzz"])),
    st.just(ZON_EMPTY),
)
_values: st.SearchStrategy[ZonValue] = st.recursive(
    _leaf,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(_names, children, max_size=4),
    max_leaves=12,
)


def _containers(value: ZonValue) -> list[dict[str, ZonValue] | list[ZonValue]]:
    found: list[dict[str, ZonValue] | list[ZonValue]] = []
    if isinstance(value, dict):
        found.append(value)
        for member in value.values():
            found.extend(_containers(member))
    elif isinstance(value, list):
        found.append(value)
        for member in value:
            found.extend(_containers(member))
    return found


def _problems(raw: ZonValue) -> tuple[str, ...] | None:
    """The reported problems, or None when valid; anything but ManifestError propagates."""
    try:
        validate_manifest(raw, source="fuzz")
    except ManifestError as exc:
        return exc.problems
    return None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), _values)
def test_random_member_replacement(data: st.DataObject, replacement: ZonValue) -> None:
    raw = copy.deepcopy(ECHO)
    containers = _containers(raw)
    target = data.draw(st.sampled_from(containers))
    if isinstance(target, dict):
        key = data.draw(st.sampled_from([*target, "x"]))
        target[key] = replacement
    elif target:
        target[data.draw(st.integers(0, len(target) - 1))] = replacement
    problems = _problems(raw)
    assert problems is None or all(": " in problem for problem in problems)


@settings(max_examples=200, deadline=None)
@given(_values)
def test_random_root(raw: ZonValue) -> None:
    problems = _problems(raw)
    assert problems is None or len(problems) > 0
