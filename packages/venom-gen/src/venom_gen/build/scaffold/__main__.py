"""``python -m venom_gen.build.scaffold NAME [--dest DIR] [--standalone] [--zon]``: ``venom-gen
new``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from venom_gen.build.scaffold import ScaffoldError, scaffold_product

__all__ = ("main",)


def main(argv: list[str] | None = None) -> int:
    """Scaffold a product; print the files written, or one error line and exit 1."""
    parser = argparse.ArgumentParser(
        prog="venom-gen new", description="Create a Venom product package."
    )
    parser.add_argument("name", help="tool name, e.g. venom-foo")
    parser.add_argument("--dest", type=Path, help="project directory (default: ./NAME)")
    parser.add_argument(
        "--standalone", action="store_true", help="a project outside the uv workspace"
    )
    parser.add_argument(
        "--zon", action="store_true", help="declare the verbs in verbs.zon, not in Python"
    )
    args = parser.parse_args(argv)
    dest: Path = args.dest or Path(args.name)
    try:
        paths = scaffold_product(args.name, dest, standalone=args.standalone, zon=args.zon)
    except (ScaffoldError, OSError) as exc:
        print(f"venom-gen: {exc}", file=sys.stderr)
        return 1
    print(f"created {args.name} in {dest}: {len(paths)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
