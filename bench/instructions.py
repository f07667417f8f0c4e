"""Instructions per pipelined request, for ``valgrind --tool=callgrind`` (load-independent).

``python -m bench.instructions {demo|product|baseline|none} N`` builds the daemon's real
per-connection protocol object in this process, gives it an in-memory transport and feeds it a
hello plus ``N`` pipelined ``echo`` requests in 64 KiB chunks, the way the kernel hands a
pipelining client's bytes to the daemon. Run it under callgrind twice, with two sizes, and the
difference of the two instruction totals divided by the difference of the sizes is the cost of
one request with start-up and imports cancelled out::

    valgrind --tool=callgrind --callgrind-out-file=/dev/null python -m bench.instructions demo 20000

(the ``Collected`` line on stderr is the total). ``baseline`` runs ``bench/baseline_server.py``'s
own protocol class over the same bytes; ``none`` only builds the input, whose cost the other
figures include and should have subtracted.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import socket
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from venom_proto import Server

CHUNK = int(os.environ.get("BENCH_CHUNK", "65536"))
DEMO_DAEMON = Path(__file__).resolve().parents[1] / "packages/venom-proto/tests/demo_daemon.py"
HELLO = b'{"id":0,"verb":"hello","params":{"proto":[1]}}\n'


class MemoryTransport(asyncio.Transport):
    """Counts what the daemon writes; never pushes back."""

    def __init__(self, sock: socket.socket) -> None:
        super().__init__()
        self._sock = sock
        self.written = 0

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self._sock if name == "socket" else default

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.written += len(data)

    def get_write_buffer_size(self) -> int:
        return 0

    def is_closing(self) -> bool:
        return False

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def close(self) -> None:
        pass

    def abort(self) -> None:
        pass


def requests(n: int) -> bytes:
    return HELLO + b"".join(
        b'{"id":%d,"verb":"echo","params":{"text":"hello world"}}\n' % i for i in range(1, n + 1)
    )


def protocol_for(kind: str) -> asyncio.Protocol:
    if kind == "baseline":
        from bench.baseline_server import Echo

        return Echo()
    if kind == "demo":
        spec = importlib.util.spec_from_file_location("demo_daemon", DEMO_DAEMON)
        assert spec is not None
        assert spec.loader is not None
        demo = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(demo)
        server: Server = demo.build_server()
    else:
        from venom_echo.product import PRODUCT
        from venom_gen.daemon import App

        server = App(PRODUCT, tempfile.mktemp(suffix=".sock")).server()
    return server.in_process_protocol()


async def main(kind: str, n: int) -> int:
    data = requests(n)
    if kind == "none":  # only building the input: subtract this from the others
        return len(data)
    ours, theirs = socket.socketpair()
    protocol = protocol_for(kind)
    transport = MemoryTransport(ours)
    protocol.connection_made(transport)
    feed = protocol.data_received
    for start in range(0, len(data), CHUNK):
        feed(data[start : start + CHUNK])
    await asyncio.sleep(0)
    ours.close()
    theirs.close()
    return transport.written


if __name__ == "__main__":
    written = asyncio.run(main(sys.argv[1], int(sys.argv[2])))
    print(f"{sys.argv[1]}: {written} bytes written", file=sys.stderr)
