"""The packages form one chain; venom-proto stands on anyio and orjson alone."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHAIN = ["venom-proto", "venom-schema", "venom-gen", "venom-mcp", "venom-echo"]


def test_import_layers_contract_holds() -> None:
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
    assert "1 kept, 0 broken" in proc.stdout


def _deps(package: str) -> list[str]:
    data = tomllib.loads((ROOT / "packages" / package / "pyproject.toml").read_text())
    names = []
    for spec in data["project"]["dependencies"]:
        name = spec.split(";")[0]
        for sep in "<>=!~[ ":
            name = name.split(sep)[0]
        names.append(name)
    return names


def test_each_member_depends_only_on_its_left_neighbour() -> None:
    for i, package in enumerate(CHAIN):
        venom_deps = [d for d in _deps(package) if d.startswith("venom-")]
        assert venom_deps == ([CHAIN[i - 1]] if i else []), (package, venom_deps)


def test_proto_depends_on_anyio_and_orjson_only() -> None:
    assert sorted(_deps("venom-proto")) == ["anyio", "orjson"]


def test_members_have_static_versions_and_src_layout() -> None:
    for package in CHAIN:
        data = tomllib.loads((ROOT / "packages" / package / "pyproject.toml").read_text())
        assert "dynamic" not in data["project"]
        assert data["project"]["version"].count(".") == 2
        module = package.replace("-", "_")
        assert (ROOT / "packages" / package / "src" / module / "__init__.py").is_file()
        assert (ROOT / "packages" / package / "src" / module / "py.typed").is_file()
