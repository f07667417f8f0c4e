"""The model cache file (`venom_proto.model_cache`): one module writes and reads it."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from venom_proto import model_cache
from venom_proto.model_cache import (
    CACHE_KEY,
    cache_path,
    encode_cache,
    load_cache_info,
    load_fresh,
    load_model,
    staleness_key,
    write_model_cache,
)

MODEL: dict[str, Any] = {"format": 1, "tool": "demo", "summary": "Démo.", "verbs": []}


def test_the_writer_and_the_readers_are_one_module() -> None:
    owners = {f.__module__ for f in (write_model_cache, load_model, load_cache_info, load_fresh)}
    assert owners == {model_cache.__name__}


def test_the_cache_lives_beside_the_manifest() -> None:
    assert cache_path("/p/pkg/verbs.zon") == "/p/pkg/verbs.model.json"
    assert cache_path(Path("rel/other.zon")) == os.path.join("rel", "other.model.json")


def test_a_written_cache_reads_back(tmp_path: Path) -> None:
    path = tmp_path / "verbs.model.json"
    key = staleness_key(b".{}", b"[]")
    write_model_cache(path, MODEL, key=key, digest="sha256:" + "0" * 64, bundles=("core",))
    assert load_model(path) == MODEL
    info = {"key": key, "digest": "sha256:" + "0" * 64, "bundles": ["core"]}
    assert load_cache_info(path) == info
    assert load_fresh(path, key) == MODEL
    assert load_fresh(path, staleness_key(b".{}", b"[1]")) is None  # the bundles changed
    assert stat.S_IMODE(path.stat().st_mode) == 0o644  # a package file others read
    assert sorted(p.name for p in tmp_path.iterdir()) == ["verbs.model.json"]


def test_the_encoding_is_the_model_then_the_cache_member(tmp_path: Path) -> None:
    text = encode_cache(MODEL, key="1:k", digest="d", bundles=[]).decode("utf-8")
    assert text.endswith("}\n")
    assert "Démo." in text
    document = json.loads(text)
    assert list(document) == [*MODEL, CACHE_KEY]
    assert text == json.dumps(document, ensure_ascii=False, indent=1) + "\n"


def test_the_key_names_the_format_and_hashes_both_inputs() -> None:
    key = staleness_key(b"manifest", b"bundles")
    assert key.startswith("1:")
    assert len(key) == 2 + 64
    assert key != staleness_key(b"manifest", b"bundles2")
    assert key != staleness_key(b"manifest2", b"bundles")


def test_a_missing_or_corrupt_cache_is_not_fresh(tmp_path: Path) -> None:
    path = tmp_path / "verbs.model.json"
    assert load_fresh(path, "1:k") is None
    path.write_text("{not json")
    assert load_fresh(path, "1:k") is None
    path.write_text(json.dumps(MODEL))  # a model with no cache member
    assert load_fresh(path, "1:k") is None
