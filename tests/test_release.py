"""The release checks can fail: each is shown catching the defect it exists for.

`nox -s release-check` runs them for real over every package; these tests feed them broken
wheels, source-tree imports and release tags, and check the publishable files themselves.
"""

from __future__ import annotations

import dataclasses
import io
import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

from tools.release_check import Checker, Report, _differing_files
from tools.release_lowest import build_release, lowest, picks, released
from tools.release_metadata import check_sdist, check_wheel
from tools.workspace import Member, members

ROOT = Path(__file__).resolve().parents[1]

MEMBERS = members()
PROTO = next(m for m in MEMBERS if m.name == "venom-proto")


def _git(cwd: Path, *args: str) -> str:
    command = ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=True).stdout


# --- the publishable files ------------------------------------------------------------------


@pytest.mark.parametrize("member", MEMBERS, ids=lambda m: m.name)
def test_each_package_ships_the_repository_license(member: Member) -> None:
    license_file = member.path / "LICENSE"
    assert license_file.read_bytes() == (ROOT / "LICENSE").read_bytes()
    if license_file.is_symlink():
        assert license_file.resolve() == (ROOT / "LICENSE").resolve()


@pytest.mark.parametrize("member", MEMBERS, ids=lambda m: m.name)
def test_each_package_has_a_readme_and_a_changelog_entry(member: Member) -> None:
    readme = (member.path / "README.md").read_text(encoding="utf-8")
    assert readme.startswith(f"# {member.name}\n")
    assert "see the repository README" not in readme, "a README that stands on its own on PyPI"
    changelog = (member.path / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"\n## {member.version}\n" in changelog


def test_test_groups_are_part_of_the_workspace_dev_group() -> None:
    """What a package's own tests need is installed in the workspace too (`nox -s tests`)."""
    root = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    dev = {
        canonicalize_name(r.split(">")[0].split("=")[0])
        for r in root["dependency-groups"]["dev"]
        if isinstance(r, str)
    }
    for member in MEMBERS:
        names = {canonicalize_name(r.split(">")[0].split("=")[0]) for r in member.test_requirements}
        assert names, member.name
        assert names <= dev, (member.name, names - dev)


# --- metadata and contents ------------------------------------------------------------------


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Checker:
    """venom-proto built once, as release-check builds it."""
    checker = Checker(tmp_path_factory.mktemp("release"), MEMBERS, ["-x", "-q"])
    assert checker.build(PROTO, Report(PROTO))
    return checker


def _rewrite(wheel: Path, dest: Path, drop: str = "", metadata: tuple[str, str] = ("", "")) -> Path:
    """A copy of ``wheel`` without the file ``drop`` (and its RECORD row), METADATA edited."""
    with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(dest / wheel.name, "w") as target:
        for item in source.infolist():
            data = source.read(item)
            if item.filename == drop:
                continue
            if item.filename.endswith("/RECORD") and drop:
                rows = io.BytesIO(data)
                data = b"".join(row for row in rows if not row.startswith(drop.encode()))
            if item.filename.endswith("/METADATA") and metadata[0]:
                data = data.replace(metadata[0].encode(), metadata[1].encode())
            target.writestr(item, data)
    return dest / wheel.name


def test_fresh_archives_pass_the_metadata_check(built: Checker) -> None:
    wheel = built.wheels[PROTO.name]
    assert check_wheel(PROTO, wheel) == []
    assert check_sdist(PROTO, wheel.with_name(f"venom_proto-{PROTO.version}.tar.gz")) == []


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        (("Classifier: Typing :: Typed", "Classifier: Typing :: Typo"), "unknown classifier"),
        (("Classifier: Typing :: Typed", "Classifier: License :: OSI Approved :: MIT License"),
         "license classifier"),
        (("License-File: LICENSE\n", ""), "License-File is"),
        (("Requires-Dist: anyio>=4.4\n", ""), "Requires-Dist"),
        (("It depends on anyio", "It needs anyio"), "not the package's README.md"),
        (("Project-URL: Changelog", "Project-URL: Log"), "no https Project-URL 'Changelog'"),
        (("Version: ", "Version: x"), "invalid core metadata"),
    ],
)  # fmt: skip
def test_metadata_defects_are_reported(
    built: Checker, tmp_path: Path, edit: tuple[str, str], problem: str
) -> None:
    broken = _rewrite(built.wheels[PROTO.name], tmp_path, metadata=edit)
    problems = check_wheel(PROTO, broken)
    assert any(problem in p for p in problems), problems


def test_a_wheel_missing_a_module_fails_the_contents_check(built: Checker, tmp_path: Path) -> None:
    broken = _rewrite(built.wheels[PROTO.name], tmp_path, drop="venom_proto/stdjson.py")
    assert check_wheel(PROTO, broken) == ["venom_proto/stdjson.py is not in the wheel"]


def test_a_wheel_missing_a_module_fails_its_installed_tests(built: Checker) -> None:
    """The defect the old editable `isolation` session let through: now the test run fails."""
    wheel = built.wheels[PROTO.name]
    stash = built.out / "stash"
    stash.mkdir()
    os.replace(wheel, stash / wheel.name)
    _rewrite(stash / wheel.name, wheel.parent, drop="venom_proto/stdjson.py")
    report = Report(PROTO)
    try:
        built.alone(PROTO, report)
    finally:
        os.replace(stash / wheel.name, wheel)
    ((step, ok, detail),) = report.steps
    assert (step, ok) == ("alone", False)
    assert "error" in detail or "failed" in detail, detail  # the tests failed, not the install
    log = (built.logs / "venom-proto-pytest.log").read_text()
    assert "No module named 'venom_proto.stdjson'" in log


def test_installed_files_are_compared_with_the_wheel(built: Checker, tmp_path: Path) -> None:
    """A stale build in uv's cache (same name and version) cannot pass for the fresh wheel."""
    wheel = built.wheels[PROTO.name]
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(tmp_path)
    assert _differing_files(wheel, tmp_path) == []
    (tmp_path / "venom_proto" / "unlisted.py").write_text("# not in RECORD: not compared\n")
    (tmp_path / "venom_proto" / "_core" / "frames.py").write_text("# an older build\n")
    assert _differing_files(wheel, tmp_path) == ["venom_proto/_core/frames.py"]


# --- the run imports the installed package --------------------------------------------------


def _with_plugin(tmp_path: Path, test: str, modules: str) -> subprocess.CompletedProcess[str]:
    """pytest with the release plugin over one test file, as release-check runs it."""
    (tmp_path / "test_x.py").write_text(test)
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "tools" / "pytest_plugins"),
        "VENOM_RELEASE_MODULES": modules,
    }
    command = [sys.executable, "-m", "pytest", "-p", "release_installed", "-p", "no:cacheprovider"]
    return subprocess.run(
        [*command, "-q", str(tmp_path)], cwd=tmp_path, env=env, capture_output=True, text=True
    )


def test_the_plugin_fails_a_run_that_imports_the_source_tree(tmp_path: Path) -> None:
    """In the workspace venom_proto is an editable install: its modules come from src/."""
    test = "import venom_proto.sync_client\n\ndef test_x(): pass\n"
    proc = _with_plugin(tmp_path, test, "venom_proto")
    assert proc.returncode == 1, proc.stdout
    assert "1 passed" in proc.stdout
    source = ROOT / "packages" / "venom-proto" / "src" / "venom_proto" / "__init__.py"
    assert f"release-check: venom_proto imported from {source}, not " in proc.stdout


def test_the_plugin_fails_a_run_that_never_imports_the_package(tmp_path: Path) -> None:
    proc = _with_plugin(tmp_path, "def test_x(): pass\n", "venom_nothing")
    assert proc.returncode == 1
    assert "venom_nothing was never imported" in proc.stdout


# --- the lowest sibling versions ------------------------------------------------------------


def test_lowest_picks_the_lowest_admitted_release() -> None:
    versions = [Version(v) for v in ("0.1.0", "0.1.3", "0.2.0", "0.1.5")]
    assert lowest(SpecifierSet(">=0.1.1,<0.2"), versions) == Version("0.1.3")
    assert lowest(SpecifierSet(">=0.3"), versions) is None


def test_a_range_no_release_and_no_tree_admits_is_an_error() -> None:
    schema = next(m for m in MEMBERS if m.name == "venom-schema")
    impossible = dataclasses.replace(schema, requirements=(Requirement("venom-proto>=9"),))
    with pytest.raises(LookupError, match="venom-proto>=9"):
        picks(impossible, MEMBERS, ROOT)


def test_an_older_release_in_range_is_rebuilt_from_its_tag(tmp_path: Path) -> None:
    """A clone where venom-proto 0.0.9 was released and venom-schema still admits it."""
    clone = tmp_path / "repo"
    subprocess.run(["git", "clone", "--quiet", "--shared", str(ROOT), str(clone)], check=True)
    proto = clone / "packages/venom-proto/pyproject.toml"
    current = proto.read_text(encoding="utf-8")
    proto.write_text(current.replace(f'version = "{PROTO.version}"', 'version = "0.0.9"', 1))
    _git(clone, "commit", "--quiet", "-am", "venom-proto 0.0.9")
    _git(clone, "tag", "venom-proto-v0.0.9")
    proto.write_text(current)
    schema = clone / "packages/venom-schema/pyproject.toml"
    text = schema.read_text(encoding="utf-8")
    schema.write_text(text.replace('"venom-proto>=0.2,<0.3"', '"venom-proto>=0.0.9,<0.3"'))
    every = members(clone)
    assert released(clone, "venom-proto") == {Version("0.0.9"): "venom-proto-v0.0.9"}
    (pick,) = picks(next(m for m in every if m.name == "venom-schema"), every, clone)
    assert (pick.version, pick.tag) == (Version("0.0.9"), "venom-proto-v0.0.9")
    gen_picks = picks(next(m for m in every if m.name == "venom-gen"), every, clone)
    current_pick = next(p for p in gen_picks if p.sibling.name == "venom-schema")
    assert current_pick.tag is None, "venom-gen's range admits only this tree's venom-schema"
    build_release(clone, pick, tmp_path / "work", tmp_path / "out")
    wheels = [p.name for p in (tmp_path / "out").glob("*.whl")]
    assert wheels == ["venom_proto-0.0.9-py3-none-any.whl"]
