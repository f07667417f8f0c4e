"""The man pages a product's wheel installs are links to the pages its package ships.

`venom-gen all` writes a product's man pages into ``src/<module>/generated/man``, where its
``man`` and ``man install`` local verbs read them. The wheel installs ``data/share/man/man1``
into the environment's ``share/man/man1`` (uv_build's ``data``), so that ``man TOOL`` works in a
venv on PATH. That directory holds only relative symbolic links to the generated pages, which
the build follows (the sdist and the wheel carry the files): each page is committed once.

    python -m tools.man_links            make every product's links match its generated pages
    python -m tools.man_links --check    list the missing, stale and extra links and exit 1
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from tools.workspace import ROOT, members

__all__ = ("DATA_MAN", "expected_links", "main", "problems", "sync")

#: Where a product's wheel data keeps its man pages, relative to the product's directory.
DATA_MAN = Path("data/share/man/man1")


def expected_links(root: Path = ROOT) -> dict[Path, str]:
    """``{link: relative target}`` for every generated page of every product."""
    links: dict[Path, str] = {}
    for member in members(root):
        pages = member.module_dir / "generated" / "man"
        if not pages.is_dir():
            continue
        data = member.path / DATA_MAN
        for page in sorted(pages.glob("*.1")):
            links[data / page.name] = os.path.relpath(page, data)
    return links


def _present(root: Path) -> dict[Path, str | None]:
    """What the data directories hold: a link's target, or None for anything else."""
    found: dict[Path, str | None] = {}
    dirs = {link.parent for link in expected_links(root)}
    dirs |= {m.path / DATA_MAN for m in members(root) if (m.path / DATA_MAN).is_dir()}
    for data in sorted(dirs):
        if data.is_dir():
            for entry in sorted(data.iterdir()):
                found[entry] = os.readlink(entry) if entry.is_symlink() else None
    return found


def problems(root: Path = ROOT) -> list[str]:
    """Each link that is missing, points elsewhere, is no link, or has no page."""
    want, have = expected_links(root), _present(root)
    out: list[str] = []
    for path in sorted(want.keys() | have.keys()):
        rel = path.relative_to(root)
        if path not in have:
            out.append(f"{rel}: missing")
        elif path not in want:
            out.append(f"{rel}: no generated page")
        elif have[path] != want[path]:
            out.append(f"{rel}: not a link to {want[path]}")
    return out


def sync(root: Path = ROOT) -> list[Path]:
    """Make the links match the generated pages; return the paths changed."""
    want, have = expected_links(root), _present(root)
    changed: list[Path] = []
    for path in sorted(have.keys() - want.keys()):
        path.unlink()
        changed.append(path)
    for path, target in sorted(want.items()):
        if have.get(path, "") == target:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if path in have:
            path.unlink()
        path.symlink_to(target)
        changed.append(path)
    return changed


def main(argv: Sequence[str] = ()) -> int:
    if "--check" in argv:
        found = problems()
        for line in found:
            print(f"{line}; run `python -m tools.man_links`", file=sys.stderr)
        return 1 if found else 0
    for path in sync():
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
