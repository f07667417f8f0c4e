"""venom-gen --out and --check: writing files, detecting drift, `all` and the model cache."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from venom_gen.build.artifacts import all_artifacts
from venom_gen.build.devcli.app import app
from venom_gen.build.man import render_man_pages
from venom_gen.build.markdown import render_markdown
from venom_proto.model_cache import load_cache_info, load_model
from venom_schema.manifest import load_manifest

DEMO = """\
.{
    .format = 1,
    .tool = "demo",
    .summary = "A demo tool",
    .verbs = .{
        .{ .name = "greet", .summary = "Hello", .result = .{ .kind = .string }, .grant = .read },
    },
}
"""


def invoke(*args: str) -> Result:
    result = CliRunner().invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    path = tmp_path / "src" / "verbs.zon"
    path.parent.mkdir()
    path.write_text(DEMO, encoding="utf-8")
    return path


def test_out_writes_exact_bytes(demo: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = invoke("markdown", str(demo), "--out", str(out))
    assert result.exit_code == 0
    assert (out / "demo.md").read_bytes() == render_markdown(load_manifest(demo)).encode()
    assert result.stdout == ""
    assert "wrote 1 file(s), 0 unchanged" in result.stderr


def test_man_out_writes_every_page(demo: Path, tmp_path: Path) -> None:
    out = tmp_path / "man"
    assert invoke("man", str(demo), "--out", str(out)).exit_code == 0
    pages = render_man_pages(load_manifest(demo))
    assert sorted(p.name for p in out.iterdir()) == sorted(pages)


def test_check_passes_when_fresh(demo: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    invoke("skill", str(demo), "--out", str(out))
    result = invoke("skill", str(demo), "--out", str(out), "--check")
    assert result.exit_code == 0
    assert "1 file(s) up to date" in result.stderr


def test_check_fails_on_stale_file_with_short_diff(demo: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    invoke("skill", str(demo), "--out", str(out))
    skill = out / "SKILL.md"
    skill.write_text(skill.read_text().replace("demo", "dmeo", 1), encoding="utf-8")
    before = skill.read_bytes()
    result = invoke("skill", str(demo), "--out", str(out), "--check")
    assert result.exit_code == 1
    assert f"stale: {skill}" in result.stderr
    assert "-name: dmeo" in result.stderr
    assert "+name: demo" in result.stderr
    assert skill.read_bytes() == before  # --check writes nothing


def test_check_detects_line_ending_only_drift(demo: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    invoke("skill", str(demo), "--out", str(out))
    skill = out / "SKILL.md"
    skill.write_bytes(skill.read_bytes().replace(b"\n", b"\r\n"))
    result = invoke("skill", str(demo), "--out", str(out), "--check")
    assert result.exit_code == 1
    assert "line endings or trailing newline differ" in result.stderr


def test_check_long_diff_is_truncated(demo: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "demo.md").write_text("x\n" * 200, encoding="utf-8")
    result = invoke("markdown", str(demo), "--out", str(out), "--check")
    assert result.exit_code == 1
    assert "more diff lines" in result.stderr
    assert len(result.stderr.splitlines()) < 30


def test_check_fails_on_missing_file(demo: Path, tmp_path: Path) -> None:
    result = invoke("catalog", str(demo), "--out", str(tmp_path / "none"), "--check")
    assert result.exit_code == 1
    assert f"missing: {tmp_path / 'none' / 'catalog.json'}" in result.stderr


def test_check_without_out_is_a_usage_error(demo: Path) -> None:
    result = invoke("skill", str(demo), "--check")
    assert result.exit_code == 2
    assert "--check needs --out DIR" in result.stderr


def test_rewrite_leaves_unchanged_files_untouched(demo: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    invoke("markdown", str(demo), "--out", str(out))
    os.utime(out / "demo.md", (1_000_000, 1_000_000))
    result = invoke("markdown", str(demo), "--out", str(out))
    assert "wrote 0 file(s), 1 unchanged" in result.stderr
    assert (out / "demo.md").stat().st_mtime == 1_000_000


def test_all_writes_layout_and_model_cache(demo: Path, tmp_path: Path) -> None:
    out = tmp_path / "generated"
    result = invoke("all", str(demo), "--out", str(out))
    assert result.exit_code == 0, result.stderr
    model = load_manifest(demo)
    expected = all_artifacts(model)
    written = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert written == set(expected)
    assert {
        "docs/demo.md",
        "man/demo.1",
        "completions/_demo",
        "SKILL.md",
        "catalog.json",
    } <= written
    for name, text in expected.items():
        assert (out / name).read_bytes() == text.encode()
    cache = demo.with_name("verbs.model.json")
    assert load_model(cache) == model
    assert load_cache_info(cache)["digest"].startswith("sha256:")
    assert invoke("all", str(demo), "--out", str(out), "--check").exit_code == 0


def test_all_requires_out(demo: Path) -> None:
    assert invoke("all", str(demo)).exit_code == 2


def test_all_check_fails_when_manifest_changed(demo: Path, tmp_path: Path) -> None:
    out = tmp_path / "generated"
    invoke("all", str(demo), "--out", str(out))
    demo.write_text(DEMO.replace("Hello", "Hi"), encoding="utf-8")
    result = invoke("all", str(demo), "--out", str(out), "--check")
    assert result.exit_code == 1
    assert f"stale: {out / 'docs' / 'demo.md'}" in result.stderr
    assert f"stale: {demo.with_name('verbs.model.json')}" in result.stderr


def test_all_extra_file_fails_check_and_prune_removes_it(demo: Path, tmp_path: Path) -> None:
    out = tmp_path / "generated"
    invoke("all", str(demo), "--out", str(out))
    leftover = out / "man" / "demo-removed.1"
    leftover.write_text("old\n", encoding="utf-8")
    (out / ".keep").write_text("", encoding="utf-8")  # hidden files are not artifacts
    result = invoke("all", str(demo), "--out", str(out), "--check")
    assert result.exit_code == 1
    assert f"extra: {leftover}" in result.stderr
    assert ".keep" not in result.stderr
    kept = invoke("all", str(demo), "--out", str(out))
    assert leftover.exists()  # writing never deletes by default
    assert "extra:" in kept.stderr
    assert invoke("all", str(demo), "--out", str(out), "--prune").exit_code == 0
    assert not leftover.exists()
    assert invoke("all", str(demo), "--out", str(out), "--check").exit_code == 0


def test_all_ignores_files_outside_its_subdirectories(demo: Path, tmp_path: Path) -> None:
    """`--out .` must never flag or prune a project's own files."""
    out = tmp_path / "generated"
    invoke("all", str(demo), "--out", str(out))
    own = out / "README.txt"
    own.write_text("mine\n", encoding="utf-8")
    (out / "man" / "notes").mkdir()
    assert invoke("all", str(demo), "--out", str(out), "--check").exit_code == 0
    assert invoke("all", str(demo), "--out", str(out), "--prune").exit_code == 0
    assert own.exists()


def test_model_writes_cache_next_to_manifest(demo: Path) -> None:
    result = invoke("model", str(demo))
    assert result.exit_code == 0
    cache = demo.with_name("verbs.model.json")
    assert load_model(cache) == load_manifest(demo)
    assert invoke("model", str(demo), "--check").exit_code == 0
    cache.write_text(cache.read_text().replace("Hello", "Hi"), encoding="utf-8")
    result = invoke("model", str(demo), "--check")
    assert result.exit_code == 1
    assert f"stale: {cache}" in result.stderr


def test_model_out_dir(demo: Path, tmp_path: Path) -> None:
    out = tmp_path / "cache"
    assert invoke("model", str(demo), "--out", str(out)).exit_code == 0
    assert load_model(out / "verbs.model.json") == load_manifest(demo)
    assert not demo.with_name("verbs.model.json").exists()


def test_out_that_is_a_file_fails_cleanly(demo: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    result = invoke("catalog", str(demo), "--out", str(blocker / "sub"))
    assert result.exit_code == 1
    assert result.stderr.startswith("venom-gen: ")
