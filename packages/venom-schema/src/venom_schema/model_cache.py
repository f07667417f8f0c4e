"""The normalized model cached as JSON next to a manifest, for the light CLI path.

``compile_model`` (build side) validates ``verbs.zon`` and writes ``verbs.model.json`` only when
stale. The cache file is the normalized model itself plus one ``"$cache"`` member holding the
digest and the staleness key; it is read back, at run time, by
`venom_proto.conventions.load_model` (the model without that member) and
`venom_proto.conventions.load_cache_info` (the member), on the standard library alone.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from venom_proto.conventions import CACHE_KEY
from venom_schema.model import Model

__all__ = ("CACHE_KEY", "compile_model", "default_cache_path")

_CACHE_FORMAT: Final = 1


def default_cache_path(manifest_path: str | os.PathLike[str]) -> Path:
    """``verbs.zon`` -> ``verbs.model.json`` in the same directory."""
    path = Path(manifest_path)
    return path.with_name(path.stem + ".model.json")


def _staleness_key(manifest_bytes: bytes, bundles: Sequence[str]) -> str:
    from venom_schema.canonical import canonical_json
    from venom_schema.manifest._bundles import bundle_verbs

    # The bundles are part of the model: a venom-schema upgrade that changes them must
    # invalidate caches even when verbs.zon is unchanged.
    hasher = hashlib.sha256(manifest_bytes)
    bundle_json = canonical_json(_jsonable(bundle_verbs(bundles)))
    hasher.update(b"\0" + bundle_json)
    return f"{_CACHE_FORMAT}:{hasher.hexdigest()}"


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

    The cache is fresh when its key (hash of the manifest bytes and the bundle declarations)
    matches; the write is atomic (temporary file + rename). Raises what ``load_manifest`` raises.
    """
    from venom_schema.canonical import digest
    from venom_schema.manifest import DEFAULT_BUNDLES, validate_manifest
    from venom_schema.zon import parse_zon

    chosen = tuple(DEFAULT_BUNDLES if bundles is None else bundles)
    source = os.fspath(manifest_path)
    target = Path(cache_path) if cache_path is not None else default_cache_path(source)
    data = Path(source).read_bytes()
    key = _staleness_key(data, chosen)
    try:
        cached = _read_json(target)
    except ValueError:
        cached = None  # a corrupt cache is just stale
    if cached is not None and cached.get(CACHE_KEY, {}).get("key") == key:
        return _strip(cached)
    model = validate_manifest(parse_zon(data, source), source=source, bundles=chosen)
    document = dict(model)
    document[CACHE_KEY] = {"key": key, "digest": digest(model), "bundles": list(chosen)}
    _write_atomic(target, json.dumps(document, ensure_ascii=False, indent=1) + "\n")
    return model


def _strip(document: dict[str, Any]) -> Model:
    model: Model = {key: value for key, value in document.items() if key != CACHE_KEY}  # type: ignore[assignment]
    return model


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        with path.open("rb") as handle:
            document = json.load(handle)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: unreadable model cache: {exc}") from exc
    return document if isinstance(document, dict) else None


def _write_atomic(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
