"""``python -m venom_mcp MODEL.json [--socket PATH] [--max-grant GRANT]``: serve a cached model."""

from __future__ import annotations

import sys

from venom_mcp import main

if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
    print(
        "usage: python -m venom_mcp MODEL.json [--socket PATH] [--max-grant GRANT]", file=sys.stderr
    )
    sys.exit(2)
sys.exit(main(sys.argv[2:], sys.argv[1]))
