"""``<tool> mcp.config``: the MCP host configuration entry that starts ``<tool> mcp``.

Hosts (Claude Desktop, Claude Code, Cursor, VS Code) start a stdio server with a minimal
environment (the SDKs pass HOME, LOGNAME, PATH, SHELL, TERM and USER), so an entry that only
names the command would look for the daemon under ``${TMPDIR:-/tmp}/venom-<uid>/`` while the
daemon listens under ``$XDG_RUNTIME_DIR/venom/``. The entry therefore carries the absolute
command and pins the socket this shell resolves in ``<TOOL>_SOCKET`` (rfcs/0001 §13).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from venom_gen.local._args import parsed, print_json, refuse
from venom_proto import VenomError
from venom_proto.conventions import env_var, resolve_socket_path

if TYPE_CHECKING:
    from venom_gen.product import Product

__all__ = ("KEYS", "host_entry", "merge_entry", "run_mcp_config", "self_command")

#: The top-level key each format keeps its servers under.
KEYS: Mapping[str, str] = {"mcpServers": "mcpServers", "vscode": "servers"}
#: A configuration file larger than this is refused rather than read (they are a few KiB).
_MAX_FILE = 4 * 1024 * 1024


def self_command(tool: str, argv0: str | None = None) -> list[str]:
    """The absolute command that runs this very binary (``argv0``, default ``sys.argv[0]``):
    its script, or the interpreter with ``-m`` and the main module."""
    argv0 = sys.argv[0] if argv0 is None else argv0
    if os.path.basename(argv0) == tool and os.access(argv0, os.X_OK):
        return [os.path.abspath(argv0)]
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    module = getattr(spec, "name", "") or tool.replace("-", "_")
    return [os.path.abspath(sys.executable), "-m", module.removesuffix(".__main__")]


def host_entry(
    tool: str,
    socket_path: str,
    *,
    form: str = "mcpServers",
    max_grant: str | None = None,
    argv0: str | None = None,
) -> dict[str, Any]:
    """One server entry: ``command``, ``args`` (``mcp`` and ``--max-grant``), and ``env``
    pinning ``<TOOL>_SOCKET``; VS Code's form adds ``"type": "stdio"``."""
    command, *prefix = self_command(tool, argv0)
    args = [*prefix, "mcp"]
    if max_grant is not None:
        args += ["--max-grant", max_grant]
    entry: dict[str, Any] = {}
    if form == "vscode":
        entry["type"] = "stdio"
    entry |= {"command": command, "args": args, "env": {env_var(tool, "SOCKET"): socket_path}}
    return entry


def _refused(path: str, reason: str) -> VenomError:
    return VenomError(
        "invalid_params.config_file",
        f"{path}: {reason}; nothing was written",
        {"path": path, "reason": reason},
    )


def merge_entry(path: str, key: str, name: str, entry: Mapping[str, Any]) -> None:
    """Put ``entry`` at ``[key][name]`` of the JSON file ``path``, created if missing.

    Every other member and server is kept; the file is replaced atomically (a reader sees the
    old or the new file) with its mode kept. A symlink is followed (dotfile managers link
    these files). Raises ``invalid_params.config_file`` for a file that is not a JSON object
    with an object at ``key``, ``failed.write`` when it cannot be written.
    """
    from venom_proto.files import FileRefused, read_regular, write_atomic

    target = Path(os.path.realpath(path))
    try:
        raw = read_regular(target, _MAX_FILE)
    except FileRefused as exc:
        raise _refused(path, str(exc)) from None
    except OSError as exc:
        raise _refused(path, exc.strerror or str(exc)) from None
    document: Any = {}
    if raw is not None and raw.strip():
        try:
            document = json.loads(raw)
        except (ValueError, RecursionError) as exc:
            raise _refused(path, f"it is not JSON ({exc})") from None
    if not isinstance(document, dict):
        raise _refused(path, "it is not a JSON object")
    servers = document.setdefault(key, {})
    if not isinstance(servers, dict):
        raise _refused(path, f"its {key!r} member is not an object")
    servers[name] = dict(entry)
    data = (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    try:
        mode = os.stat(target).st_mode & 0o7777 if raw is not None else _default_mode()
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(target, data, mode, prefix=f".{target.name}.")
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise VenomError(
            "failed.write", f"cannot write {path}: {reason}", {"path": path, "reason": reason}
        ) from None


def _default_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def run_mcp_config(
    product: Product, rest: list[str], environ: Mapping[str, str] = os.environ
) -> int:
    """``<tool> mcp.config [--format F] [--max-grant G] [--name N] [--write FILE]``."""
    tool = product.tool
    _model, invocation = parsed(product, "mcp.config", rest)
    params = invocation.params
    form = str(params.get("format", "mcpServers"))
    try:
        socket_path = os.path.abspath(resolve_socket_path(tool, invocation.socket, environ))
        entry = host_entry(tool, socket_path, form=form, max_grant=params.get("max_grant"))
        name = str(params.get("name") or tool)
        document = {KEYS[form]: {name: entry}}
        config = json.dumps(document, separators=(",", ":"), ensure_ascii=False)
        result: dict[str, Any] = {"config": config}
        if params.get("write") is not None:
            written = os.path.abspath(os.path.expanduser(str(params["write"])))
            merge_entry(written, KEYS[form], name, entry)
            result["path"] = written
    except VenomError as err:
        return refuse(tool, err, json_mode=invocation.json)
    if invocation.json:
        print_json(result)
    else:
        sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
        if "path" in result:
            sys.stderr.write(f"{tool}: wrote server {name!r} into {result['path']}\n")
    return 0
