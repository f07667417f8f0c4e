"""``<tool> mcp``: argument parsing, logging to stderr, and start-up of the adapter."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from venom_mcp._grants import GRANTS, parse_grant
from venom_proto import VenomError
from venom_proto.conventions import env_var, resolve_socket_path
from venom_proto.model_cache import load_model
from venom_proto.paths import default_runtime_dir, xdg_runtime_dir

if TYPE_CHECKING:
    from venom_gen.product import Product
    from venom_schema.model import Model

__all__ = ("main", "mcp_verb", "no_daemon_hint", "parse_args", "run_mcp")

log = logging.getLogger("venom_mcp")

USAGE = "usage: {tool} mcp [--socket PATH] [--max-grant {grants}]"


class UsageError(Exception):
    """Raised by ``parse_args`` for a bad command line (exit 2)."""


def parse_args(argv: Sequence[str]) -> dict[str, str | None]:
    """``--socket PATH`` and ``--max-grant GRANT`` (also as ``--flag=value``), nothing else."""
    opts: dict[str, str | None] = {"socket": None, "max_grant": None, "help": None}
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg in ("-h", "--help"):
            opts["help"] = "1"
            continue
        name, eq, value = arg.partition("=")
        key = {"--socket": "socket", "--max-grant": "max_grant"}.get(name)
        if key is None:
            raise UsageError(f"unexpected argument {arg!r}")
        if opts[key] is not None:
            raise UsageError(f"{name} given twice")
        if not eq:
            if not args:
                raise UsageError(f"{name} needs a value")
            value = args.pop(0)
        if key == "max_grant":
            try:
                value = parse_grant(value)
            except ValueError as exc:
                raise UsageError(str(exc)) from None
        opts[key] = value
    return opts


def _configure_logging() -> None:
    # stdout carries MCP messages only: every diagnostic goes to stderr.
    logging.basicConfig(
        stream=sys.stderr,
        level=os.environ.get("VENOM_MCP_LOG_LEVEL", "WARNING").upper(),
        format="%(name)s: %(levelname)s: %(message)s",
    )


def run_mcp(
    model: Model,
    *,
    socket_path: str,
    tool_version: str,
    max_grant: str | None = None,
    token: str | None = None,
    not_running_hint: str | None = None,
    item_totals: Mapping[str, str] | None = None,
) -> int:
    """Serve ``model``'s daemon verbs as MCP tools on stdio until stdin closes; returns 0.

    Calls go to the daemon at ``socket_path``, authenticated with ``token`` or else the token
    file beside the socket. ``max_grant`` limits the exposed verbs (``None``: all grants).
    ``not_running_hint`` is appended to every ``unavailable.not_running`` message (see
    `no_daemon_hint`). ``item_totals`` maps a streaming verb's wire name to the integer param
    that fixes how many items it yields (``{"echo.repeat": "count"}``): its progress
    notifications then carry that ``total``.
    Returns 2 without serving when no catalog can be built from ``model``.
    """
    _configure_logging()
    from venom_mcp._dispatch import DaemonUpstream
    from venom_mcp.adapter import Tools, build_server, run_server

    try:
        tool = str(model["tool"])
        tools = Tools(model, max_grant=max_grant, item_totals=item_totals)
    except (KeyError, TypeError, ValueError) as exc:  # ValueError: venom-gen's GenerationError
        log.error("cannot build the MCP catalog from the model: %s", exc)
        return 2
    upstream = DaemonUpstream(
        socket_path,
        client_name=f"{tool}-mcp",
        client_version=tool_version,
        token=token,
        not_running_hint=not_running_hint,
        tool=tool,
    )
    server = build_server(tools, upstream, name=tool, version=tool_version, **_heartbeat())
    return run_server(server)


def _heartbeat() -> dict[str, float]:
    """``VENOM_MCP_PROGRESS_INTERVAL`` (seconds, 0.01-60), for tests: the progress heartbeat."""
    text = os.environ.get("VENOM_MCP_PROGRESS_INTERVAL")
    if not text:
        return {}
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0.01 <= seconds <= 60:
        log.warning("ignoring VENOM_MCP_PROGRESS_INTERVAL=%r: not 0.01-60 seconds", text)
        return {}
    return {"heartbeat": seconds}


def _tool_version(tool: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(tool)
    except PackageNotFoundError:
        return "0.0.0"


def main(
    argv: Sequence[str],
    model_path: str | os.PathLike[str],
    *,
    version: str | None = None,
    item_totals: Mapping[str, str] | None = None,
) -> int:
    """``<tool> mcp [--socket PATH] [--max-grant GRANT]`` for the cached model at ``model_path``.

    ``version`` is the tool's, for the MCP server info and the daemon's logs (default: the
    installed distribution named like the tool); ``item_totals`` as for `run_mcp`. Returns the
    exit status: 0 after stdin EOF, 2 for a bad command line or unreadable model.
    """
    try:
        model: Model = load_model(model_path)
    except VenomError as exc:
        print(f"error: cannot read the model: {exc.message}", file=sys.stderr)
        return 2
    tool = model["tool"]
    try:
        opts = parse_args(argv)
    except UsageError as exc:
        print(f"{tool} mcp: {exc}", file=sys.stderr)
        print(USAGE.format(tool=tool, grants="|".join(GRANTS)), file=sys.stderr)
        return 2
    if opts["help"]:
        print(USAGE.format(tool=tool, grants="|".join(GRANTS)))
        return 0
    socket_path = resolve_socket_path(tool, opts["socket"])
    hint = no_daemon_hint(tool, pinned=opts["socket"] is not None, environ=os.environ)
    if hint is not None and xdg_is_the_likely_cause(socket_path):
        _configure_logging()
        log.warning("%s", hint)
    return run_mcp(
        model,
        socket_path=socket_path,
        tool_version=_tool_version(tool) if version is None else version,
        max_grant=opts["max_grant"],
        not_running_hint=hint,
        item_totals=item_totals,
    )


def no_daemon_hint(tool: str, *, pinned: bool, environ: Mapping[str, str]) -> str | None:
    """Why a daemon may not be found, when this adapter runs with a host's minimal environment.

    None unless ``XDG_RUNTIME_DIR`` is unset (or empty) and nothing pins the socket: then the
    adapter looks under ``${TMPDIR:-/tmp}/venom-<uid>/`` while a daemon started from a login
    shell listens under ``$XDG_RUNTIME_DIR/venom/`` (rfcs/0001 §13).
    """
    variable = env_var(tool, "SOCKET")
    if pinned or xdg_runtime_dir(environ) is not None or environ.get(variable):
        return None
    return (
        "XDG_RUNTIME_DIR is not set in this MCP server's environment (MCP hosts start servers"
        f" with a minimal one), so it looks for the daemon under {default_runtime_dir(environ)}"
        " while a daemon started from your shell likely listens under $XDG_RUNTIME_DIR/venom;"
        f" run `{tool} mcp config` (or `--write` your host's file) in that shell for an entry"
        f" that pins the socket, or set {variable} in the server's env"
    )


def xdg_is_the_likely_cause(socket_path: str, login_dir: str | None = None) -> bool:
    """Whether to warn at start-up, once `no_daemon_hint` found ``XDG_RUNTIME_DIR`` unset and
    nothing pinning the socket: no daemon listens where this adapter looks (``socket_path``),
    and the machine has a login session's runtime directory (``login_dir``, default
    ``/run/user/<uid>``), which is what the variable names in the shell a daemon was started
    from. On a machine without one (a container, macOS) every process agrees on the fallback,
    and a daemon found where the adapter looks settles it; either way a warning is noise.
    A call that finds no daemon still carries the hint in its error.
    """
    login = f"/run/user/{os.getuid()}" if login_dir is None else login_dir
    return os.path.isdir(login) and not os.path.exists(socket_path)


def mcp_verb(product: Product, argv: list[str]) -> int:
    """A product's ``mcp`` local verb: ``Product(local={"mcp": "venom_mcp:mcp_verb"})``."""
    return main(argv, product.model_path, version=product.version)
