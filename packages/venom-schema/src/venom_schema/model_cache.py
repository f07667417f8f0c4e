"""Compile a manifest into the normalized-model cache beside it, when the cache is stale.

The cache file's format (its path, its JSON, its staleness key, its atomic write and its
readers) is `venom_proto.model_cache`'s alone; this module is the build step that needs the
schema: it computes the key over the manifest and the bundle declarations, validates the
manifest, digests the model and hands the result to `venom_proto.model_cache`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from venom_proto import model_cache
from venom_schema.model import Model

__all__ = ("compile_model",)


def _bundle_declarations(bundles: Sequence[str]) -> bytes:
    from venom_schema.canonical import canonical_json
    from venom_schema.manifest._bundles import bundle_verbs

    return canonical_json(_jsonable(bundle_verbs(list(bundles))))


def _jsonable(value: Any) -> Any:
    from venom_schema.zon._values import ZON_EMPTY, ZonEnum

    if isinstance(value, ZonEnum):
        return "." + value.name
    if value is ZON_EMPTY:
        # Always an empty tuple in the bundle files (an object's fields): hashed as the list
        # it was when the bundles were Python, so no committed cache went stale with the move.
        return []
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    return value


def compile_model(
    manifest_path: str | os.PathLike[str],
    cache_path: str | os.PathLike[str] | None = None,
    *,
    bundles: Sequence[str] | None = None,
) -> Model:
    """Validate the manifest and (re)write the cache if stale; returns the normalized model.

    The cache (default: `venom_proto.model_cache.cache_path` of the manifest) is fresh when
    its key, a hash of the manifest bytes and the bundle declarations, matches; the write is
    `venom_proto.files.write_atomic`'s. Raises what ``load_manifest`` raises.
    """
    from venom_schema.canonical import digest
    from venom_schema.manifest import DEFAULT_BUNDLES, validate_manifest
    from venom_schema.zon import parse_zon

    chosen = tuple(DEFAULT_BUNDLES if bundles is None else bundles)
    source = os.fspath(manifest_path)
    target = model_cache.cache_path(source) if cache_path is None else cache_path
    data = Path(source).read_bytes()
    key = model_cache.staleness_key(data, _bundle_declarations(chosen))
    cached: Model | None = model_cache.load_fresh(target, key)
    if cached is not None:
        return cached
    model = validate_manifest(parse_zon(data, source), source=source, bundles=chosen)
    model_cache.write_model_cache(target, model, key=key, digest=digest(model), bundles=chosen)
    return model
