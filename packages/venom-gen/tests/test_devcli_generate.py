"""`venom-gen generate`: every derived file of a product from the source its pyproject names.

A product declared in Python gets its verbs.zon exported, then the model cache, the artifacts,
the verb-types and typed-handlers modules (and a client when named); a ZON product the same
without the export. ``--check`` writes nothing and fails on any difference, a changed summary
in the declaration included.
"""

from __future__ import annotations

import importlib
import sys
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from venom_gen.build.devcli.app import app
from venom_gen.build.regenerate import (
    ProjectError,
    derived_files,
    find_project,
    load_project,
    stale_files,
)

DECLARATION = """\
from pydantic import BaseModel, Field

from venom_schema.declare import Declaration


class GetParams(BaseModel):
    key: str = Field(description="The key")


class GetResult(BaseModel):
    value: str = Field(description="The value")


DECLARATION = Declaration("{tool}", "A key-value store")
DECLARATION.verb("kv.get", "{summary}", grant="read", params=GetParams, result=GetResult)
"""

MANIFEST = """\
.{
    .format = 1,
    .tool = "zonkv",
    .summary = "A key-value store",
    .verbs = .{
        .{
            .name = "kv.get",
            .summary = "Read one key",
            .grant = .read,
            .result = .{ .kind = .string },
        },
    },
}
"""


def invoke(*args: str) -> Result:
    result = CliRunner().invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def _python_product(root: Path, summary: str = "Read one key") -> str:
    """A Python-declared product in ``root`` (a fresh module name, so no import is cached)."""
    module = f"pykv_{uuid.uuid4().hex[:12]}"
    package = root / "src" / module
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", "utf-8")
    (package / "declaration.py").write_text(
        DECLARATION.replace("{tool}", "pykv").replace("{summary}", summary), "utf-8"
    )
    (root / "pyproject.toml").write_text(
        f'[project]\nname = "pykv"\nversion = "0.1.0"\n\n[tool.venom]\n'
        f'declaration = "{module}.declaration:DECLARATION"\n'
        f'manifest = "src/{module}/verbs.zon"\n',
        "utf-8",
    )
    return module


def _resummarize(root: Path, module: str, summary: str) -> None:
    path = root / "src" / module / "declaration.py"
    path.write_text(DECLARATION.replace("{tool}", "pykv").replace("{summary}", summary), "utf-8")
    for name in [n for n in sys.modules if n.startswith(module)]:
        del sys.modules[name]
    importlib.invalidate_caches()


def _derived(package: Path) -> dict[Path, bytes]:
    return {
        p: p.read_bytes()
        for p in package.rglob("*")
        if p.is_file() and p.name != "declaration.py" and "__pycache__" not in p.parts
    }


@pytest.fixture(autouse=True)
def _own_sys_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))  # generate puts src/ first; undo it


def test_a_python_product_gets_every_file_then_is_up_to_date(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = _python_product(tmp_path)
    monkeypatch.chdir(tmp_path / "src")  # any directory inside the product
    written = invoke("generate")
    assert written.exit_code == 0, written.stderr
    package = tmp_path / "src" / module
    for name in ("verbs.zon", "verbs.model.json", "verb_types.py", "handler_types.py"):
        assert (package / name).is_file(), name
    assert (package / "generated" / "docs" / "pykv.md").is_file()
    assert (package / "generated" / "service" / "pykv.service").is_file()
    assert not (package / "client.py").exists()  # only when named
    assert "KvGetParams" in (package / "handler_types.py").read_text("utf-8")
    again = invoke("generate", "--check")
    assert again.exit_code == 0, again.stderr
    assert "up to date" in again.stderr
    assert stale_files(load_project(tmp_path)) == []


def test_a_changed_summary_in_the_declaration_fails_the_check_and_writes_nothing(
    tmp_path: Path,
) -> None:
    module = _python_product(tmp_path)
    assert invoke("generate", "--project", str(tmp_path)).exit_code == 0
    package = tmp_path / "src" / module
    before = _derived(package)
    _resummarize(tmp_path, module, "Read exactly one key")
    checked = invoke("generate", "--project", str(tmp_path), "--check")
    assert checked.exit_code == 1
    assert "stale: " in checked.stderr
    assert "verbs.zon" in checked.stderr
    assert "Read exactly one key" in checked.stderr  # the diff shows what changed
    assert "regenerate them with venom-gen generate" in checked.stderr
    assert _derived(package) == before
    stale = stale_files(load_project(tmp_path))
    assert any(entry.startswith("stale:") and "verbs.zon" in entry for entry in stale)
    assert any("verbs.model.json" in entry for entry in stale)
    assert invoke("generate", "--project", str(tmp_path)).exit_code == 0
    assert stale_files(load_project(tmp_path)) == []


def test_a_zon_product_and_its_client_and_pruning(tmp_path: Path) -> None:
    (tmp_path / "verbs.zon").write_text(MANIFEST, "utf-8")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.venom]\nmanifest = "verbs.zon"\nclient = "client.py"\nhandler-types = false\n',
        "utf-8",
    )
    project = load_project(tmp_path)
    files = derived_files(project)
    assert tmp_path / "verbs.zon" not in files  # the source itself is never written
    assert tmp_path / "client.py" in files
    assert tmp_path / "handler_types.py" not in files
    assert invoke("generate", "--project", str(tmp_path)).exit_code == 0
    stray = tmp_path / "generated" / "man" / "old-page.1"
    stray.write_text("old", "utf-8")
    listed = invoke("generate", "--project", str(tmp_path), "--check")
    assert listed.exit_code == 1
    assert "extra:" in listed.stderr
    assert "old-page.1" in listed.stderr
    assert invoke("generate", "--project", str(tmp_path)).exit_code == 0
    assert not stray.exists()


@pytest.mark.parametrize(
    ("pyproject", "message"),
    [
        ('[project]\nname = "x"\n', "no [tool.venom] table"),
        ('[tool.venom]\nmanifest = "verbs.zon"\nmanfest = "x"\n', "no key 'manfest'"),
        ("[tool.venom]\n", 'needs manifest = "path/to/verbs.zon"'),
        ('[tool.venom]\nmanifest = "v.zon"\ndeclaration = "nocolon"\n', "'module:attribute'"),
        ("[tool.venom\n", "pyproject.toml:"),
    ],
)
def test_a_wrong_table_is_one_line(tmp_path: Path, pyproject: str, message: str) -> None:
    (tmp_path / "pyproject.toml").write_text(pyproject, "utf-8")
    result = invoke("generate", "--project", str(tmp_path))
    assert result.exit_code == 1
    assert message in result.stderr
    assert result.stderr.startswith("venom-gen: ")
    assert result.stderr.count("\n") == 1


def test_outside_any_product_it_says_how_to_name_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ProjectError, match=r"\[tool.venom\]"):
        find_project(tmp_path)
    result = invoke("generate")
    assert result.exit_code == 1
    assert "--project DIR" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_broken_manifest_is_reported_as_by_every_command(tmp_path: Path) -> None:
    (tmp_path / "verbs.zon").write_text(MANIFEST.replace(".read", ".root"), "utf-8")
    (tmp_path / "pyproject.toml").write_text('[tool.venom]\nmanifest = "verbs.zon"\n', "utf-8")
    result = invoke("generate", "--project", str(tmp_path))
    assert result.exit_code == 1
    assert "verbs.zon" in result.stderr
    assert "grant" in result.stderr
    assert not (tmp_path / "generated").exists()


def test_a_declaration_that_cannot_be_imported_is_one_line_naming_the_table(
    tmp_path: Path,
) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.venom]\ndeclaration = "no_such_module_xyz.declaration:DECLARATION"\n'
        'manifest = "verbs.zon"\n',
        "utf-8",
    )
    result = invoke("generate", "--project", str(tmp_path))
    assert result.exit_code == 1
    assert result.stderr.startswith(
        "venom-gen: [tool.venom] declaration no_such_module_xyz.declaration:DECLARATION:"
        " cannot import 'no_such_module_xyz.declaration'"
    )
    assert result.stderr.count("\n") == 1
    with pytest.raises(ProjectError, match="cannot import"):
        stale_files(load_project(tmp_path))
