"""The test kit for product authors (docs/testing.md): real daemons, in-process calls, fakes.

- `DaemonProcess`: the product's real daemon (or any daemon's command line) as a subprocess
  on a real Unix socket, in its own short `PrivateDirs`; with clients (`SyncClient`,
  `AsyncClient`, `RawPeer`) and the product's CLI as a subprocess. Always stopped and cleaned
  up, a failed start included.
- `InProcess`: the daemon's verbs through the registry in this process (grants, defaults,
  result checks applied), and `MemoryClient`, an in-memory connection to its whole server.
- `FakeCall`: a real `venom_proto.Call` that records emitted items, for handler unit tests.
- `RawPeer`: raw NDJSON lines over the socket; `McpPeer`: ``<tool> mcp`` with raw JSON-RPC.
- `release_problems`: the release gate, no breaking manifest change since the last release's
  model (``release/<version>.model.json``) unless the version says so.

The pytest plugin (`venom_gen.testing.pytest_plugin`, loaded automatically) offers them as
fixtures: ``venom_daemon``, ``venom_app``, ``venom_raw``, ``venom_dirs``, ``fake_call``.
"""

from ._daemon import TIMEOUT, DaemonProcess, DaemonStartError, product_command
from ._dirs import PrivateDirs
from ._fake_call import FakeCall
from ._in_process import InProcess
from ._mcp_peer import McpPeer
from ._memory import MemoryClient
from ._raw import RawPeer
from ._release import newest_release, release_problems

__all__ = (
    "TIMEOUT",
    "DaemonProcess",
    "DaemonStartError",
    "FakeCall",
    "InProcess",
    "McpPeer",
    "MemoryClient",
    "PrivateDirs",
    "RawPeer",
    "newest_release",
    "product_command",
    "release_problems",
)
