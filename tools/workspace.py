"""The workspace's members as their pyproject.toml files declare them."""

from __future__ import annotations

import glob
import tomllib
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import NormalizedName, canonicalize_name

__all__ = ("ROOT", "Member", "closure", "members")

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True, slots=True)
class Member:
    """One workspace package: where it lives and what its pyproject.toml declares."""

    name: NormalizedName
    path: Path
    version: str
    module: str
    requirements: tuple[Requirement, ...]
    test_requirements: tuple[str, ...]
    #: ``[project.optional-dependencies]``: extra name -> its requirements.
    extras: tuple[tuple[str, tuple[Requirement, ...]], ...] = ()

    @property
    def module_dir(self) -> Path:
        return self.path / "src" / self.module

    @property
    def tests(self) -> Path:
        return self.path / "tests"


def _member(path: Path) -> Member:
    data = tomllib.loads((path / "pyproject.toml").read_text(encoding="utf-8"))
    project = data["project"]
    (module,) = [p.name for p in (path / "src").iterdir() if (p / "__init__.py").is_file()]
    return Member(
        name=canonicalize_name(project["name"]),
        path=path,
        version=project["version"],
        module=module,
        requirements=tuple(Requirement(r) for r in project.get("dependencies", ())),
        test_requirements=tuple(data.get("dependency-groups", {}).get("test", ())),
        extras=tuple(
            (extra, tuple(Requirement(r) for r in reqs))
            for extra, reqs in project.get("optional-dependencies", {}).items()
        ),
    )


def members(root: Path = ROOT) -> tuple[Member, ...]:
    """Every member, each after the members it depends on (the release order)."""
    data = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    found: dict[str, Member] = {}
    for pattern in data["tool"]["uv"]["workspace"]["members"]:
        for match in sorted(glob.glob(pattern, root_dir=root)):
            if (root / match / "pyproject.toml").is_file():
                member = _member(root / match)
                found[member.name] = member
    ordered: list[Member] = []

    def visit(member: Member) -> None:
        if member not in ordered:
            for req in member.requirements:
                if (dep := canonicalize_name(req.name)) in found:
                    visit(found[dep])
            ordered.append(member)

    for member in found.values():
        visit(member)
    return tuple(ordered)


def closure(member: Member, every: tuple[Member, ...]) -> tuple[Member, ...]:
    """``member`` and every workspace member it depends on, directly or not."""
    by_name = {m.name: m for m in every}
    seen: list[Member] = []
    todo = [member]
    while todo:
        current = todo.pop()
        if current not in seen:
            seen.append(current)
            todo += [
                by_name[n]
                for r in current.requirements
                if (n := canonicalize_name(r.name)) in by_name
            ]
    return tuple(m for m in every if m in seen)
