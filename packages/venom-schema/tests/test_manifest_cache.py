"""The normalized model cached as JSON next to verbs.zon (docs/architecture.md)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from venom_proto import VenomError
from venom_proto.model_cache import cache_path, load_cache_info, load_model
from venom_schema.canonical import digest
from venom_schema.manifest import ManifestError, load_manifest
from venom_schema.model_cache import compile_model

ECHO_ZON = Path(__file__).parent / "manifests" / "echo.zon"


@pytest.fixture
def manifest(tmp_path: Path) -> Path:
    target = tmp_path / "verbs.zon"
    shutil.copy(ECHO_ZON, target)
    return target


def test_compile_writes_model_and_digest(manifest: Path) -> None:
    model = compile_model(manifest)
    cache = Path(cache_path(manifest))
    assert cache == manifest.parent / "verbs.model.json"
    assert load_model(cache) == model == load_manifest(manifest)
    assert load_cache_info(cache)["digest"] == digest(model)


def test_fresh_cache_not_rewritten(manifest: Path) -> None:
    cache = Path(cache_path(manifest))
    compile_model(manifest)
    os.utime(cache, (1, 1))
    compile_model(manifest)
    assert cache.stat().st_mtime == 1


def test_changed_manifest_rewrites(manifest: Path) -> None:
    cache = Path(cache_path(manifest))
    compile_model(manifest)
    manifest.write_text(manifest.read_text().replace("A toy daemon", "A small daemon"))
    model = compile_model(manifest)
    assert model["summary"] == "A small daemon for protocol conformance"
    assert load_model(cache)["summary"] == model["summary"]


def test_bundle_choice_is_part_of_the_key(manifest: Path) -> None:
    cache = Path(cache_path(manifest))
    full = compile_model(manifest)
    core = compile_model(manifest, bundles=("core",))
    assert len(core["verbs"]) < len(full["verbs"])
    assert load_model(cache) == core


def test_corrupt_cache_is_stale(manifest: Path) -> None:
    cache = Path(cache_path(manifest))
    cache.write_text("{not json")
    model = compile_model(manifest)
    assert load_model(cache) == model


def test_invalid_manifest_leaves_no_cache(manifest: Path) -> None:
    manifest.write_text(manifest.read_text().replace(".grant = .read", ".grant = .root"))
    with pytest.raises(ManifestError):
        compile_model(manifest)
    assert not Path(cache_path(manifest)).exists()
    assert list(manifest.parent.iterdir()) == [manifest]


def test_read_model_rejects_other_json(tmp_path: Path) -> None:
    other = tmp_path / "x.json"
    other.write_text(json.dumps({"hello": 1}))
    with pytest.raises(VenomError, match="not a format 1 normalized model") as info:
        load_model(other)
    assert info.value.code == "internal.model"
    other.write_text("[")
    with pytest.raises(VenomError, match="cannot be read as a model"):
        load_model(other)


def test_explicit_cache_path(manifest: Path, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.json"
    compile_model(manifest, target)
    assert load_model(target)["tool"] == "venom-echo"
    assert "$cache" in json.loads(target.read_text())


def test_read_model_imports_no_zon_reader(manifest: Path) -> None:
    """The CLI path reads the cache with stdlib json only (docs/architecture.md)."""
    import subprocess
    import sys

    compile_model(manifest)
    code = (
        "import sys\n"
        "from venom_proto.model_cache import load_model\n"
        f"model = load_model({cache_path(manifest)!r})\n"
        "assert model['tool'] == 'venom-echo'\n"
        "bad = [m for m in sys.modules if m.startswith(('venom_schema.zon', "
        "'venom_schema.manifest', 'orjson', 'pydantic', 'json', 'typing'))]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=30)
