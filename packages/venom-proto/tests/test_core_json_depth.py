"""The nesting bound of the stdlib JSON twin, and the model cache read without a nesting scan."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from venom_proto import stdjson
from venom_proto._core.errors import VenomError
from venom_proto.model_cache import load_model
from venom_proto.stdjson import MAX_DEPTH, std_dumps, std_loads


def _nesting(value: Any) -> int:
    if isinstance(value, list):
        return 1 + max(map(_nesting, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(_nesting, value.values()), default=0)
    return 0


# Strings full of what the scan must see through: quotes, backslashes, brackets.
TRICKY_TEXT = st.text(alphabet='\\"[]{}a\u00e9', max_size=8)
NESTED = st.recursive(
    st.none() | st.integers() | TRICKY_TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TRICKY_TEXT, inner, max_size=3),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(NESTED)
def test_the_depth_scan_is_exact_for_valid_json(value: Any) -> None:
    assert stdjson._depth(std_dumps(value)) == _nesting(value)


def test_the_scan_runs_only_when_the_bound_can_be_passed(monkeypatch: pytest.MonkeyPatch) -> None:
    """At most MAX_DEPTH opening brackets cannot nest deeper than MAX_DEPTH: no scan."""
    data = b"[" * MAX_DEPTH + b"]" * MAX_DEPTH

    def scan(data: bytes) -> int:
        raise AssertionError("scanned")

    monkeypatch.setattr(stdjson, "_depth", scan)
    assert isinstance(std_loads(data), list)
    with pytest.raises(AssertionError, match="scanned"):
        std_loads(b"[" + data + b"]")


def _cache(tmp_path: Path, verbs: Any) -> Path:
    path = tmp_path / "verbs.model.json"
    path.write_bytes(std_dumps({"format": 1, "tool": "demo", "verbs": verbs, "$cache": {}}))
    return path


def test_the_model_cache_is_read_without_a_nesting_scan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Our own build output (its manifest parser bounds the nesting) costs no scan per call."""
    verbs = [{"name": f"v{i}", "params": [[{}]]} for i in range(2 * MAX_DEPTH)]
    path = _cache(tmp_path, verbs)

    def scan(data: bytes) -> int:
        raise AssertionError("scanned")

    monkeypatch.setattr(stdjson, "_depth", scan)
    assert load_model(path)["verbs"] == verbs


def test_a_model_cache_nested_past_the_budget_is_a_clean_error(tmp_path: Path) -> None:
    path = tmp_path / "verbs.model.json"
    depth = 100_000
    path.write_bytes(b'{"format":1,"tool":"demo","verbs":' + b"[" * depth + b"]" * depth + b"}")
    with pytest.raises(VenomError) as caught:
        load_model(path)
    assert caught.value.code == "internal.model"
    assert "nested too deeply" in caught.value.message
