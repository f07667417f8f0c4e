"""The packages are layers: each imports only packages below it, and declares each one it imports.

The order is venom-proto <- venom-schema <- venom-gen <- venom-mcp <- the products (venom-echo,
venom-notes). import-linter keeps the imports one-way (pyproject.toml); these tests hold each
package's declared dependencies to what its modules import, so no installed package can miss a
sibling it needs, and none declares one above it.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import grimp
import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tools.workspace import Member, members

ROOT = Path(__file__).resolve().parents[1]

#: Bottom first; the products are one layer, side by side.
LAYERS = (("venom-proto",), ("venom-schema",), ("venom-gen",), ("venom-mcp",))
PRODUCTS = ("venom-echo", "venom-notes")
#: Names the products run by reference ("venom_mcp:mcp_verb"), so never import.
RUN_BY_NAME = {"venom-echo": {"venom-mcp"}, "venom-notes": {"venom-mcp"}}


def _layer(name: str) -> int:
    for depth, layer in enumerate(LAYERS):
        if name in layer:
            return depth
    assert name in PRODUCTS, name
    return len(LAYERS)


def _members() -> dict[str, Member]:
    return {m.name: m for m in members()}


def _graph() -> grimp.ImportGraph:
    modules = [m.module for m in members()]
    return grimp.build_graph(*modules, include_external_packages=True, cache_dir=None)


GRAPH = _graph()


def _imports(member: Member, *, exclude: str | None = None) -> set[str]:
    """Top-level modules that ``member``'s modules import (but for those under ``exclude``)."""
    found: set[str] = set()
    for module in {member.module, *GRAPH.find_descendants(member.module)}:
        if exclude is not None and (module == exclude or module.startswith(exclude + ".")):
            continue
        for imported in GRAPH.find_modules_directly_imported_by(module):
            found.add(imported.split(".")[0])
    found.discard(member.module)
    return found


def test_import_layers_contracts_hold() -> None:
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert exe, "import-linter is not installed"
    proc = subprocess.run(
        [exe, "--config", str(ROOT / "pyproject.toml")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = len(config["tool"]["importlinter"]["contracts"])
    assert f"{contracts} kept, 0 broken" in proc.stdout


@pytest.mark.parametrize("name", [n for layer in LAYERS for n in layer] + list(PRODUCTS))
def test_each_member_declares_every_sibling_it_imports_and_only_lower_ones(name: str) -> None:
    every = _members()
    member = every[canonicalize_name(name)]
    by_module = {m.module: m.name for m in every.values()}
    imported = {by_module[top] for top in _imports(member) if top in by_module}
    declared = {
        canonicalize_name(r.name) for r in member.requirements if canonicalize_name(r.name) in every
    }
    assert imported <= declared, f"{name} imports {sorted(imported - declared)} undeclared"
    assert declared <= imported | RUN_BY_NAME.get(name, set()), sorted(declared - imported)
    assert all(_layer(d) < _layer(name) for d in declared), (name, sorted(declared))


def _distribution(top: str) -> str | None:
    """The installed distribution providing the top-level module ``top`` (None: stdlib)."""
    if top in sys.stdlib_module_names or top.startswith("_") or top == "__future__":
        return None
    dists = packages_distributions().get(top)
    assert dists, f"no installed distribution provides {top!r}"
    return canonicalize_name(dists[0])


@pytest.mark.parametrize("member", members(), ids=lambda m: m.name)
def test_each_member_declares_every_third_party_package_it_imports(member: Member) -> None:
    """Direct imports are direct dependencies: never relied on through a sibling's."""
    siblings = {m.module for m in members()}
    declared = {canonicalize_name(r.name) for r in member.requirements}
    extras: dict[str, set[str]] = {
        extra: {canonicalize_name(r.name) for r in reqs} for extra, reqs in member.extras
    }
    build = f"{member.module}.build"
    testing = f"{member.module}.testing"
    run_time = _imports(member, exclude=build) & _imports(member, exclude=testing)
    kit = _imports(member, exclude=build) - _imports(member, exclude=testing)
    for top in sorted(_imports(member) - siblings):
        dist = _distribution(top)
        if dist is None or dist in declared:
            continue
        # Only venom-gen's build time may use its ``dev`` extra (the developer CLI: typer), and
        # only its test kit the ``testing`` extra (the pytest plugin: pytest); venom-mcp's
        # conformance suite its ``conformance`` extra (pytest).
        if member.name == "venom-mcp":
            suite = f"{member.module}.conformance"
            assert top not in _imports(member, exclude=suite), f"only {suite} may import {top}"
            assert dist in extras.get("conformance", set()), (top, dist)
            continue
        assert member.name == "venom-gen", (top, dist)
        if top in kit:
            assert dist in extras.get("testing", set()), (top, dist)
            continue
        if dist in extras.get("reload", set()):
            # The ``reload`` extra (watchfiles) is for ``serve --reload``'s supervisor alone.
            reload = f"{member.module}.local._reload"
            assert top not in _imports(member, exclude=reload), f"only {reload} may import {top}"
            continue
        assert dist in extras.get("dev", set()), (top, dist)
        assert top not in run_time, f"{top} comes with the dev extra: only {build} may import it"


def test_proto_depends_on_anyio_and_orjson_only() -> None:
    proto = _members()[canonicalize_name("venom-proto")]
    assert sorted(canonicalize_name(r.name) for r in proto.requirements) == ["anyio", "orjson"]


def test_the_developer_cli_is_an_extra_and_nothing_else_is() -> None:
    """A product installs venom-gen without typer; ``venom-gen[dev]`` brings the dev CLI,
    ``venom-gen[reload]`` the watcher of ``serve --reload`` and ``venom-gen[testing]`` the test
    kit's pytest plugin."""
    gen = _members()[canonicalize_name("venom-gen")]
    assert {extra for extra, _ in gen.extras} == {"dev", "reload", "testing"}
    assert "typer" not in {canonicalize_name(r.name) for r in gen.requirements}
    assert "watchfiles" not in {canonicalize_name(r.name) for r in gen.requirements}
    named = {extra: [Requirement(str(r)).name for r in reqs] for extra, reqs in gen.extras}
    # ``reload``: the watcher of ``serve --reload`` (development only); ``dev`` brings it too.
    assert named == {
        "dev": ["typer", "watchfiles"],
        "reload": ["watchfiles"],
        "testing": ["pytest"],
    }
    mcp = _members()[canonicalize_name("venom-mcp")]
    assert {e: [Requirement(str(r)).name for r in reqs] for e, reqs in mcp.extras} == {
        "conformance": ["pytest"]
    }
    assert all(not m.extras for m in members() if m.name not in ("venom-gen", "venom-mcp"))


def test_members_have_static_versions_and_src_layout() -> None:
    for member in members():
        data = tomllib.loads((member.path / "pyproject.toml").read_text())
        assert "dynamic" not in data["project"]
        assert member.version.count(".") == 2
        assert (member.module_dir / "__init__.py").is_file()
        assert (member.module_dir / "py.typed").is_file()
