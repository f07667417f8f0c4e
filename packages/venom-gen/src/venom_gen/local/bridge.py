"""``<tool> bridge``: stdin/stdout to the daemon's socket, after checking the hello (rfcs/0006 §2).

The bridge reads the first message itself, sniffing the first byte like the server: an NDJSON
line, or the ``0xF5`` preamble and a HELLO frame, at most `MAX_HELLO` bytes within
`HELLO_TIMEOUT` seconds. Unless it is a hello whose ``auth.token`` is the owner token beside
the socket or an active issued token, it answers ``denied.auth`` in that connection's framing
and exits 4 without opening the socket. Otherwise it writes the bytes it read, unchanged, to
the daemon and copies both ways until either side closes, interpreting nothing.

It is on the path of every remote connection, so it imports only ``os``, ``select``,
``_socket``, `venom_proto.files`, the stdlib JSON codec, the CLI's flag reader (loaded with the
binary already) and, for an issued token, the token store.
"""

from __future__ import annotations

import _socket
import contextlib
import os
import select
from time import monotonic
from typing import TYPE_CHECKING

from venom_gen.cli import flag_value
from venom_proto import VenomError
from venom_proto.conventions import resolve_socket_path
from venom_proto.files import write_all
from venom_proto.owner_token import OwnerToken, read_owner_token
from venom_proto.stdjson import std_dumps, std_loads

if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from venom_gen.product import Product

__all__ = ("HELLO_TIMEOUT", "MAX_HELLO", "run_bridge")

#: Seconds the first message may take to arrive (RFC-0002 §3's bound on hello).
HELLO_TIMEOUT = 10.0
#: Bytes the first message may take: a hello is a few hundred.
MAX_HELLO = 64 * 1024
#: Bytes buffered per direction before the bridge stops reading that direction's source.
_WINDOW = 1024 * 1024
_CHUNK = 65536
_NDJSON, _BINARY = 0x7B, 0xF5
_HEADER = 10
_HELLO_FRAME, _ERROR_FRAME = 0x0001, 0x0003


class _Refusal(Exception):
    def __init__(self, error: VenomError, request_id: Any = None) -> None:
        self.error = error
        self.request_id = request_id


def _denied(reason: str, message: str) -> VenomError:
    return VenomError("denied.auth", message, {"reason": reason})


def _encode(binary: bool, request_id: Any, error: VenomError) -> bytes:
    """``error`` in the connection's framing: an NDJSON line, or an ERROR frame on stream 0."""
    if not binary:
        return std_dumps({"id": request_id, "error": error.to_object()}) + b"\n"
    payload = std_dumps(error.to_object())
    header = _ERROR_FRAME.to_bytes(2, "big") + bytes(4) + len(payload).to_bytes(4, "big")
    return header + payload


def _read_more(buf: bytearray, deadline: float) -> None:
    left = deadline - monotonic()
    if left <= 0 or not select.select([0], [], [], left)[0]:
        raise _Refusal(_denied("timeout", f"no hello within {HELLO_TIMEOUT:g} s"))
    chunk = os.read(0, _CHUNK)
    if not chunk:
        raise EOFError
    buf += chunk


def _first_message(buf: bytearray, deadline: float) -> tuple[bool, bytes]:
    """Read until the first message is complete; returns (binary, its JSON bytes)."""
    while not buf:
        _read_more(buf, deadline)
    if buf[0] == _NDJSON:
        while (end := buf.find(b"\n")) < 0:
            if len(buf) > MAX_HELLO:
                raise _Refusal(_denied("too_large", f"the hello exceeds {MAX_HELLO} bytes"))
            _read_more(buf, deadline)
        if end > MAX_HELLO:
            raise _Refusal(_denied("too_large", f"the hello exceeds {MAX_HELLO} bytes"))
        return False, bytes(buf[:end])
    if buf[0] != _BINARY:
        error = VenomError(
            "protocol.bad_preamble",
            "first byte must be '{' (NDJSON) or 0xF5 (binary)",
            {"byte": buf[0], "supported": [_NDJSON, _BINARY]},
        )
        raise _Refusal(error)
    while len(buf) < 1 + _HEADER:
        _read_more(buf, deadline)
    kind = int.from_bytes(buf[1:3], "big")
    stream = int.from_bytes(buf[3:7], "big")
    length = int.from_bytes(buf[7:11], "big")
    if kind != _HELLO_FRAME or stream != 0:
        raise _Refusal(_denied("no_hello", "the first frame must be HELLO on stream 0"))
    if length > MAX_HELLO:
        raise _Refusal(_denied("too_large", f"the hello exceeds {MAX_HELLO} bytes"))
    while len(buf) < 1 + _HEADER + length:
        _read_more(buf, deadline)
    return True, bytes(buf[1 + _HEADER : 1 + _HEADER + length])


def _token_state(token: object, socket_path: str, tool: str, environ: Mapping[str, str]) -> str:
    """``active`` for the owner token or an active issued one; else why not (rfcs/0006 §2.2)."""
    if not isinstance(token, str) or not token:
        return "no_token"
    owner = read_owner_token(socket_path)
    if owner is not None and OwnerToken(owner).matches(token):
        return "active"
    from venom_gen.token_store import check_token, is_issued_token, store_path

    if not is_issued_token(token):
        return "unknown_token"
    state = check_token(token, store_path(tool, environ))
    return "unknown_token" if state == "unknown" else state


_WHY = {
    "no_token": "the hello carries no auth.token; a bridge requires one",
    "unknown_token": "the presented token is not valid here",
    "revoked": "the presented token was revoked",
    "expired": "the presented token has expired",
}


def _check_hello(
    binary: bool, message: bytes, socket_path: str, tool: str, environ: Mapping[str, str]
) -> None:
    try:
        value = std_loads(message)
    except (ValueError, UnicodeDecodeError):
        raise _Refusal(_denied("no_hello", "the first message is not valid JSON")) from None
    request_id = None
    if binary:
        params = value
    else:
        if not isinstance(value, dict):
            raise _Refusal(_denied("no_hello", "the first message must be a hello request"))
        request_id = value.get("id")
        if isinstance(request_id, (dict, list, float, bool)):
            request_id = None
        if value.get("verb") != "hello":
            error = _denied("no_hello", "the first message must be a hello request")
            raise _Refusal(error, request_id)
        params = value.get("params")
    auth = params.get("auth") if isinstance(params, dict) else None
    token = auth.get("token") if isinstance(auth, dict) else None
    state = _token_state(token, socket_path, tool, environ)
    if state != "active":
        raise _Refusal(_denied(state, _WHY[state]), request_id)


def _connect(path: str) -> _socket.socket:
    """The daemon's socket, checked like every client's (RFC-0002 §2.3, §2.4)."""
    from venom_proto.paths import check_path_length, verify_runtime_dir

    check_path_length(path)
    parent = os.path.dirname(os.path.abspath(path))
    if os.path.lexists(parent):
        verify_runtime_dir(parent)
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError as exc:
        sock.close()
        raise VenomError(
            "unavailable.not_running",
            f"no daemon at {path} ({exc.strerror or exc})",
            {"socket": path},
        ) from None
    return sock


def _pump(sock: _socket.socket, to_sock: bytearray) -> None:
    """Copy stdin -> socket and socket -> stdout until the daemon or the client is gone.

    Both directions are buffered (at most `_WINDOW` each, then that source is not read until
    the buffer drains), so a peer that stops reading slows its own direction only and the
    two directions can never deadlock each other. EOF on stdin is passed on as a half-close
    (the daemon answers the calls in flight, then closes: rfcs/0006 §2.3); a client that is
    gone altogether (stdout hung up) ends the bridge at once.
    """
    to_out = bytearray()
    sock_fd = sock.fileno()
    in_open = True
    gone = select.POLLERR | select.POLLHUP
    while True:
        poller = select.poll()
        if in_open and len(to_sock) < _WINDOW:
            poller.register(0, select.POLLIN)
        sock_mask = select.POLLIN if len(to_out) < _WINDOW else 0
        if to_sock:
            sock_mask |= select.POLLOUT
        poller.register(sock_fd, sock_mask)
        # Registered even with nothing to write: POLLERR/POLLHUP say the client went away.
        poller.register(1, select.POLLOUT if to_out else 0)
        for fd, happened in poller.poll():
            if fd == 0:
                chunk = os.read(0, _CHUNK)
                if chunk:
                    to_sock += chunk
                    continue
                in_open = False
                _send_all(sock, to_sock)
                sock.shutdown(_socket.SHUT_WR)
            elif fd == 1:
                if happened & select.POLLOUT and to_out:
                    with contextlib.suppress(BlockingIOError):
                        del to_out[: os.write(1, to_out)]
                elif happened & gone:
                    return  # the client is gone: so is its connection
            else:
                if happened & select.POLLOUT and to_sock:
                    with contextlib.suppress(BlockingIOError):
                        del to_sock[: sock.send(to_sock)]
                if happened & (select.POLLIN | gone):
                    try:
                        chunk = sock.recv(_CHUNK)
                    except BlockingIOError:
                        continue
                    if not chunk:
                        write_all(1, to_out)  # the daemon's last words reach the client
                        return
                    to_out += chunk


def _send_all(sock: _socket.socket, data: bytearray) -> None:
    while data:
        try:
            del data[: sock.send(data)]
        except BlockingIOError:
            select.select([], [sock], [])


def _nonblocking(fd: int) -> int:
    import fcntl

    flags = fcntl.fcntl(fd, fcntl.F_GETFL)
    fcntl.fcntl(fd, fcntl.F_SETFL, flags | os.O_NONBLOCK)
    return flags


def run_bridge(product: Product, argv: list[str], environ: Mapping[str, str] = os.environ) -> int:
    """``<tool> bridge [--socket PATH]``; returns the exit status (0, 4 refused, 6 no daemon).

    Nothing is written on stderr but a refusal's one line, which ssh relays to the client's
    terminal; the token is never written anywhere.
    """
    import sys

    tool = product.tool
    path = resolve_socket_path(tool, flag_value(argv, "--socket"), environ)
    buf = bytearray()
    try:
        try:
            binary, message = _first_message(buf, monotonic() + HELLO_TIMEOUT)
            _check_hello(binary, message, path, tool, environ)
        except EOFError:
            return 0  # the client left before saying anything
        try:
            sock = _connect(path)
        except VenomError as exc:
            raise _Refusal(exc) from None
    except _Refusal as refusal:
        binary = bool(buf) and buf[0] == _BINARY
        with contextlib.suppress(OSError):
            write_all(1, _encode(binary, refusal.request_id, refusal.error))
        sys.stderr.write(f"{tool} bridge: {refusal.error.message} ({refusal.error.code})\n")
        return refusal.error.exit_code
    saved = {fd: _nonblocking(fd) for fd in (0, 1)}
    sock.setblocking(False)
    try:
        _pump(sock, buf)
    except OSError:
        pass  # a broken pipe or reset on either side: that side closed
    finally:
        sock.close()
        import fcntl

        for fd, flags in saved.items():
            with contextlib.suppress(OSError):
                fcntl.fcntl(fd, fcntl.F_SETFL, flags)
    return 0
