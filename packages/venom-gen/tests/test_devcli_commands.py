"""venom-gen's single-output commands: check, normalize, digest and the generators on stdout."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from venom_gen.build import artifacts
from venom_gen.build.completions import render_bash, render_fish, render_zsh
from venom_gen.build.devcli.app import app
from venom_gen.build.man import render_man_pages
from venom_gen.build.markdown import render_markdown
from venom_gen.render._views import GenerationError
from venom_gen.render.catalog import build_catalog
from venom_gen.render.skill import render_skill
from venom_schema.canonical import canonical_json, digest
from venom_schema.manifest import load_manifest

DEMO = """\
.{
    .format = 1,
    .tool = "demo",
    .summary = "A demo tool",
    .verbs = .{
        .{
            .name = "greet",
            .summary = "Say hello",
            .params = .{
                .{ .name = "who", .summary = "W", .type = .{ .kind = .string }, .required = true },
            },
            .result = .{ .kind = .string },
            .grant = .write,
        },
    },
}
"""


def invoke(*args: str) -> Result:
    result = CliRunner().invoke(app, list(args))
    # Failures exit through SystemExit; any other exception would have been a traceback.
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    path = tmp_path / "verbs.zon"
    path.write_text(DEMO, encoding="utf-8")
    return path


def test_check_ok_prints_one_line(demo: Path) -> None:
    result = invoke("check", str(demo))
    assert result.exit_code == 0
    assert result.stdout.count("\n") == 1
    assert result.stdout.startswith(f"{demo}: OK (demo, ")


def test_check_lists_every_problem(demo: Path) -> None:
    """Every problem is printed as `path: message`; exit 1; nothing on stdout."""
    bad = DEMO.replace(".kind = .string }, .required", ".kind = .strin }, .required")
    demo.write_text(bad.replace(".grant = .write", ".grant = .root"), encoding="utf-8")
    result = invoke("check", str(demo))
    assert result.exit_code == 1
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert lines[0].startswith("verbs[greet].params[who].type.kind: unknown .strin")
    assert lines[1].startswith("verbs[greet].grant: unknown .root")
    assert lines[2] == f"{demo}: 2 problem(s)"


def test_check_rejects_unsupported_format(demo: Path) -> None:
    """RFC-0004 §7: generators MUST reject unsupported format versions."""
    demo.write_text(DEMO.replace(".format = 1", ".format = 2"), encoding="utf-8")
    result = invoke("check", str(demo))
    assert result.exit_code == 1
    assert result.stderr.startswith("format: unsupported format integer 2;")


def test_check_reports_zon_syntax_error_position(demo: Path) -> None:
    demo.write_text(".{ .format = }\n", encoding="utf-8")
    result = invoke("check", str(demo))
    assert result.exit_code == 1
    assert result.stderr == f"{demo}:1:14: expected a value, found '}}'\n"


def test_generator_on_invalid_manifest_prints_problems(demo: Path) -> None:
    demo.write_text(DEMO.replace(".grant = .write", ".grant = .root"), encoding="utf-8")
    result = invoke("markdown", str(demo))
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.startswith(f"{demo}: verbs[greet].grant: unknown .root")


def test_normalize_prints_canonical_json(demo: Path) -> None:
    """RFC-0004 §7: canonical JSON, no trailing newline, so its sha256 is the digest."""
    result = invoke("normalize", str(demo))
    assert result.exit_code == 0
    assert result.stdout_bytes == canonical_json(load_manifest(demo))
    assert (
        "sha256:" + hashlib.sha256(result.stdout_bytes).hexdigest()
        == invoke("digest", str(demo)).stdout.strip()
    )


def test_normalize_pretty_is_the_same_model(demo: Path) -> None:
    result = invoke("normalize", str(demo), "--pretty")
    assert result.exit_code == 0
    assert result.stdout.startswith('{\n  "format": 1,')
    assert json.loads(result.stdout) == load_manifest(demo)


def test_digest(demo: Path) -> None:
    """RFC-0004 §7: sha256: plus 64 lowercase hex digits over the canonical JSON."""
    result = invoke("digest", str(demo))
    assert result.exit_code == 0
    assert result.stdout == digest(load_manifest(demo)) + "\n"
    assert len(result.stdout.strip()) == len("sha256:") + 64


def test_catalog(demo: Path) -> None:
    result = invoke("catalog", str(demo))
    assert result.exit_code == 0
    assert json.loads(result.stdout) == build_catalog(load_manifest(demo))


def test_catalog_grant_filter(demo: Path) -> None:
    names = {t["name"] for t in json.loads(invoke("catalog", str(demo), "--grant", "read").stdout)}
    assert "greet" not in names  # needs write
    assert "doctor" in names
    assert "ping" not in names  # ping needs none
    result = invoke("catalog", str(demo), "--grant", "write", "--grant", "none")
    names = {t["name"] for t in json.loads(result.stdout)}
    assert {"greet", "ping", "config_dset"} <= names
    assert "doctor" not in names


def test_catalog_unknown_grant_is_a_usage_error(demo: Path) -> None:
    result = invoke("catalog", str(demo), "--grant", "root")
    assert result.exit_code == 2
    assert "unknown grant 'root'" in result.stderr


def test_markdown_and_skill(demo: Path) -> None:
    model = load_manifest(demo)
    assert invoke("markdown", str(demo)).stdout == render_markdown(model)
    assert invoke("skill", str(demo)).stdout == render_skill(model)


@pytest.mark.parametrize(
    ("shell", "render"), [("bash", render_bash), ("zsh", render_zsh), ("fish", render_fish)]
)
def test_completions(demo: Path, shell: str, render: object) -> None:
    result = invoke("completions", shell, str(demo))
    assert result.exit_code == 0
    assert callable(render)
    assert result.stdout == render(load_manifest(demo))


def test_completions_unknown_shell(demo: Path) -> None:
    assert invoke("completions", "tcsh", str(demo)).exit_code == 2


def test_man_page_by_name_with_or_without_suffix(demo: Path) -> None:
    pages = render_man_pages(load_manifest(demo))
    assert invoke("man", str(demo), "--page", "demo-greet").stdout == pages["demo-greet.1"]
    assert invoke("man", str(demo), "--page", "demo.1").stdout == pages["demo.1"]


def test_man_unknown_page(demo: Path) -> None:
    result = invoke("man", str(demo), "--page", "demo-nope")
    assert result.exit_code == 1
    assert "no man page 'demo-nope'; pages: demo-bridge.1, demo-completion-bash.1," in result.stderr


def test_man_without_out_or_page_is_a_usage_error(demo: Path) -> None:
    result = invoke("man", str(demo))
    assert result.exit_code == 2
    assert "pass --out DIR" in result.stderr
    assert result.stdout == ""


def test_generation_error_is_reported_without_traceback(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def collide(model: object) -> dict[str, str]:
        raise GenerationError("man page demo-a-b.1 collides")

    monkeypatch.setattr(artifacts, "render_man_pages", collide)
    result = invoke("man", str(demo), "--page", "demo")
    assert result.exit_code == 1
    assert result.stderr == "venom-gen: cannot generate: man page demo-a-b.1 collides\n"


def test_missing_manifest_file(tmp_path: Path) -> None:
    result = invoke("digest", str(tmp_path / "absent.zon"))
    assert result.exit_code == 1
    assert result.stderr == f"venom-gen: {tmp_path / 'absent.zon'}: No such file or directory\n"


def test_manifest_is_a_directory(tmp_path: Path) -> None:
    assert invoke("digest", str(tmp_path)).exit_code in (1, 2)


def test_no_source_is_a_usage_error() -> None:
    result = invoke("digest")
    assert result.exit_code == 2
    assert "exactly one" in result.stderr
