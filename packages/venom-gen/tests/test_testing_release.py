"""`venom_gen.testing.release_problems`: the release gate a product's tests run."""

from __future__ import annotations

from pathlib import Path

from test_devcli_process import DEMO

from venom_gen.testing import newest_release, release_problems
from venom_schema.canonical import canonical_json
from venom_schema.manifest import load_manifest


def _project(tmp_path: Path, *releases: str) -> Path:
    manifest = tmp_path / "verbs.zon"
    manifest.write_text(DEMO, encoding="utf-8")
    (tmp_path / "release").mkdir()
    for version in releases:
        path = tmp_path / "release" / f"{version}.model.json"
        path.write_bytes(canonical_json(load_manifest(manifest)))
    return manifest


def test_the_newest_release_is_the_highest_version(tmp_path: Path) -> None:
    _project(tmp_path, "0.9.0", "0.10.0", "0.2.1")
    (tmp_path / "release" / "notes.model.json").write_text("{}")
    newest = newest_release(tmp_path / "release")
    assert newest is not None
    assert newest[0] == "0.10.0"
    assert newest_release(tmp_path / "absent") is None


def test_nothing_released_means_nothing_to_break(tmp_path: Path) -> None:
    manifest = _project(tmp_path)
    assert release_problems(tmp_path / "release", manifest, "0.1.0") == []


def test_a_break_needs_its_bump(tmp_path: Path) -> None:
    manifest = _project(tmp_path, "1.2.3")
    manifest.write_text(DEMO.replace(".grant = .read", ".grant = .write"), encoding="utf-8")
    problems = release_problems(tmp_path / "release", manifest, "1.3.0")
    assert problems[0].startswith("1 breaking change(s) to ")
    assert "since release 1.2.3" in problems[0]
    assert problems[1] == "    breaking: greet: grant: grant read became the stronger write"
    assert "release it as 2.0.0 or later" in problems[2]
    assert release_problems(tmp_path / "release", manifest, "2.0.0") == []


def test_a_compatible_change_needs_no_bump(tmp_path: Path) -> None:
    manifest = _project(tmp_path, "0.4.0")
    manifest.write_text(DEMO.replace('"Hello"', '"Say hello"'), encoding="utf-8")
    assert release_problems(tmp_path / "release", manifest, "0.4.0") == []
