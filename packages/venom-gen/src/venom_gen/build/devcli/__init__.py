"""``venom-gen``: the developer CLI over a manifest (validate, normalize, generate, ``--check``).

``artifacts`` holds the pure artifact layout (no typer); ``app`` holds the typer commands and is
imported only when the CLI runs.
"""

from __future__ import annotations

__all__ = ("main",)


def main() -> None:
    """Console-script entry point (``venom-gen = "venom_gen.build.devcli:main"``)."""
    from venom_gen.build.devcli.app import main as run

    run()
