"""A Python declaration as its data-only ``verbs.zon`` (what ``venom-gen export-zon`` writes).

The exported file is the interchange form RFC-0004 §2 standardizes: other tools read it with no
Python, and every generator reads it as it reads a hand-written one. It reads back to the
declaration's model byte for byte (``tests``: export, parse, validate, compare).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from venom_schema.declare import Declaration

__all__ = ("exported_zon",)


def exported_zon(declaration: Declaration, spec: str) -> str:
    """The ``verbs.zon`` text of ``declaration``, declared at ``spec`` (``module:attribute``).

    A header comment names the command that regenerates it, so a reader edits the declaration
    rather than the export.
    """
    header = (
        f"Exported by `venom-gen export-zon {spec}`:\n"
        "edit that Python declaration, not this file. venom-schema merges in the standard\n"
        "bundles (ping, events, skill, doctor, config.*, serve, mcp)."
    )
    return declaration.to_zon(header=header)
