"""Deliberately broken daemons for the mutation check (`nox -s mutation`).

Put this directory on PYTHONPATH and name one mutant in VENOM_MUTANT: the daemon and CLI then
start with one MUST broken, and the conformance suite is expected to fail.
"""

from __future__ import annotations

import os
from typing import Any


def _socket_env_ignored() -> None:
    # serve (and the CLI) ignore <TOOL>_SOCKET: RFC-0002 §2.3.
    from venom_proto import conventions

    original = conventions.resolve_socket_path

    def resolve(tool: str, flag: str | None, environ: Any) -> str:
        kept = {k: v for k, v in environ.items() if not k.endswith("_SOCKET")}
        return original(tool, flag, kept)

    conventions.resolve_socket_path = resolve  # type: ignore[assignment]


def _digest_not_rfc() -> None:
    # hello.schema is not RFC-0004 §7's digest (CLI and daemon agree, both wrong).
    from venom_proto import conventions

    original = conventions.load_cache_info

    def info(path: Any) -> dict[str, Any]:
        found = dict(original(path))
        found["digest"] = "sha256:" + "0" * 64
        return found

    conventions.load_cache_info = info


def _cli_skips_runtime_dir_check() -> None:
    # The CLI connects without RFC-0002 §2.4's own check of the runtime dir.
    # A mutant patches an internal on purpose: the seam the client's check goes through.
    import importlib

    paths = importlib.import_module("venom_proto._client_paths")
    setattr(paths, "verify_runtime_dir", lambda path: None)  # noqa: B010


MUTANTS = {
    "socket_env_ignored": _socket_env_ignored,
    "digest_not_rfc": _digest_not_rfc,
    "cli_skips_runtime_dir_check": _cli_skips_runtime_dir_check,
}

_chosen = os.environ.get("VENOM_MUTANT")
if _chosen:
    MUTANTS[_chosen]()
