"""`scaffold_product`: the layout, name checks, and a scaffolded project passing its own tests."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from venom_gen.build.regenerate import load_project, stale_files
from venom_gen.build.scaffold import (
    ScaffoldError,
    module_name,
    scaffold_product,
    workspace_root,
)
from venom_gen.build.scaffold.__main__ import main as scaffold_main
from venom_proto.model_cache import load_model
from venom_schema.manifest import load_manifest


def _relative(paths: list[Path], root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in paths}


def _workspace(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "pyproject.toml").write_text('[tool.uv.workspace]\nmembers = ["*"]\n')
    return directory


def test_layout_of_a_workspace_member(tmp_path: Path) -> None:
    root = _workspace(tmp_path) / "venom-foo"
    written = _relative(scaffold_product("venom-foo", root, standalone=False), root)
    assert {
        "pyproject.toml",
        "README.md",
        "src/venom_foo/__init__.py",
        "src/venom_foo/__main__.py",
        "src/venom_foo/product.py",
        "src/venom_foo/_version.py",
        "src/venom_foo/handlers.py",
        "src/venom_foo/declaration.py",
        "src/venom_foo/handler_types.py",
        "src/venom_foo/verb_types.py",
        "src/venom_foo/verbs.zon",
        "src/venom_foo/verbs.model.json",
        "src/venom_foo/py.typed",
        "src/venom_foo/generated/docs/venom-foo.md",
        "src/venom_foo/generated/man/venom-foo-greet.1",
        "src/venom_foo/generated/completions/venom-foo.bash",
        "tests/conftest.py",
        "tests/test_venom_foo_model.py",
        "tests/test_venom_foo_handlers.py",
        "tests/test_venom_foo_surfaces.py",
        "tests/test_venom_foo_release.py",
    } <= written
    on_disk = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}
    assert on_disk == written


def test_workspace_member_takes_venom_mcp_from_the_workspace(tmp_path: Path) -> None:
    scaffold_product("venom-foo", _workspace(tmp_path) / "p", standalone=False)
    project = tomllib.loads((tmp_path / "p" / "pyproject.toml").read_text())
    assert project["project"]["name"] == "venom-foo"
    assert project["project"]["scripts"] == {"venom-foo": "venom_foo.__main__:run"}
    sources = project["tool"]["uv"]["sources"]
    assert sources == {p: {"workspace": True} for p in SIBLINGS}


#: What a product imports (or, venom-mcp, runs): each declared, in layer order.
SIBLINGS = ("venom-proto", "venom-schema", "venom-gen", "venom-mcp")
#: The range of each that admits the workspace's own version (a 0.x minor is a breaking change).
RANGES = {
    "venom-proto": ">=0.2,<0.3",
    "venom-schema": ">=0.2,<0.3",
    "venom-gen": ">=0.2,<0.3",
    "venom-mcp": ">=0.1.1,<0.2",
}


def test_standalone_takes_venom_mcp_from_the_index(tmp_path: Path) -> None:
    scaffold_product("venom-foo", tmp_path / "p", standalone=True)
    project = tomllib.loads((tmp_path / "p" / "pyproject.toml").read_text())
    siblings = [f"{p}{RANGES[p]}" for p in SIBLINGS]
    assert project["project"]["dependencies"] == [*siblings, "pydantic>=2.14,<3"]
    assert "uv" not in project.get("tool", {})
    # What its README's steps run: venom-gen generate (the dev extra), the kit, pytest, mypy.
    assert project["dependency-groups"]["dev"] == [
        "venom-gen[dev,testing]>=0.2,<0.3",
        "pytest>=8",
        "mypy>=1.11",
    ]
    assert project["tool"]["venom"] == {
        "declaration": "venom_foo.declaration:DECLARATION",
        "manifest": "src/venom_foo/verbs.zon",
    }


def test_zon_keeps_a_hand_written_manifest(tmp_path: Path) -> None:
    written = _relative(
        scaffold_product("venom-foo", tmp_path, standalone=True, zon=True), tmp_path
    )
    assert "src/venom_foo/declaration.py" not in written
    assert {"src/venom_foo/verbs.zon", "src/venom_foo/handler_types.py"} <= written
    project = tomllib.loads((tmp_path / "pyproject.toml").read_text())
    assert project["tool"]["venom"] == {"manifest": "src/venom_foo/verbs.zon"}
    assert project["project"]["dependencies"] == [f"{p}{RANGES[p]}" for p in SIBLINGS]
    zon = (tmp_path / "src" / "venom_foo" / "verbs.zon").read_text()
    assert zon.startswith("// venom-foo's verbs.")  # the template, not an export


def test_both_paths_declare_the_same_greet(tmp_path: Path) -> None:
    """The Python declaration and the hand-written manifest give one model (and digest)."""
    scaffold_product("venom-foo", tmp_path / "py", standalone=True)
    scaffold_product("venom-foo", tmp_path / "zon", standalone=True, zon=True)
    models = [
        load_manifest(tmp_path / kind / "src" / "venom_foo" / "verbs.zon") for kind in ("py", "zon")
    ]
    assert models[0] == models[1]


def test_the_scaffold_is_what_generate_makes(tmp_path: Path) -> None:
    """Every derived file is exactly `venom-gen generate`'s: the project starts fresh."""
    for zon in (False, True):
        root = tmp_path / str(zon)
        scaffold_product("venom-foo", root, standalone=True, zon=zon)
        assert stale_files(load_project(root)) == []


def test_model_is_compiled_and_valid(tmp_path: Path) -> None:
    """RFC-0004 §2: the scaffolded manifest validates; its model cache is fresh."""
    scaffold_product("venom-foo", tmp_path / "p", standalone=True)
    package = tmp_path / "p" / "src" / "venom_foo"
    model = load_manifest(package / "verbs.zon")
    assert load_model(package / "verbs.model.json") == model
    assert model["tool"] == "venom-foo"
    assert "greet" in {v["name"] for v in model["verbs"]}


@pytest.mark.parametrize("name", ["Venom", "1venom", "venom_foo", "", "a" * 33, "venom foo"])
def test_bad_tool_names_are_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(ScaffoldError, match="not a tool name"):
        scaffold_product(name, tmp_path / "p", standalone=True)
    assert not (tmp_path / "p").exists()


def test_a_keyword_module_name_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ScaffoldError, match="Python module name"):
        scaffold_product("class", tmp_path / "p", standalone=True)


def test_a_non_empty_destination_is_refused(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("mine")
    with pytest.raises(ScaffoldError, match="not an empty directory"):
        scaffold_product("venom-foo", tmp_path, standalone=True)
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]


def test_an_empty_destination_is_used(tmp_path: Path) -> None:
    scaffold_product("venom-foo", tmp_path, standalone=True)
    assert (tmp_path / "src" / "venom_foo" / "verbs.zon").is_file()


def test_module_name() -> None:
    assert module_name("venom-foo-bar") == "venom_foo_bar"


def test_command_line_reports_errors_without_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert scaffold_main(["Bad"]) == 1
    assert capsys.readouterr().err.startswith("venom-gen: 'Bad' is not a tool name")
    assert scaffold_main(["venom-foo", "--dest", str(tmp_path / "p")]) == 1
    assert "not inside a uv workspace" in capsys.readouterr().err
    assert scaffold_main(["venom-foo", "--dest", str(tmp_path / "p"), "--standalone"]) == 0
    assert "created venom-foo" in capsys.readouterr().out


def _run(argv: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv,
        cwd=cwd,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_scaffolded_code_is_ruff_clean_even_with_the_longest_name(tmp_path: Path) -> None:
    """House lint rules and formatting hold for a 32-character tool name."""
    name = "v" + "x-" * 15 + "y"
    scaffold_product(name, tmp_path / "p", standalone=True)
    rules = "E,F,W,I,UP,B,SIM,RUF,PT,C4,PIE,RET,TID"
    ruff = [sys.executable, "-m", "ruff"]
    lint = _run([*ruff, "check", "--no-cache", "--select", rules, "."], tmp_path / "p")
    assert lint.returncode == 0, lint.stdout
    fmt = _run([*ruff, "format", "--no-cache", "--check", "."], tmp_path / "p")
    assert fmt.returncode == 0, fmt.stdout


def test_a_workspace_member_outside_any_workspace_is_refused(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "not-a-workspace"\n')
    with pytest.raises(ScaffoldError, match=r"not inside a uv workspace.*--standalone"):
        scaffold_product("venom-foo", tmp_path / "p", standalone=False)
    assert not (tmp_path / "p").exists()


def test_the_workspace_is_found_from_a_nested_destination(tmp_path: Path) -> None:
    _workspace(tmp_path)
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "pyproject.toml").write_text("not toml [")
    assert workspace_root(tmp_path / "a" / "b" / "new") == tmp_path.resolve()
