"""The API reference's pages list exactly each package's public API (tools/api_pages.py)."""

from __future__ import annotations

import zlib
from pathlib import Path

from tools.api_pages import inventory_names, main, pages, public_names


def test_the_reference_pages_are_current() -> None:
    assert main(["--check"]) == 0, "run `python -m tools.api_pages` and commit docs/reference"


def test_every_public_module_has_a_section() -> None:
    text = "\n".join(pages().values())
    for modules in public_names().values():
        for module, names in modules.items():
            assert f"::: {module}\n" in text
            for name in names:
                assert f"        - {name}\n" in text


def test_the_inventory_reader_reads_what_mkdocstrings_writes(tmp_path: Path) -> None:
    body = b"venom_proto.SyncClient py:class 1 reference/venom-proto/#$ -\n"
    header = b"# Sphinx inventory version 2\n# Project: x\n# Version: 0\n# zlib\n"
    (tmp_path / "objects.inv").write_bytes(header + zlib.compress(body))
    assert inventory_names(tmp_path) == {"venom_proto.SyncClient"}
