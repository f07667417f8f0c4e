"""``venom-gen compat OLD NEW [--json]`` through the real console script: every input form,
the exit statuses (0 compatible, 1 breaking, 2 unusable), the exact JSON, no tracebacks."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from test_devcli_process import DEMO, command

from venom_schema.canonical import canonical_json
from venom_schema.manifest import load_manifest

#: DEMO with a new optional param on greet and a new verb: compatible with DEMO, not back.
GROWN = DEMO.replace(
    ".grant = .read },",
    """.grant = .read,
           .params = .{ .{ .name = "loud", .summary = "Loud", .type = .{ .kind = .boolean } } } },
        .{ .name = "wave", .summary = "Wave", .result = .{ .kind = .null }, .grant = .read },""",
)


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*command(), "compat", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.fixture
def sides(tmp_path: Path) -> tuple[Path, Path]:
    old, new = tmp_path / "old.zon", tmp_path / "new" / "verbs.zon"
    new.parent.mkdir()
    old.write_text(DEMO, encoding="utf-8")
    new.write_text(GROWN, encoding="utf-8")
    return old, new


def test_a_compatible_evolution_exits_0_and_lists_its_changes(sides: tuple[Path, Path]) -> None:
    old, new = sides
    proc = run(str(old), str(new))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[:2] == [
        "compatible: greet: params[loud]: new optional param",
        "compatible: wave: verb added",
    ]
    assert lines[2].endswith(f"compatible with {old} (2 compatible change(s))")
    assert proc.stderr == ""


def test_the_other_way_breaks_and_exits_1(sides: tuple[Path, Path]) -> None:
    old, new = sides
    proc = run(str(new), str(old))
    assert proc.returncode == 1
    assert "breaking: wave: verb removed (or renamed)" in proc.stdout
    assert "breaking: greet: params[loud]: param removed" in proc.stdout
    assert proc.stdout.splitlines()[-1].endswith(f"2 breaking change(s) for clients of {new}")


def test_json_is_exactly_one_object(sides: tuple[Path, Path]) -> None:
    old, new = sides
    proc = run(str(new), str(old), "--json")
    assert proc.returncode == 1
    assert proc.stdout.count("\n") == 1
    data = json.loads(proc.stdout)
    assert set(data) == {"compatible", "changes"}
    assert data["compatible"] is False
    assert data["changes"][0] == {
        "verb": "greet",
        "path": "params[loud]",
        "kind": "field.removed",
        "breaking": True,
        "message": "param removed: callers that pass it are refused (invalid_params.unknown)",
    }
    assert all(set(c) == {"verb", "path", "kind", "breaking", "message"} for c in data["changes"])


def test_model_json_stdin_and_a_model_cache_are_sides(sides: tuple[Path, Path]) -> None:
    old, new = sides
    model = canonical_json(load_manifest(old)).decode()
    as_file = old.with_suffix(".model.json")
    as_file.write_text(model, encoding="utf-8")
    assert run(str(as_file), str(old)).stdout.startswith("venom-gen compat: ")
    assert run(str(as_file), str(old), "--json").stdout == '{"compatible":true,"changes":[]}\n'
    piped = run("-", str(new), "--json", stdin=DEMO)  # `git show v1:verbs.zon | ...`
    assert piped.returncode == 0
    assert json.loads(piped.stdout)["compatible"] is True
    assert run("-", str(new), stdin=model).returncode == 0  # JSON on stdin too


def test_a_python_declaration_is_a_side(sides: tuple[Path, Path]) -> None:
    old, _ = sides
    proc = run("venom_schema.no_such_module:DECL", str(old))
    assert proc.returncode == 2
    assert "cannot import 'venom_schema.no_such_module'" in proc.stderr


@pytest.mark.parametrize(
    ("old", "new", "stdin", "message"),
    [
        ("{missing}", "{old}", "", "absent.zon: no such file"),
        ("{old}", "{bad}", "", "bad.zon:1:"),
        ("{old}", "{invalid}", "", 'invalid.zon: manifest: missing required member "summary"'),
        ("-", "{old}", '{"format": 1, "tool": "demo"}', '<stdin>: model: missing required member'),
        ("-", "-", "", "only one side can be -"),
        ("{old}", "{dir}", "", "not a file"),
    ],
)  # fmt: skip
def test_unusable_input_exits_2_with_the_validators_message(
    sides: tuple[Path, Path], tmp_path: Path, old: str, new: str, stdin: str, message: str
) -> None:
    bad = tmp_path / "bad.zon"
    bad.write_text(".{ .format = 1, .tool = }", encoding="utf-8")
    invalid = tmp_path / "invalid.zon"
    invalid.write_text('.{ .format = 1, .tool = "demo", .verbs = .{} }', encoding="utf-8")
    paths = {
        "old": str(sides[0]),
        "missing": str(tmp_path / "absent.zon"),
        "bad": str(bad),
        "invalid": str(invalid),
        "dir": str(tmp_path),
    }
    proc = run(old.format(**paths), new.format(**paths), stdin=stdin)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""


def test_a_missing_argument_is_a_usage_error() -> None:
    proc = run("only-one.zon")
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr


def test_two_python_declarations_compare(tmp_path: Path) -> None:
    """MODULE:ATTRIBUTE on both sides: a stronger grant breaks, the reverse is compatible."""
    from test_devcli_python import DECLARATION

    (tmp_path / "decl_read.py").write_text(DECLARATION.format(grant="read"), encoding="utf-8")
    (tmp_path / "decl_admin.py").write_text(DECLARATION.format(grant="admin"), encoding="utf-8")

    def compat(old: str, new: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*command(), "compat", "--json", old, new],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    ahead = compat("decl_read:MANIFEST", "decl_admin:build")
    assert ahead.returncode == 1, ahead.stderr
    (change,) = json.loads(ahead.stdout)["changes"]
    assert (change["verb"], change["kind"]) == ("greet", "grant.stronger")
    assert compat("decl_admin:MANIFEST", "decl_read:MANIFEST").returncode == 0
