"""Smoke runs of every benchmark at a tiny size, so the bench code cannot rot unnoticed.

The figures are meaningless at these sizes; what is checked is that each group starts its
daemons, drives them, stops them and returns well-formed rows.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from bench import (
    __main__ as bench_main,
)
from bench import (
    bench_compat,
    bench_family,
    bench_frames,
    bench_mcp,
    bench_ndjson,
    bench_process,
    bench_validation,
)
from bench._util import Row, format_table

ROOT = Path(__file__).resolve().parents[1]


def _assert_rows(rows: list[Row], expected: int) -> None:
    assert len(rows) == expected
    for row in rows:
        assert row.ours > 0, row
        assert math.isfinite(row.ours), row
        assert row.verdict in {"PASS", "MISS", "-"}, row
        json.dumps(row.to_json(), allow_nan=False)


def test_ndjson_rows() -> None:
    sizes = bench_ndjson.Sizes(rounds=1, pipelined=200, sequential=20, clients=3, each=10)
    rows = bench_ndjson.run(sizes)
    _assert_rows(rows[:8], 8)
    assert all(r.baseline > 0 for r in rows[:8])
    assert [r.unit for r in rows[8:]] == ["us"] * 4


def test_frames_rows() -> None:
    rows = bench_frames.run(bench_frames.Sizes(rounds=1, frames=16, chunk=4096, inflight=2))
    _assert_rows(rows[:2], 2)
    assert all(r.unit == "MB/s" for r in rows[:2])
    assert all(r.baseline > 0 for r in rows[:2])


def test_compat_rows() -> None:
    rows = bench_compat.run(bench_compat.Sizes(runs=1, compares=2, verbs=20))
    _assert_rows(rows, 4)
    assert [r.check for r in rows] == ["added", "added", "info", "info"]


def test_process_rows() -> None:
    rows = bench_process.run(bench_process.Sizes(runs=1, import_runs=1))
    _assert_rows(rows, 14)
    assert rows[0].name.startswith("sync client")
    assert rows[0].check == "max"
    by_name = {row.name: row for row in rows}
    bare = by_name["CLI venom-echo echo vs python -c pass"]  # issue 22's floor
    assert (bare.check, bare.floor) == ("max", 1.5)


def test_family_rows() -> None:
    rows = bench_family.run(bench_family.Sizes(runs=1, import_runs=1))
    _assert_rows(rows, 6)
    assert rows[0].name.startswith("venom call")
    assert rows[0].check == "max"


def test_validation_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench_validation, "NUMBER", 200)
    monkeypatch.setattr(bench_validation, "REPEAT", 1)
    _assert_rows(bench_main.validation_rows(), 2)


def test_mcp_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench_mcp, "CALLS", 3)
    monkeypatch.setattr(bench_mcp, "STARTS", 1)
    rows = bench_main.mcp_rows(product_starts=1)
    # Row 8, then each revision with and without a progressToken, then two start-ups.
    _assert_rows(rows, 3 + 2 * len(bench_mcp.REVISIONS))
    assert all(row.check == "added" for row in rows[: 1 + 2 * len(bench_mcp.REVISIONS)])


def test_verdicts_follow_the_check() -> None:
    assert Row("rate", 60, 100, "req/s", "min", 0.5).verdict == "PASS"
    assert Row("rate", 40, 100, "req/s", "min", 0.5).verdict == "MISS"
    assert Row("time", 14, 10, "ms", "max", 1.3).verdict == "MISS"
    assert Row("added", 2.5, 1.0, "ms", "added", 2.0).verdict == "PASS"
    assert Row("info", 1, 0, "ms", "info").verdict == "-"
    assert Row("info", 1, 0, "ms", "info").to_json()["ratio"] is None


def test_table_lists_every_row() -> None:
    rows = [Row("one", 1.5, 3.0, "ms", "max", 1.3), Row("two", 2000, 1000, "req/s", "min", 0.5)]
    table = format_table(rows).splitlines()
    assert len(table) == 3
    assert table[1].startswith("one")
    assert table[1].endswith("PASS")
    assert "2,000" in table[2]
    assert "1,000" in table[2]


def test_unknown_group_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench_main.main(["no-such-group"]) == 2
    assert "no-such-group" in capsys.readouterr().err
