"""``<tool> doctor`` on the CLI side: the checks run here, so a daemon that is down is reported."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from venom_gen._doctor_checks import Check, doctor_report, filesystem_checks, reachability_checks
from venom_gen.cli import flag_value
from venom_gen.cli.terminal import escape
from venom_proto import SyncClient, VenomError
from venom_proto.conventions import client_auth, resolve_socket_path
from venom_proto.model_cache import load_cache_info

if TYPE_CHECKING:
    from venom_gen.product import Product

__all__ = ("compat_check", "render_report", "run_doctor")


def run_doctor(product: Product, rest: list[str], environ: Mapping[str, str] = os.environ) -> int:
    """Check the runtime dir, socket, lock, daemon and schema digest; print the report."""
    tool = product.tool
    checks: list[Check] = []
    try:
        path = resolve_socket_path(tool, flag_value(rest, "--socket"), environ)
    except VenomError as err:
        checks.append({"name": "socket_path", "status": "fail", "message": err.message,
                       "hint": "pass --socket with a valid path"})  # fmt: skip
        path = None
    if path is not None and path.startswith("ssh://"):
        from venom_proto.ssh import parse_ssh_url

        try:  # the one ssh:// grammar (rfcs/0006 §3), before anything runs
            parse_ssh_url(path)
        except VenomError as err:
            return _usage(tool, err, "--json" in rest)
    digest = load_cache_info(product.model_path).get("digest")
    if path is not None:
        remote = path.startswith("ssh://")
        if remote:  # the files are on the other host; the bridge reports their problems
            via = f"{path}: through ssh and '{tool} bridge' (rfcs/0006)"
            checks.append({"name": "transport", "status": "ok", "message": via})
        else:
            checks += filesystem_checks(tool, path)
        auth = client_auth(tool, path, environ)

        def connect() -> SyncClient:
            return SyncClient(
                path,
                tool=tool,
                client_name=tool,
                client_version=product.version,
                auth=auth,
                timeout=5.0,
            )

        seen: dict[str, Any] = {}

        def hello() -> Mapping[str, Any]:
            with connect() as client:
                seen.update(client.hello_result)
                return client.hello_result

        checks += reachability_checks(tool, digest, hello)
        advertised = seen.get("schema")
        if isinstance(advertised, str) and digest is not None and advertised != digest:
            checks.append(compat_check(tool, product.model_path, connect))
    report = doctor_report(checks)
    if "--json" in rest:
        sys.stdout.write(json.dumps(report, separators=(",", ":"), ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(render_report(tool, report))
    return int(report["exit"])


def _names(verbs: list[str]) -> str:
    return ", ".join(verbs) if verbs else "none"


def compat_check(
    tool: str, model_path: str | os.PathLike[str], connect: Callable[[], SyncClient]
) -> Check:
    """The daemon's model (its ``manifest`` verb) against this CLI's, by RFC-0004 §7: which
    verbs each side lacks, and whether the daemon breaks this CLI's calls (rfcs/0004 D-S49).

    The CLI's model is the old side: a client built on it keeps working against the daemon
    exactly when the daemon's model is a compatible evolution of it."""
    from venom_proto.model_cache import load_model
    from venom_schema.compat import compare, read_model
    from venom_schema.manifest import ManifestError

    try:
        with connect() as client:
            answer = client.call("manifest")
        daemon_model = read_model(str(answer["model"]), "the daemon's manifest")
    except VenomError as err:
        return {"name": "compat", "status": "warn", "message": f"not compared: {err.message}"}
    except (ManifestError, KeyError, TypeError) as exc:
        message = f"not compared: the daemon's model does not validate: {exc}"
        return {"name": "compat", "status": "warn", "message": message.splitlines()[0]}
    report = compare(load_model(model_path), daemon_model)
    kinds = {(c.kind, c.verb) for c in report.changes}
    lacking = sorted(verb for kind, verb in kinds if kind == "verb.removed")
    extra = sorted(verb for kind, verb in kinds if kind == "verb.added")
    message = f"the daemon lacks {_names(lacking)}; this CLI lacks {_names(extra)}; "
    if report.compatible:
        message += f"compatible ({len(report.changes)} compatible change(s))"
        return {"name": "compat", "status": "ok", "message": message}
    first = report.breaking[0]
    message += f"breaking for this CLI: {len(report.breaking)} change(s), first {first.render()}"
    hint = f"restart the daemon so it serves this build ('{tool} serve'), or upgrade the CLI"
    return {"name": "compat", "status": "warn", "message": message, "hint": hint}


def _usage(tool: str, err: VenomError, as_json: bool) -> int:
    """A malformed ``--socket`` is a usage error (exit 2), as for every other command."""
    if as_json:
        line = json.dumps({"error": err.to_object()}, separators=(",", ":"), ensure_ascii=False)
        sys.stdout.write(line + "\n")
    else:
        sys.stderr.write(escape(f"{tool} doctor: {err.message}") + "\n")
    return err.exit_code


def render_report(tool: str, report: Mapping[str, Any]) -> str:
    """The human rendering (RFC-0004 §1 lets a tool supply one): a line per check, then the
    overall status; each line is ``status  name  message``, and ``; hint: ...`` when there is
    one."""
    checks = report["checks"]
    width = max((len(check["name"]) for check in checks), default=0)
    lines = []
    for check in checks:
        hint = f"; hint: {check['hint']}" if check.get("hint") else ""
        line = f"{check['status']:<4}  {check['name']:<{width}}  {check['message']}{hint}"
        lines.append(escape(line))  # a daemon's name, version and schema, ssh's stderr
    lines.append(f"{tool} doctor: {report['status']}")
    return "\n".join(lines) + "\n"
