"""``<tool> doctor`` on the CLI side: the checks run here, so a daemon that is down is reported."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from venom_gen.cli import flag_value
from venom_proto import SyncClient, VenomError
from venom_proto.conventions import env_var, load_cache_info, owner_auth, resolve_socket_path

from .doctor import Check, doctor_report, filesystem_checks, reachability_checks

if TYPE_CHECKING:
    from venom_gen.product import Product

__all__ = ("run_doctor",)


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
    digest = load_cache_info(product.model_path).get("digest")
    if path is not None:
        remote = path.startswith("ssh://")
        if remote:  # the files are on the other host; the bridge reports their problems
            via = f"{path}: through ssh and '{tool} bridge' (rfcs/0006)"
            checks.append({"name": "transport", "status": "ok", "message": via})
        else:
            checks += filesystem_checks(tool, path)
        token = environ.get(env_var(tool, "TOKEN"), "").strip()
        auth = {"token": token} if token else None if remote else owner_auth(path)

        def hello() -> Mapping[str, Any]:
            with SyncClient(
                path,
                tool=tool,
                client_name=tool,
                client_version=product.version,
                auth=auth,
                timeout=5.0,
            ) as client:
                return client.hello_result

        checks += reachability_checks(tool, digest, hello)
    report = doctor_report(checks)
    sys.stdout.write(json.dumps(report, separators=(",", ":"), ensure_ascii=False) + "\n")
    if "--json" not in rest:
        for check in checks:
            if check["status"] != "ok":
                hint = f" ({check['hint']})" if "hint" in check else ""
                sys.stderr.write(f"{tool} doctor: {check['name']}: {check['message']}{hint}\n")
    return int(report["exit"])
