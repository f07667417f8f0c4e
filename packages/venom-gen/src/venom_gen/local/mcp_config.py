"""``<tool> mcp.config``: the MCP host configuration entry that starts ``<tool> mcp``.

Hosts start a stdio server with a minimal environment (the SDKs pass HOME, LOGNAME, PATH,
SHELL, TERM and USER), so an entry that only names the command would look for the daemon under
``${TMPDIR:-/tmp}/venom-<uid>/`` while the daemon listens under ``$XDG_RUNTIME_DIR/venom/``.
The entry therefore carries the absolute command and pins the socket this shell resolves in
``<TOOL>_SOCKET`` (rfcs/0001 §13); an ``ssh://`` socket is pinned as the URL it is.

Each host keeps its servers in its own shape and language (`HOSTS`): JSON under
``mcpServers`` (Claude Desktop, Claude Code's ``.mcp.json``, Cursor, Gemini CLI), VS Code's
``servers``, Zed's ``context_servers``, Codex's TOML ``[mcp_servers.<name>]``, Goose's YAML
``extensions``, and the ``claude mcp add`` command line. ``--write`` edits the host's file
through the escaping module of its language (`venom_gen.render.host_json`, ``host_toml``,
``host_yaml``): everything else in the file is kept as written, and a file that cannot be
parsed or edited exactly is refused untouched.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from venom_gen.local._args import parsed, print_json, refuse
from venom_proto import VenomError
from venom_proto.conventions import env_var, resolve_socket_path

if TYPE_CHECKING:
    from venom_gen.product import Product

__all__ = (
    "HOSTS",
    "KEYS",
    "HostFormat",
    "host_entry",
    "merge_entry",
    "pinned_socket",
    "render_config",
    "run_mcp_config",
    "self_command",
)

#: A configuration file larger than this is refused rather than read (they are a few KiB).
_MAX_FILE = 4 * 1024 * 1024


@dataclass(frozen=True)
class HostFormat:
    """One host's configuration shape: the language of its file (``json``, ``toml``,
    ``yaml``, or ``command`` for a line to run) and the keys its servers live under."""

    name: str
    language: str
    key: str
    hosts: str


#: Every ``--format``, by name.
HOSTS: Mapping[str, HostFormat] = {
    f.name: f
    for f in (
        HostFormat("mcpServers", "json", "mcpServers", "Claude Desktop, Claude Code, Cursor"),
        HostFormat("vscode", "json", "servers", "VS Code (.vscode/mcp.json)"),
        HostFormat("gemini", "json", "mcpServers", "Gemini CLI (~/.gemini/settings.json)"),
        HostFormat("zed", "json", "context_servers", "Zed (settings.json)"),
        HostFormat("codex", "toml", "mcp_servers", "Codex (~/.codex/config.toml)"),
        HostFormat("goose", "yaml", "extensions", "Goose (~/.config/goose/config.yaml)"),
        HostFormat("claude-add", "command", "", "the `claude mcp add` command line"),
    )
}
#: The top-level key each file format keeps its servers under (kept for compatibility).
KEYS: Mapping[str, str] = {name: f.key for name, f in HOSTS.items() if f.language != "command"}


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


def pinned_socket(tool: str, flag: str | None, environ: Mapping[str, str]) -> str:
    """The socket the entry pins: an ``ssh://`` URL as given (checked by the one URL
    grammar, ``invalid_params.usage`` otherwise), a local path made absolute."""
    from venom_proto.ssh import is_ssh_url, parse_ssh_url

    socket = resolve_socket_path(tool, flag, environ)
    if is_ssh_url(socket):
        parse_ssh_url(socket)
        return socket
    return os.path.abspath(socket)


def host_entry(
    tool: str,
    socket_path: str,
    *,
    form: str = "mcpServers",
    max_grant: str | None = None,
    argv0: str | None = None,
) -> dict[str, Any]:
    """One server entry in the shape of host format ``form``: the absolute command, its
    arguments (``mcp`` and ``--max-grant``) and the environment pinning ``<TOOL>_SOCKET``."""
    command, *prefix = self_command(tool, argv0)
    args = [*prefix, "mcp"]
    if max_grant is not None:
        args += ["--max-grant", max_grant]
    env = {env_var(tool, "SOCKET"): socket_path}
    if form == "goose":
        return {
            "name": tool,
            "description": f"{tool} through its MCP adapter",
            "type": "stdio",
            "cmd": command,
            "args": args,
            "envs": env,
            "enabled": True,
            "timeout": 300,
        }
    entry: dict[str, Any] = {"type": "stdio"} if form == "vscode" else {}
    return entry | {"command": command, "args": args, "env": env}


def _claude_add(name: str, entry: Mapping[str, Any]) -> str:
    words = ["claude", "mcp", "add", "--transport", "stdio"]
    for key, value in entry["env"].items():
        words += ["--env", f"{key}={value}"]
    words += [name, "--", entry["command"], *entry["args"]]
    return " ".join(shlex.quote(word) for word in words)


def render_config(form: str, name: str, entry: Mapping[str, Any], *, compact: bool) -> str:
    """The configuration a user pastes into host ``form``'s file (or runs, for
    ``claude-add``); JSON forms are compact when ``compact``."""
    from venom_gen.render import host_json, host_toml, host_yaml

    host = HOSTS[form]
    try:
        if host.language == "command":
            return _claude_add(name, entry)
        if host.language == "toml":
            return host_toml.dumps_entry([host.key, name], entry)
        if host.language == "yaml":
            return host_yaml.set_mapping(None, [host.key, name], entry)
        host_json.dumps_entry(entry)  # refuses what a host would not read back as itself
        document = {host.key: {name: entry}}
        if compact:
            return json.dumps(document, separators=(",", ":"), ensure_ascii=False)
        return json.dumps(document, indent=2, ensure_ascii=False)
    except host_json.HostFileError as exc:
        raise VenomError(
            "invalid_params.config_file", f"cannot write the entry: {exc}", {"reason": str(exc)}
        ) from None


def _refused(path: str, reason: str) -> VenomError:
    return VenomError(
        "invalid_params.config_file",
        f"{path}: {reason}; nothing was written",
        {"path": path, "reason": reason},
    )


def _edit(form: str, text: str | None, name: str, entry: Mapping[str, Any]) -> str:
    from venom_gen.render import host_json, host_toml, host_yaml

    host = HOSTS[form]
    editors: dict[str, Callable[[str | None, list[str], Any], str]] = {
        "json": host_json.set_member,
        "toml": host_toml.set_table,
        "yaml": host_yaml.set_mapping,
    }
    new = editors[host.language](text, [host.key, name], dict(entry))
    return new if new.endswith("\n") else new + "\n"


def merge_entry(
    path: str, key: str, name: str, entry: Mapping[str, Any], *, form: str | None = None
) -> None:
    """Put ``entry`` at ``[key][name]`` of the host file ``path`` (in the language of
    ``form``, default the JSON format keeping servers under ``key``), created if missing.

    Every other byte of the file is kept (comments, order, number literals); the file is
    replaced atomically (a reader sees the old or the new file) with its mode kept. A symlink
    is followed (dotfile managers link these files). Raises ``invalid_params.config_file`` for
    a file that cannot be parsed or edited exactly, ``failed.write`` when it cannot be written.
    """
    from venom_gen.render.host_json import HostFileError
    from venom_proto.files import FileRefused, read_regular, write_atomic

    if form is None:
        form = next(f.name for f in HOSTS.values() if f.key == key and f.language == "json")
    if HOSTS[form].key != key:
        raise ValueError(f"format {form!r} keeps its servers under {HOSTS[form].key!r}")
    target = Path(os.path.realpath(path))
    try:
        raw = read_regular(target, _MAX_FILE)
    except FileRefused as exc:
        raise _refused(path, str(exc)) from None
    except OSError as exc:
        raise _refused(path, exc.strerror or str(exc)) from None
    try:
        text = None if raw is None else raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _refused(path, "it is not UTF-8 text") from None
    try:
        data = _edit(form, text, name, entry).encode("utf-8")
    except HostFileError as exc:
        raise _refused(path, str(exc)) from None
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
    host = HOSTS[form]
    try:
        socket = pinned_socket(tool, invocation.socket, environ)
        entry = host_entry(tool, socket, form=form, max_grant=params.get("max_grant"))
        name = str(params.get("name") or tool)
        result: dict[str, Any] = {"config": render_config(form, name, entry, compact=True)}
        if params.get("write") is not None:
            if host.language == "command":
                raise VenomError(
                    "invalid_params.usage",
                    "--format claude-add prints a command to run; it has no file to --write",
                    {"param": "write"},
                )
            written = os.path.abspath(os.path.expanduser(str(params["write"])))
            merge_entry(written, host.key, name, entry, form=form)
            result["path"] = written
        shown = render_config(form, name, entry, compact=False)
    except VenomError as err:
        return refuse(tool, err, json_mode=invocation.json)
    if invocation.json:
        print_json(result)
    else:
        sys.stdout.write(shown if shown.endswith("\n") else shown + "\n")
        if "path" in result:
            sys.stderr.write(f"{tool}: wrote server {name!r} into {result['path']}\n")
    return 0
