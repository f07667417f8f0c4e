"""``venom-gen``: the developer CLI over a manifest (validate, normalize, generate, ``--check``).

``app`` holds the typer commands and is imported only when the CLI runs. typer comes with
venom-gen's ``dev`` extra, which a product's run time does without: without it, ``venom-gen``
says how to install it instead of failing with a traceback.
"""

from __future__ import annotations

import sys

__all__ = ("MISSING_EXTRA", "main")

#: What ``venom-gen`` prints (and exits 2 with) when the dev extra is not installed.
MISSING_EXTRA = (
    "venom-gen: the developer CLI needs venom-gen's dev extra (typer): "
    "pip install 'venom-gen[dev]', or uv add --dev 'venom-gen[dev]'"
)


def main() -> None:
    """Console-script entry point (``venom-gen = "venom_gen.build.devcli:main"``)."""
    try:
        from venom_gen.build.devcli.app import main as run
    except ModuleNotFoundError as exc:
        if exc.name not in ("typer", "click"):
            raise
        sys.stderr.write(MISSING_EXTRA + "\n")
        raise SystemExit(2) from None
    run()
