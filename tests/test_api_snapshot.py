"""The API gate (tools/api_snapshot.py): a change to a package's public API needs the version
bump that says so, shown on a small package built in a temporary workspace, and the committed
snapshots pass on this tree."""

from __future__ import annotations

import importlib
import pkgutil
import textwrap
from pathlib import Path

import pytest
from packaging.version import Version

from tools.api_snapshot import (
    Change,
    compare,
    main,
    read,
    required_version,
    snapshot_path,
    take,
    verdicts,
)
from tools.workspace import ROOT, members

DEMO = '''
"""A demo package."""

from ._impl import Widget

__all__ = ("Widget", "greet", "shout")


def greet(name: str, *, punctuation: str = "!") -> str:
    """Say hello."""
    return f"hello {name}{punctuation}"


def shout(text: str) -> str:
    return text.upper()
'''

IMPL = """
__all__ = ()


class Widget:
    def __init__(self, size: int, colour: str = "red") -> None:
        self.size = size

    def grow(self, by: int = 1) -> None:
        self.size += by

    def _internal(self) -> None: ...
"""


class Demo:
    """A one-package workspace under ``root``, its ``demo`` package at ``version``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.src = root / "packages" / "demo" / "src" / "demo"
        self.src.mkdir(parents=True)
        (root / "pyproject.toml").write_text(
            '[project]\nname = "ws"\nversion = "0.0.0"\n\n'
            '[tool.uv.workspace]\nmembers = ["packages/*"]\n'
        )
        self.set_version("0.1.0")
        self.write("__init__.py", DEMO)
        self.write("_impl.py", IMPL)

    def set_version(self, version: str) -> None:
        (self.root / "packages" / "demo" / "pyproject.toml").write_text(
            f'[project]\nname = "demo"\nversion = "{version}"\ndependencies = []\n'
        )

    def write(self, name: str, source: str) -> None:
        path = self.src / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source).lstrip())

    def edit(self, name: str, old: str, new: str) -> None:
        path = self.src / name
        text = path.read_text()
        assert old in text, old
        path.write_text(text.replace(old, new))

    def check(self, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
        code = main(["--check"], root=self.root)
        out = capsys.readouterr()
        return code, out.out + out.err


@pytest.fixture
def demo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Demo:
    """The demo package, its snapshot taken at 0.1.0."""
    workspace = Demo(tmp_path / "ws")
    assert main(["--update"], root=workspace.root) == 0
    capsys.readouterr()
    return workspace


def test_the_snapshot_records_the_public_api_and_its_version(demo: Demo) -> None:
    snapshot = read(snapshot_path(demo.root, "demo"))
    assert snapshot.version == "0.1.0"
    api = snapshot.modules["demo"]
    assert sorted(api) == ["Widget", "greet", "shout"]
    assert api["greet"] == ["def greet(name: str, *, punctuation: str = '!') -> str: ..."]
    # A re-export from a private module is recorded as what it is; private members are not.
    assert api["Widget"] == [
        "class Widget:",
        "    def __init__(self, size: int, colour: str = 'red') -> None: ...",
        "    def grow(self, by: int = 1) -> None: ...",
        "    size = ...",
    ]
    assert "demo._impl" not in snapshot.modules


def test_unchanged_api_passes(demo: Demo, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = demo.check(capsys)
    assert code == 0, out
    assert "demo ok" in out


def test_a_removed_function_fails_until_a_minor_bump(
    demo: Demo, capsys: pytest.CaptureFixture[str]
) -> None:
    demo.edit("__init__.py", '"shout")', ")")
    demo.edit("__init__.py", "def shout(text: str) -> str:\n    return text.upper()\n", "")
    code, out = demo.check(capsys)
    assert code == 1
    # Which package, which name, what broke, and what to do.
    assert "demo: 1 breaking changes to the public API since api/demo.json" in out
    assert "demo.shout: Public object was removed" in out
    assert "bump demo to 0.2.0 or later (for 0.x a minor bump marks a breaking change)" in out
    assert "uv version --package demo --no-sync 0.2.0" in out
    assert "python -m tools.api_snapshot --update --package demo" in out
    # --update will not take it either: it is no way around the bump.
    assert main(["--update"], root=demo.root) == 1
    assert "shout" in str(read(snapshot_path(demo.root, "demo")).modules)
    capsys.readouterr()
    demo.set_version("0.1.1")  # a patch bump says "compatible": not enough
    assert demo.check(capsys)[0] == 1
    demo.set_version("0.2.0")
    code, out = demo.check(capsys)
    assert code == 0, out
    assert "1 breaking, 0 compatible changes since 0.1.0, allowed by 0.2.0" in out
    assert main(["--update"], root=demo.root) == 0
    assert read(snapshot_path(demo.root, "demo")).version == "0.2.0"


def test_a_removed_parameter_fails(demo: Demo, capsys: pytest.CaptureFixture[str]) -> None:
    demo.edit("_impl.py", 'colour: str = "red"', "")
    demo.edit("_impl.py", "size: int, ", "size: int")
    code, out = demo.check(capsys)
    assert code == 1
    assert "demo.Widget.__init__: Parameter was removed: colour" in out
    assert "1 breaking, 0 compatible changes: needs 0.2.0, is 0.1.0" in out  # not counted twice


@pytest.mark.parametrize(
    ("old", "new", "what"),
    [
        ("punctuation: str = ", "punctuation: str, extra: int, x: str = ", "added as required"),
        ('punctuation: str = "!"', "punctuation: str", "Parameter is now required"),
        ('punctuation: str = "!"', 'punctuation: str = "?"', "Parameter default was changed"),
        ("name: str, *,", "*, name: str,", "Parameter kind was changed"),
        ("def shout(text: str) -> str:", "shout = str.upper\ndef _x(text: str) -> str:", "kind"),
    ],
)
def test_signature_breaks_are_breaking(
    demo: Demo, capsys: pytest.CaptureFixture[str], old: str, new: str, what: str
) -> None:
    demo.edit("__init__.py", old, new)
    code, out = demo.check(capsys)
    assert code == 1, out
    assert what in out


def test_an_added_function_passes(demo: Demo, capsys: pytest.CaptureFixture[str]) -> None:
    """Compatible: it rides on the next release's bump, whatever it is for 0.x."""
    demo.edit("__init__.py", '"shout")', '"shout", "wave")')
    demo.write("wave.py", '__all__ = ("hi",)\n\ndef hi() -> None: ...\n')
    demo.edit("__init__.py", "def shout", "def wave(times: int = 1) -> None: ...\n\n\ndef shout")
    demo.edit("_impl.py", 'colour: str = "red"', 'colour: str = "red", *, shape: str = "round"')
    code, out = demo.check(capsys)
    assert code == 0, out
    assert "0 breaking, 3 compatible changes since 0.1.0, to be released as 0.1.1" in out
    diff = compare(read(snapshot_path(demo.root, "demo")), take(members(demo.root))["demo"])
    assert diff.compatible == [
        "demo.wave: added",
        "demo.Widget: changed",
        "demo.wave: public module added",
    ]
    assert diff.breaking == []


def test_from_1_0_an_addition_needs_a_minor_bump(
    demo: Demo, capsys: pytest.CaptureFixture[str]
) -> None:
    demo.set_version("1.0.0")
    assert main(["--update"], root=demo.root) == 0
    demo.edit("__init__.py", "def shout", "def wave() -> None: ...\n\n\ndef shout")
    demo.edit("__init__.py", '"shout")', '"shout", "wave")')
    assert demo.check(capsys)[0] == 0  # not released yet: the release's bump will say it
    demo.set_version("1.0.1")
    code, out = demo.check(capsys)
    assert code == 1
    assert "bump demo to 1.1.0 or later (SemVer for a compatible change)" in out
    demo.set_version("1.1.0")
    assert demo.check(capsys)[0] == 0


def test_a_removed_module_is_breaking(demo: Demo, capsys: pytest.CaptureFixture[str]) -> None:
    demo.write("extra.py", '__all__ = ("x",)\n\nx: int = 1\n')
    demo.set_version("0.1.1")
    assert main(["--update"], root=demo.root) == 0
    (demo.src / "extra.py").rename(demo.src / "_extra.py")
    code, out = demo.check(capsys)
    assert code == 1
    assert "demo.extra: public module was removed (or made private)" in out
    assert "bump demo to 0.2.0" in out


def test_a_version_older_than_the_snapshot_fails(
    demo: Demo, capsys: pytest.CaptureFixture[str]
) -> None:
    demo.set_version("0.0.9")
    code, out = demo.check(capsys)
    assert code == 1
    assert "older than" in out


def test_a_package_without_a_snapshot_fails(demo: Demo, capsys: pytest.CaptureFixture[str]) -> None:
    snapshot_path(demo.root, "demo").unlink()
    code, out = demo.check(capsys)
    assert code == 1
    assert "no api/demo.json: take it with `python -m tools.api_snapshot --update" in out


@pytest.mark.parametrize(
    ("base", "change", "needed"),
    [
        ("0.1.0", Change.BREAKING, "0.2.0"),
        ("0.1.3", Change.BREAKING, "0.2.0"),
        ("0.1.3", Change.COMPATIBLE, "0.1.4"),
        ("1.2.3", Change.BREAKING, "2.0.0"),
        ("1.2.3", Change.COMPATIBLE, "1.3.0"),
        ("1.2.3", Change.NONE, "1.2.3"),
    ],
)
def test_required_version(base: str, change: Change, needed: str) -> None:
    assert required_version(base, change) == Version(needed)


# --- this tree ------------------------------------------------------------------------------


def test_the_committed_snapshots_pass_on_this_tree() -> None:
    """`python -m tools.api_snapshot --check`: release-check runs the same."""
    found = verdicts(members())
    assert [v for v in found if not v.ok] == []
    assert {v.package for v in found} == {m.name for m in members()}


def test_the_snapshots_cover_the_public_modules_of_test_public_faces() -> None:
    """griffe's static walk finds the modules the import-time walk finds, and no more."""
    taken = take(members())
    for member in members():
        package = importlib.import_module(member.module)
        expected = {member.module}
        for info in pkgutil.walk_packages(package.__path__, member.module + "."):
            parts = info.name.split(".")
            if not any(p.startswith("_") for p in parts):
                expected.add(info.name)
        assert set(taken[member.name].modules) == expected, member.name
        assert (ROOT / "api" / f"{member.name}.json").is_file()
