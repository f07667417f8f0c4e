"""The lowest sibling versions a package's ranges allow, and wheels of them.

A release of a workspace package is the git tag ``NAME-vVERSION`` its release made
(docs/releasing.md). For each sibling a package depends on, the version to test against is the
lowest one its range admits among those releases and this tree's own version. A release older
than this tree is rebuilt from its tag, exactly as it was released; a range that admits only
this tree's version is tested against the fresh wheel, and the report says so.
"""

from __future__ import annotations

import io
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path

from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from tools.workspace import Member

__all__ = ("Pick", "build_release", "lowest", "picks", "released")


@dataclass(frozen=True, slots=True)
class Pick:
    """The lowest version of ``sibling`` that ``specifier`` admits, and the tag it comes from."""

    sibling: Member
    specifier: SpecifierSet
    version: Version
    tag: str | None  # None: this tree's version

    def describe(self) -> str:
        source = f"tag {self.tag}" if self.tag else "this tree: no older release in range"
        return f"{self.sibling.name}{self.specifier} -> {self.version} ({source})"


def released(root: Path, name: str) -> dict[Version, str]:
    """The released versions of ``name``, from the repository's ``NAME-v*`` tags."""
    proc = subprocess.run(
        ["git", "-C", str(root), "tag", "--list", f"{name}-v*"],
        capture_output=True,
        text=True,
        check=False,
    )
    found: dict[Version, str] = {}
    for tag in proc.stdout.split():
        try:
            found[Version(tag.removeprefix(f"{name}-v"))] = tag
        except InvalidVersion:
            continue
    return found


def lowest(specifier: SpecifierSet, candidates: list[Version]) -> Version | None:
    """The lowest of ``candidates`` that ``specifier`` admits (pre-releases only if named)."""
    admitted = list(specifier.filter(candidates))
    return min(admitted) if admitted else None


def picks(member: Member, every: tuple[Member, ...], root: Path) -> list[Pick]:
    """For each sibling ``member`` depends on directly: the lowest version to test against.

    Raises ``LookupError`` when a range admits neither a release nor this tree's version.
    """
    by_name = {m.name: m for m in every}
    found: list[Pick] = []
    for req in member.requirements:
        sibling = by_name.get(canonicalize_name(req.name))
        if sibling is None:
            continue
        tags = released(root, sibling.name)
        current = Version(sibling.version)
        version = lowest(req.specifier, [*tags, current])
        if version is None:
            raise LookupError(
                f"{member.name} needs {req}, but neither a release nor this tree's"
                f" {sibling.name} {current} is in that range"
            )
        tag = None if version == current else tags[version]
        found.append(Pick(sibling, req.specifier, version, tag))
    return found


def build_release(root: Path, pick: Pick, work: Path, out: Path, uv: str = "uv") -> None:
    """Build ``pick``'s wheel from its tag's tree (a ``git archive``) into ``out``."""
    assert pick.tag is not None
    tree = work / pick.tag
    if not tree.exists():
        archive = subprocess.run(
            ["git", "-C", str(root), "archive", "--format=tar", pick.tag],
            capture_output=True,
            check=True,
        ).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(tree, filter="data")
    subprocess.run(
        [
            uv,
            "build",
            "--quiet",
            "--package",
            pick.sibling.name,
            "--no-sources",
            "--wheel",
            "-o",
            str(out),
        ],
        cwd=tree,
        check=True,
    )
