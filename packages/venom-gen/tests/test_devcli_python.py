"""`--python MODULE:ATTRIBUTE`: verbs declared with venom_schema.declare."""

from __future__ import annotations

import importlib
import sys
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from venom_gen.build.devcli.app import app
from venom_schema.canonical import digest
from venom_schema.manifest import validate_manifest
from venom_schema.zon import ZonEnum

DECLARATION = """\
from pydantic import BaseModel, Field

from venom_schema.declare import Declaration


class Greet(BaseModel):
    who: str = Field(description="Whom")


MANIFEST = Declaration("pydemo", "Declared in Python")
MANIFEST.verb("greet", "Say hello", grant="{grant}", params=Greet, result=str)


def build():
    return MANIFEST


class Holder:
    manifest = MANIFEST


NOT_A_MANIFEST = 42


def broken():
    raise RuntimeError("no manifest today")
"""

EXPECTED = validate_manifest(
    {
        "format": 1,
        "tool": "pydemo",
        "summary": "Declared in Python",
        "verbs": [
            {
                "name": "greet",
                "summary": "Say hello",
                "params": [
                    {
                        "name": "who",
                        "summary": "Whom",
                        "type": {"kind": ZonEnum("string")},
                        "required": True,
                    }
                ],
                "result": {"kind": ZonEnum("string")},
                "grant": ZonEnum("read"),
            }
        ],
    }
)


def invoke(*args: str) -> Result:
    result = CliRunner().invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


@pytest.fixture
def module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A fresh declaration module importable from the working directory (as from a shell)."""
    name = f"decl_{uuid.uuid4().hex}"
    (tmp_path / f"{name}.py").write_text(DECLARATION.replace("{grant}", "read"), "utf-8")
    monkeypatch.setattr(sys, "path", list(sys.path))  # the devcli adds the cwd; undo it
    monkeypatch.chdir(tmp_path)
    importlib.invalidate_caches()
    return name


@pytest.mark.parametrize("attribute", ["MANIFEST", "build", "Holder.manifest"])
def test_object_callable_and_dotted_attribute(module: str, attribute: str) -> None:
    result = invoke("digest", "--python", f"{module}:{attribute}")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == digest(EXPECTED) + "\n"


def test_check_ok(module: str) -> None:
    result = invoke("check", "--python", f"{module}:MANIFEST")
    assert result.exit_code == 0
    assert result.stdout.startswith(f"{module}:MANIFEST: OK (pydemo, ")


def test_invalid_declaration_lists_problems(tmp_path: Path, module: str) -> None:
    bad = f"{module}_bad"
    (tmp_path / f"{bad}.py").write_text(DECLARATION.replace("{grant}", "root"), "utf-8")
    importlib.invalidate_caches()
    result = invoke("check", "--python", f"{bad}:MANIFEST")
    assert result.exit_code == 1
    assert result.stderr.startswith("verbs[greet].grant: unknown .root")


def test_all_from_python_writes_artifacts_without_cache(tmp_path: Path, module: str) -> None:
    out = tmp_path / "generated"
    result = invoke("all", "--python", f"{module}:build", "--out", str(out))
    assert result.exit_code == 0, result.stderr
    assert (out / "docs" / "pydemo.md").is_file()
    assert "no model cache for a --python declaration" in result.stderr
    assert invoke("all", "--python", f"{module}:build", "--out", str(out), "--check").exit_code == 0


@pytest.mark.parametrize(
    ("spec", "code", "message"),
    [
        ("no_colon", 2, "expected MODULE:ATTRIBUTE"),
        ("{m}:", 2, "expected MODULE:ATTRIBUTE"),
        ("decl_absent_module_xyz:M", 1, "cannot import 'decl_absent_module_xyz'"),
        ("{m}:MISSING", 1, "has no attribute 'MISSING'"),
        (
            "{m}:NOT_A_MANIFEST",
            1,
            "expected a venom_schema.declare.Declaration (or a callable returning one)",
        ),
        ("{m}:broken", 1, "calling it raised RuntimeError: no manifest today"),
    ],
)
def test_bad_declarations_fail_cleanly(module: str, spec: str, code: int, message: str) -> None:
    result = invoke("normalize", "--python", spec.replace("{m}", module))
    assert result.exit_code == code
    assert message in result.stderr
    assert result.stdout == ""


def test_module_failing_at_import(tmp_path: Path, module: str) -> None:
    crash = f"{module}_crash"
    (tmp_path / f"{crash}.py").write_text("raise ValueError('bad config')\n", "utf-8")
    importlib.invalidate_caches()
    result = invoke("digest", "--python", f"{crash}:M")
    assert result.exit_code == 1
    assert f"importing '{crash}' raised ValueError: bad config" in result.stderr


def test_manifest_and_python_together_is_a_usage_error(module: str, tmp_path: Path) -> None:
    result = invoke("digest", str(tmp_path / "verbs.zon"), "--python", f"{module}:build")
    assert result.exit_code == 2
    assert "exactly one" in result.stderr
