"""``python -m venom_mcp.conformance [OPTIONS]``: the conformance suite (see the package)."""

from __future__ import annotations

import sys

from venom_mcp.conformance import main

sys.exit(main())
