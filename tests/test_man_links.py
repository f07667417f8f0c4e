"""`tools.man_links`: each product's wheel-data man pages are links to its generated pages."""

from __future__ import annotations

import os
from pathlib import Path

from tools.man_links import DATA_MAN, expected_links, main, problems
from tools.workspace import ROOT


def test_every_page_is_linked_once() -> None:
    assert problems() == [], "run `python -m tools.man_links`"
    assert main(["--check"]) == 0
    links = expected_links()
    products = {link.parent for link in links}
    assert products == {
        ROOT / "packages/venom-echo" / DATA_MAN,
        ROOT / "examples/venom-notes" / DATA_MAN,
    }
    for link, target in links.items():
        assert link.is_symlink()
        assert os.readlink(link) == target
        assert not Path(target).is_absolute()
        assert link.resolve().parent.name == "man"  # src/<module>/generated/man
