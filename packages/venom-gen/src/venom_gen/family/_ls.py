"""``venom ls``: every daemon socket of this user in the runtime directory, with hello's answer.

The runtime directory is the one every product's CLI defaults to (RFC-0002 §2.3), checked as a
client must check it (§2.4) before anything in it is used. Each ``*.sock`` entry (and any other
socket there) is one row, and nothing is ever removed or changed:

- ``foreign``: the socket file, or the process listening on it (its peer credentials), belongs
  to another user: it is not spoken to;
- ``stale``: nobody listens (a daemon that died without removing its socket);
- ``live``: hello answered: ``tool``, ``version`` and ``schema`` are hello's, ``pid`` the
  listener's from the peer credentials (`venom_proto.peercred`; None where the platform
  has none, as on the BSDs and macOS);
- ``unresponsive``: connected, but hello was not answered in time; ``error``: hello failed
  (``error`` says why: ``code: message``); ``not_a_socket``: a ``.sock`` that is a file,
  a directory or a symlink.

All sockets are probed at once, under one deadline, so one wedged daemon costs the listing
its timeout once, not once per socket. Hello carries no ``auth``: listing needs no grant.
"""

from __future__ import annotations

import errno
import os
import selectors
import socket
import stat
import time
from collections.abc import Mapping
from typing import Any

from venom_gen._version import VERSION
from venom_gen.cli._output import Output
from venom_proto import VenomError
from venom_proto.conventions import is_tool_name
from venom_proto.paths import default_runtime_dir, verify_runtime_dir
from venom_proto.peercred import peer_credentials
from venom_proto.sansio import ClientCore, hello_params
from venom_proto.stdjson import std_dumps, std_loads
from venom_schema.model import Verb

from ._target import CLIENT_NAME

__all__ = ("LS_VERB", "STATUSES", "list_sockets", "run_ls")

#: Every ``status`` a row may have.
STATUSES = ("live", "stale", "foreign", "unresponsive", "error", "not_a_socket")
_STATUS = {"kind": "string", "choices": list(STATUSES)}
_UID = {"kind": "integer"}
_TEXT = {"kind": "string", "nullable": True}
_NUMBER = {"kind": "integer", "nullable": True}


def _field(name: str, summary: str, desc: dict[str, Any], *, required: bool = True) -> Any:
    return {"name": name, "summary": summary, "type": desc, "required": required}


#: ``venom ls`` described as a verb, so its result prints through the product CLI's output
#: layer like any verb's (human text shaped by the descriptor, or ``--json``).
LS_VERB: Verb = {
    "name": "ls",
    "summary": "Every daemon socket of this user",
    "params": [],
    "result": {
        "kind": "object",
        "fields": [
            _field("runtime_dir", "The directory listed", {"kind": "string"}),
            _field(
                "sockets",
                "One row per socket, by name",
                {
                    "kind": "array",
                    "items": {
                        "kind": "object",
                        "fields": [
                            _field("tool", "hello's server name, else the file's", _TEXT),
                            _field("status", "What the probe found", _STATUS),
                            _field("pid", "The listener's process id", _NUMBER),
                            _field("version", "hello's server version", _TEXT),
                            _field("schema", "hello's schema digest", _TEXT),
                            _field("socket", "The socket's path", {"kind": "string"}),
                            _field("uid", "Another user's uid", _UID, required=False),
                            _field("error", "Why hello failed", {"kind": "string"}, required=False),
                        ],
                    },
                },
            ),
        ],
    },
    "errors": [],
    "grant": "none",
    "streams": False,
    "exit": {"kind": "standard"},
    "examples": [],
}  # fmt: skip


def _row(path: str) -> dict[str, Any]:
    name = os.path.basename(path)
    stem = name[: -len(".sock")] if name.endswith(".sock") else name
    return {
        "tool": stem if is_tool_name(stem) else None,
        "status": "not_a_socket",
        "pid": None,
        "version": None,
        "schema": None,
        "socket": path,
    }


def _peer(sock: socket.socket) -> tuple[int | None, int | None]:
    """(pid, uid) of the listener; None for what the platform does not tell."""
    found = peer_credentials(sock)
    return (None, None) if found is None else (found.pid, found.uid)


class _Probe:
    """One socket's hello in flight."""

    def __init__(self, row: dict[str, Any], sock: socket.socket) -> None:
        self.row = row
        self.sock = sock
        self.core = ClientCore(loads=std_loads, dumps=std_dumps)
        hello = hello_params(client_name=CLIENT_NAME, client_version=VERSION, caps=())
        self.pending = self.core.start(hello)

    def readable(self) -> bool:
        """Feed what arrived; True once the probe is settled."""
        try:
            data = self.sock.recv(65536)
        except BlockingIOError:
            return False
        except OSError as exc:
            return self._fail(VenomError("unavailable.disconnected", str(exc)))
        if not data:
            return self._fail(VenomError("unavailable.disconnected", "closed before hello"))
        try:
            self.core.receive_data(data)
            if not self.core.hello_done:
                return False
            result = self.core.hello()
        except VenomError as exc:
            return self._fail(exc)
        server = result.get("server")
        server = server if isinstance(server, dict) else {}
        name, version, schema = server.get("name"), server.get("version"), result.get("schema")
        self.row.update(
            status="live",
            tool=name if isinstance(name, str) else self.row["tool"],
            version=version if isinstance(version, str) else None,
            schema=schema if isinstance(schema, str) else None,
        )
        return True

    def _fail(self, exc: VenomError) -> bool:
        self.row["status"] = "error"
        self.row["error"] = f"{exc.code}: {exc.message}"
        return True


def _open(row: dict[str, Any], uid: int) -> _Probe | None:
    """Connect to the row's socket and send hello, or settle the row at once."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.setblocking(False)
    try:
        sock.connect(row["socket"])
    except (ConnectionRefusedError, FileNotFoundError):
        row["status"] = "stale"
        sock.close()
        return None
    except BlockingIOError:  # the listen backlog is full: a daemon is there, and busy
        row["status"] = "unresponsive"
        sock.close()
        return None
    except OSError as exc:
        row["status"] = "error"
        code = errno.errorcode.get(exc.errno or 0, "unknown")
        row["error"] = f"unavailable: {exc.strerror or exc} ({code})"
        sock.close()
        return None
    pid, peer_uid = _peer(sock)
    row["pid"] = pid
    if peer_uid is not None and peer_uid != uid:
        row["status"] = "foreign"
        row["uid"] = peer_uid
        sock.close()  # not one byte to another user's process
        return None
    probe = _Probe(row, sock)
    try:
        sock.send(probe.pending)  # a hello is ~100 bytes: a fresh socket's buffer takes it
    except OSError as exc:
        probe._fail(VenomError("unavailable.disconnected", str(exc)))
        sock.close()
        return None
    return probe


def list_sockets(directory: str, *, uid: int, timeout: float) -> list[dict[str, Any]]:
    """Probe every socket in ``directory`` (already checked); one row each, sorted by path.

    ``uid`` is whose sockets count as ours (the caller's); ``timeout`` bounds every hello.
    """
    try:
        names = sorted(os.listdir(directory))
    except FileNotFoundError:
        return []
    rows: list[dict[str, Any]] = []
    probes: list[_Probe] = []
    for name in names:
        path = os.path.join(directory, name)
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            continue
        if not (stat.S_ISSOCK(st.st_mode) or name.endswith(".sock")):
            continue
        row = _row(path)
        rows.append(row)
        if not stat.S_ISSOCK(st.st_mode):
            continue
        if st.st_uid != uid:
            row["status"] = "foreign"
            row["uid"] = st.st_uid
            continue
        probe = _open(row, uid)
        if probe is not None:
            probes.append(probe)
    _settle(probes, timeout)
    return rows


def _settle(probes: list[_Probe], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        for probe in probes:
            selector.register(probe.sock, selectors.EVENT_READ, probe)
        try:
            while selector.get_map():
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                for key, _ in selector.select(left):
                    probe = key.data
                    if probe.readable():
                        selector.unregister(probe.sock)
                        probe.sock.close()
        finally:
            for key in list(selector.get_map().values()):
                key.data.row["status"] = "unresponsive"
                selector.unregister(key.fileobj)
                key.data.sock.close()


def run_ls(*, out: Output, environ: Mapping[str, str], timeout: float) -> int:
    """Run ``venom ls``; returns the exit status, raises ``VenomError`` on failure."""
    directory = default_runtime_dir(environ)
    if os.path.lexists(directory):
        verify_runtime_dir(directory)  # denied.insecure_path (4): never list an open directory
    rows = list_sockets(directory, uid=os.getuid(), timeout=timeout)
    out.result(LS_VERB, {"runtime_dir": directory, "sockets": rows})
    return 0
