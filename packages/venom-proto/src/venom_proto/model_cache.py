"""The normalized model cached as JSON beside a product's manifest: the file's one owner.

The format, whole: the file is ``<stem>.model.json`` beside ``<stem>.zon`` (`cache_path`);
it holds the normalized model itself (`venom_schema.model.Model`) plus one `CACHE_KEY`
member, ``{"key", "digest", "bundles"}``, encoded as UTF-8 JSON with one-space indentation
and a final newline (`encode_cache`); it is fresh while its key, `staleness_key` of the
manifest's bytes and of the bundles' declarations, is the one the manifest gives now
(`load_fresh`). The build side (`venom_schema.model_cache.compile_model`) validates the
manifest and calls `write_model_cache`; every process reads it back with `load_model` (the
model without that member) and `load_cache_info` (the member), on the standard library alone.

On the path of every CLI call (the readers), so it imports no ``typing``, ``json`` or ``re``:
the readers use `venom_proto.stdjson`; the writers import what they need when they run.
"""

from __future__ import annotations

import os

from ._core.errors import VenomError
from .stdjson import _load_own

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would slow every CLI call.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

__all__ = (
    "CACHE_FORMAT",
    "CACHE_KEY",
    "cache_path",
    "encode_cache",
    "load_cache_info",
    "load_fresh",
    "load_model",
    "staleness_key",
    "write_model_cache",
)

#: The member of a model cache file that holds its digest and staleness key, not the model.
CACHE_KEY = "$cache"
#: The cache layout's version, the first part of every staleness key.
CACHE_FORMAT = 1


def cache_path(manifest_path: str | os.PathLike[str]) -> str:
    """``verbs.zon`` -> ``verbs.model.json`` in the same directory."""
    path = os.fspath(manifest_path)
    stem, _ = os.path.splitext(os.path.basename(path))
    return os.path.join(os.path.dirname(path), stem + ".model.json")


def staleness_key(manifest: bytes, bundles: bytes) -> str:
    """The key a cache of this manifest and these bundle declarations (their canonical JSON)
    must hold to be fresh: a venom-schema upgrade that changes the bundles invalidates caches
    even when the manifest is unchanged."""
    import hashlib

    hasher = hashlib.sha256(manifest)
    hasher.update(b"\0" + bundles)
    return f"{CACHE_FORMAT}:{hasher.hexdigest()}"


def encode_cache(
    model: Mapping[str, Any], *, key: str, digest: str, bundles: Sequence[str]
) -> bytes:
    """The bytes of the cache file for ``model``: the model, then the `CACHE_KEY` member."""
    import json

    document = dict(model)
    document[CACHE_KEY] = {"key": key, "digest": digest, "bundles": list(bundles)}
    return (json.dumps(document, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


def write_model_cache(
    path: str | os.PathLike[str],
    model: Mapping[str, Any],
    *,
    key: str,
    digest: str,
    bundles: Sequence[str],
) -> None:
    """Write the cache file at ``path`` with the one atomic writer (mode 0644: a package
    file others read)."""
    from .files import write_atomic

    write_atomic(path, encode_cache(model, key=key, digest=digest, bundles=bundles), 0o644)


def _model_error(path: str | os.PathLike[str], detail: str) -> VenomError:
    return VenomError("internal.model", f"{os.fspath(path)!r} {detail}")


def _read_cache(path: str | os.PathLike[str]) -> dict[str, Any]:
    try:
        with open(path, "rb") as f:
            # Our own build output: no nesting scan on every CLI call (see _load_own).
            document = _load_own(f.read())
    except (OSError, ValueError) as exc:
        raise _model_error(path, f"cannot be read as a model: {exc}") from None
    if (
        not isinstance(document, dict)
        or type(document.get("format")) is not int
        or document["format"] != 1
        or not isinstance(document.get("tool"), str)
        or not isinstance(document.get("verbs"), list)
    ):
        raise _model_error(path, "is not a format 1 normalized model")
    return document


def load_model(path: str | os.PathLike[str]) -> Any:
    """The normalized model in the cache file at ``path`` (``verbs.model.json``).

    The result is the JSON object that `venom_schema.model.Model` describes, without the
    cache's own member; any defect raises ``internal.model`` (exit 11).
    """
    document = _read_cache(path)
    document.pop(CACHE_KEY, None)
    return document


def load_cache_info(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The cache member of the model file at ``path``: ``{"key", "digest", "bundles"}``.

    Raises ``internal.model`` when the file is no model cache or has no such member.
    """
    info = _read_cache(path).get(CACHE_KEY)
    if not isinstance(info, dict):
        raise _model_error(path, "has no model cache information")
    return info


def load_fresh(path: str | os.PathLike[str], key: str) -> Any | None:
    """The model cached at ``path`` if the file is a cache holding ``key``, else None: a
    missing, corrupt or stale cache is simply not fresh."""
    try:
        document = _read_cache(path)
    except VenomError:
        return None
    info = document.pop(CACHE_KEY, None)
    return document if isinstance(info, dict) and info.get("key") == key else None
