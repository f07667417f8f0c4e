"""The release gate (RFC-0004 §7, rfcs/0004 D-S48): no breaking manifest change since the
last release unless the version says so."""

from __future__ import annotations

import os
from pathlib import Path

from venom_proto.model_cache import cache_path

__all__ = ("RELEASE_SUFFIX", "newest_release", "release_problems")

#: A release's model is named as the model of a manifest ``<version>.zon`` would be
#: (`venom_proto.model_cache.cache_path`, the name's one owner): ``0.2.0.model.json``. Its
#: content is ``venom-gen normalize``'s output, not a cache.
RELEASE_SUFFIX = os.path.basename(cache_path("x.zon"))[1:]


def _version_key(version: str) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in version.split("."))
    except ValueError:
        return ()


def newest_release(release_dir: str | os.PathLike[str]) -> tuple[str, Path] | None:
    """The highest ``X.Y.Z`` with a ``X.Y.Z.model.json`` in ``release_dir``, and that file;
    None when no release is recorded there."""
    directory = Path(release_dir)
    if not directory.is_dir():
        return None
    found = [
        (path.name.removesuffix(RELEASE_SUFFIX), path)
        for path in directory.glob("*" + RELEASE_SUFFIX)
    ]
    found = [(version, path) for version, path in found if _version_key(version)]
    return max(found, key=lambda pair: _version_key(pair[0]), default=None)


def release_problems(
    release_dir: str | os.PathLike[str], manifest: str | os.PathLike[str], version: str
) -> list[str]:
    """Why the manifest at ``manifest`` may not be released as ``version``: each breaking
    change since the newest model in ``release_dir`` (`newest_release`), when ``version`` is
    not a major bump of it (a minor one below 1.0), then the fix. Empty when it may: no
    breaking change, a version that says so, or no release recorded yet (nothing to break)."""
    from venom_schema.compat import compare, read_model, version_allows_break
    from venom_schema.manifest import load_manifest

    newest = newest_release(release_dir)
    if newest is None:
        return []
    released, path = newest
    report = compare(read_model(path.read_bytes(), os.fspath(path)), load_manifest(manifest))
    if report.compatible or version_allows_break(released, version):
        return []
    major, minor = (int(part) for part in [*released.split("."), "0"][:2])
    needed = f"0.{minor + 1}.0" if major == 0 else f"{major + 1}.0.0"
    return [
        f"{len(report.breaking)} breaking change(s) to {os.fspath(manifest)} since release"
        f" {released} ({os.fspath(path)}), and version {version} does not say so:",
        *(f"    {change.render()}" for change in report.breaking),
        f"  fix: restore what changed, or release it as {needed} or later (RFC-0004 §7;"
        " for 0.x a minor bump marks a breaking change)",
    ]
