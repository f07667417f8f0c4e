"""Each package's run-time version constant, written from its pyproject.toml.

A package that states its own version at run time (a product's ``hello`` and ``--version``)
reads it from ``src/<module>/_version.py``, which this writes; pyproject.toml stays the one
place a version is edited. ``importlib.metadata`` would also give one source, but importing it
costs a CLI call more than its whole start-up budget.

    python -m tools.versions            rewrite every stale _version.py
    python -m tools.versions --check    list the stale ones and exit 1
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from tools.workspace import ROOT, Member, members

__all__ = ("VERSION_FILE", "main", "render", "stale", "version_files")

VERSION_FILE = "_version.py"


def render(member: Member) -> str:
    """The text of ``member``'s version module."""
    return (
        f'"""The version of {member.name}.\n\n'
        'Written from pyproject.toml by `python -m tools.versions`; edit the version there.\n"""\n'
        "\n"
        f'VERSION = "{member.version}"\n'
    )


def version_files(root: Path = ROOT) -> list[tuple[Member, Path]]:
    """The members that state their version at run time, with their version module."""
    return [(m, f) for m in members(root) if (f := m.module_dir / VERSION_FILE).is_file()]


def stale(root: Path = ROOT) -> list[Path]:
    """The version modules whose text differs from what their pyproject.toml gives."""
    return [f for m, f in version_files(root) if f.read_text(encoding="utf-8") != render(m)]


def main(argv: Sequence[str] = ()) -> int:
    check = "--check" in argv
    found = stale()
    for path in found:
        rel = path.relative_to(ROOT)
        if check:
            print(f"{rel}: stale; run `python -m tools.versions`", file=sys.stderr)
        else:
            member = next(m for m, f in version_files() if f == path)
            path.write_text(render(member), encoding="utf-8")
            print(f"wrote {rel}")
    return 1 if check and found else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
