"""The binary baseline: a plain Python process echoing bytes over a Unix socket.

Run as ``python bench/baseline_bytes.py SOCKET``. Each connection gets a thread that
``recv_into`` a 64 KiB buffer and ``sendall`` it back: the least work any byte echo can do in
Python, with no framing at all.
"""

from __future__ import annotations

import os
import socket
import sys
import threading

CHUNK = 65536


def echo(conn: socket.socket) -> None:
    buf = bytearray(CHUNK)
    view = memoryview(buf)
    with conn:
        while n := conn.recv_into(buf):
            conn.sendall(view[:n])


def main(path: str) -> None:
    if os.path.exists(path):
        os.unlink(path)
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(path)
        server.listen()
        while True:
            conn, _ = server.accept()
            threading.Thread(target=echo, args=(conn,), daemon=True).start()


if __name__ == "__main__":
    main(sys.argv[1])
