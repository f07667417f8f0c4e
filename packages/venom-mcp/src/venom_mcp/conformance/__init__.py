"""The black-box conformance suite of RFC-0002 and RFC-0004, for any daemon of the family.

``venom-conformance --cli TOOL`` (or ``python -m venom_mcp.conformance``) starts the daemon on
a private runtime directory, reads its model and holds it to every rule of the RFCs that its
model gives ground for: the wire protocol through the socket, the CLI and the MCP adapter as a
user and an agent run them. It needs ``venom-mcp[conformance]`` (pytest). Options (``--help``
lists them): ``--cli CMD``, ``--daemon CMD``, ``--tool NAME``, ``--model PATH``, ``--auth JSON``,
``--generated DIR``, ``--stream``/``--endless-stream 'VERB JSON'``, ``--report-json PATH``; any
other argument goes to pytest (``-k``, ``-x``, ``-q``).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

__all__ = ("CHECKS", "PLUGIN", "main")

#: The pytest plugin that runs the suite (options, the daemon under test, the summary).
PLUGIN = "venom_mcp.conformance.plugin"
#: The package of the checks themselves, collected with ``--pyargs``.
CHECKS = "venom_mcp.conformance._checks"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the suite with ``argv`` (default: the command line); pytest's exit status.

    The suite brings its own configuration: the project's pytest settings (``addopts``, the
    import mode, ``testpaths``) are not read, so it runs alike from any directory.
    """
    import pytest

    from venom_mcp.conformance import _checks

    args = list(sys.argv[1:] if argv is None else argv)
    where = _checks.__path__[0]
    return int(
        pytest.main(
            [
                "-c",
                "/dev/null",
                "--rootdir",
                where,
                "-p",
                "no:cacheprovider",
                "-p",
                PLUGIN,
                "--pyargs",
                CHECKS,
                *args,
            ]
        )
    )
