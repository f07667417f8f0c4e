"""Sequential round trips through each stack's own client library, in its own process.

``python library_clients.py KIND SOCK N`` prints ``median_s`` and ``p99_s`` of N calls on one
open connection: ``venom`` uses ``venom_proto.sync_client.SyncClient``, ``varlink`` uses
``varlink.Client``. (gRPC's row already goes through its stub, see ``grpc_peer.py``.) This is
what an application calling in a loop sees, library overhead included.
"""

from __future__ import annotations

import importlib
import json
import sys
import time
from collections.abc import Callable
from typing import Any

TEXT = "hello world"


def _timed(call: Callable[[], str], n: int) -> dict[str, float]:
    if call() != TEXT:  # warm-up and check, untimed
        raise RuntimeError("wrong echo")
    samples = []
    for _ in range(n):
        t0 = time.perf_counter()
        call()
        samples.append(time.perf_counter() - t0)
    samples.sort()
    return {"median_s": samples[n // 2], "p99_s": samples[min(n - 1, int(n * 0.99))]}


def venom(sock: str, n: int) -> dict[str, float]:
    from venom_proto.sync_client import SyncClient

    with SyncClient(sock, client_name="bench", client_version="0") as client:
        return _timed(lambda: str(client.call("echo", {"text": TEXT})["text"]), n)


def varlink(sock: str, n: int) -> dict[str, float]:
    lib: Any = importlib.import_module("varlink")  # untyped; installed by the peers group
    with lib.Client(address=f"unix:{sock}") as client, client.open("org.example.echo") as echo:
        return _timed(lambda: str(echo.Echo(TEXT)["text"]), n)


def main(argv: list[str]) -> int:
    kind, sock, n = argv
    print(json.dumps({"venom": venom, "varlink": varlink}[kind](sock, int(n))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
