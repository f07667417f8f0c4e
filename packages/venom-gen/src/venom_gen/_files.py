"""The safe file reader and atomic writer that the local verbs share with the daemon.

``man install``, ``mcp.config --write`` and ``service.install`` import them from here, never
from `venom_gen.daemon`, so the CLI side names the daemon nowhere: when the writer moves, this
module is the one line that changes.
"""

from venom_gen.daemon.files import FileRefused, read_regular, write_atomic

__all__ = ("FileRefused", "read_regular", "write_atomic")
