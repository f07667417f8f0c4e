"""The checks of the shared ``doctor`` verb, each with a status and a hint (RFC-0002 §2, §6.2).

The same checks run in two places, so they live beside both rather than in either. The daemon
answers ``doctor`` from its side of the socket (`venom_gen.daemon.App.doctor`, which adds the
``config`` check); ``<tool> doctor`` runs them in the CLI (`venom_gen.local.doctor`) so it can
report a daemon that is down, and adds the one check only it can make: its compiled schema
digest against the daemon's ``hello.schema``.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Mapping
from typing import Any

from venom_proto import VenomError
from venom_proto.conventions import env_var
from venom_proto.daemon_lock import lock_holder, lock_path
from venom_proto.paths import check_path_length, verify_runtime_dir

__all__ = (
    "Check",
    "config_check",
    "doctor_report",
    "filesystem_checks",
    "reachability_checks",
)

Check = dict[str, str]
_RANK = {"ok": 0, "warn": 1, "fail": 2}


def _check(name: str, status: str, message: str, hint: str | None = None) -> Check:
    out = {"name": name, "status": status, "message": message}
    if hint is not None and status != "ok":
        out["hint"] = hint
    return out


def filesystem_checks(tool: str, socket_path: str) -> list[Check]:
    """Runtime directory permissions, path length, the socket file and its lock (RFC-0002 §2)."""
    override = f"use --socket or {env_var(tool, 'SOCKET')} with a shorter path"
    checks: list[Check] = []
    try:
        check_path_length(socket_path)
        checks.append(_check("socket_path", "ok", f"{socket_path} fits in sun_path"))
    except VenomError as err:
        checks.append(_check("socket_path", "fail", err.message, override))
    runtime = os.path.dirname(socket_path) or "."
    try:
        verify_runtime_dir(runtime)
        checks.append(_check("runtime_dir", "ok", f"{runtime} is private (0700, ours)"))
    except VenomError as err:
        problem = (err.data or {}).get("problem", "")
        if problem == "missing":
            hint = f"'{tool} serve' creates it"
            checks.append(_check("runtime_dir", "warn", f"{runtime} does not exist yet", hint))
        else:
            hint = (
                f"run: chmod 700 {runtime}"
                if problem == "mode"
                else f"remove {runtime} or pick another path ({override})"
            )
            checks.append(_check("runtime_dir", "fail", err.message, hint))
    checks.append(_socket_check(tool, socket_path))
    return checks


def _socket_check(tool: str, path: str) -> Check:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return _check("socket", "warn", f"no socket at {path}", f"start the daemon: {tool} serve")
    except OSError as exc:
        return _check("socket", "fail", f"cannot inspect {path}: {exc.strerror}")
    if not stat.S_ISSOCK(st.st_mode):
        return _check("socket", "fail", f"{path} exists and is not a socket", f"remove {path}")
    if st.st_uid != os.getuid():
        return _check(
            "socket", "fail", f"{path} belongs to uid {st.st_uid}", f"remove {path}"
        )  # a foreign socket: never talk to it
    if stat.S_IMODE(st.st_mode) & 0o177:
        return _check(
            "socket", "fail", f"{path} has mode {stat.S_IMODE(st.st_mode):04o}", f"chmod 600 {path}"
        )
    holder = lock_holder(path)
    if holder is None:
        return _check(
            "socket",
            "warn",
            f"{path} is stale: no daemon holds {lock_path(path)}",
            f"'{tool} serve' removes it; or delete it",
        )
    return _check("socket", "ok", f"{path} is held by daemon pid {holder or '?'}")


def reachability_checks(
    tool: str, digest: str | None, hello: Callable[[], Mapping[str, Any]]
) -> list[Check]:
    """Connect with hello; compare the daemon's schema digest with ``digest`` (RFC-0004 §7)."""
    try:
        result = hello()
    except VenomError as err:
        return [
            _check("daemon", "fail", err.message, f"start it with '{tool} serve'"),
            _check("schema", "warn", "not compared: the daemon is not reachable"),
        ]
    server = result.get("server") or {}
    checks = [_check("daemon", "ok", f"{server.get('name')} {server.get('version')} answers")]
    advertised = result.get("schema")
    if advertised is None or digest is None:
        checks.append(_check("schema", "ok", "the daemon advertises no schema digest"))
    elif advertised == digest:
        checks.append(_check("schema", "ok", f"daemon and CLI agree on {digest[:19]}"))
    else:
        # A warning, not a failure (rfcs/0001 §5): after an upgrade scripts must keep working.
        checks.append(
            _check(
                "schema",
                "warn",
                f"the daemon runs schema {advertised[:19]}, this CLI has {digest[:19]}",
                f"restart the daemon so it runs this binary: stop it, then '{tool} serve'",
            )
        )
    return checks


def config_check(problems: list[dict[str, str]], path: str) -> Check:
    """The daemon-side ``config`` check: does the configuration file on disk validate?"""
    if not problems:
        return _check("config", "ok", f"{path} validates")
    first = problems[0]
    where = f"{first['key']}: " if first["key"] else ""
    return _check(
        "config",
        "fail",
        f"{path}: {where}{first['message']}",
        "fix the file, then run config check and config reload",
    )


def doctor_report(checks: list[Check]) -> dict[str, Any]:
    """The ``doctor`` result: worst status, exit 1 when any check failed, and the checks."""
    worst = max((c["status"] for c in checks), key=_RANK.__getitem__, default="ok")
    return {"status": worst, "exit": 1 if worst == "fail" else 0, "checks": checks}
