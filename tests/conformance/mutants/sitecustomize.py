"""Deliberately broken daemons for the mutation check (`nox -s mutation`).

Put this directory on PYTHONPATH and name one mutant in VENOM_MUTANT: the daemon and CLI then
start with one MUST broken, and the conformance suite (`venom-conformance`, the shipped
`venom_mcp.conformance`) is expected to fail.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
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
    from venom_proto import model_cache

    original = model_cache.load_cache_info

    def info(path: Any) -> dict[str, Any]:
        found = dict(original(path))
        found["digest"] = "sha256:" + "0" * 64
        return found

    model_cache.load_cache_info = info


def _cli_skips_runtime_dir_check() -> None:
    # The CLI connects without RFC-0002 §2.4's own check of the runtime dir.
    # A mutant patches an internal on purpose: the seam the client's check goes through.
    import importlib

    paths = importlib.import_module("venom_proto._client_paths")
    setattr(paths, "verify_runtime_dir", lambda path: None)  # noqa: B010


def _server_connection() -> Any:
    import importlib

    return importlib.import_module("venom_proto._core.server_connection").ServerConnection


def _extra_after_final(extra: Callable[[Any, Any, Any], bytes]) -> None:
    # After a streaming call's final response, one more NDJSON line for its id.
    cls = _server_connection()
    send_ok, send_error = cls.send_ok, cls.send_error

    def after(self: Any, rid: Any, streams: bool | None, final: Any) -> None:
        if streams and self.protocol == "ndjson":
            self._writer.out += extra(self, rid, final)

    def ok(self: Any, id: Any, value: Any) -> None:
        streams = self._in_flight.get(id)
        send_ok(self, id, value)
        after(self, id, streams, {"id": id, "ok": value})

    def error(self: Any, id: Any, err: Any) -> None:
        streams = self._in_flight.get(id)
        send_error(self, id, err)
        after(self, id, streams, {"id": id, "error": err.to_object()})

    cls.send_ok, cls.send_error = ok, error


def _line(message: Any) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


def _stream_two_finals() -> None:
    # A stream gets a second final response (RFC-0002 §4.4: exactly one).
    _extra_after_final(lambda self, rid, final: _line(final))


def _stream_item_after_final() -> None:
    # A stream sends an item after its final response (RFC-0002 §4.4).
    _extra_after_final(lambda self, rid, final: _line({"id": rid, "item": {}}))


def _max_frame_not_applied_in() -> None:
    # A max_frame lowered by hello is not applied to incoming lines and frames (RFC-0002 §6.2).
    cls = _server_connection()
    settle = cls._settle

    def patched(self: Any, outcome: Any, trigger: Any) -> None:
        settle(self, outcome, trigger)
        buffer = self._lines if self._lines is not None else self._frames
        buffer.limit(1048576)

    cls._settle = patched


def _max_frame_not_applied_to_results() -> None:
    # A final result longer than the negotiated max_frame is sent anyway (RFC-0002 §6.2).
    cls = _server_connection()
    send_ok = cls.send_ok

    def patched(self: Any, id: Any, value: Any) -> None:
        writer = self._writer
        saved, writer.max_frame = writer.max_frame, 16777216
        try:
            send_ok(self, id, value)
        finally:
            writer.max_frame = saved

    cls.send_ok = patched


def _no_close_at_shutdown() -> None:
    # Shutdown ends in-flight calls but sends no CLOSE on stream 0 (RFC-0002 §2.5, §5.2).
    cls = _server_connection()
    from venom_proto import VenomError

    def shutdown(self: Any, message: str) -> None:
        if self.closed:
            return
        err = VenomError("cancelled", message)
        for rid in list(self._in_flight):
            self._writer.error(rid, err)
        self._close(None)

    cls.shutdown = shutdown


def _mcp_no_upstream_cancel() -> None:
    # The MCP adapter drops a stream over its limits without cancelling it upstream (§5).
    import importlib

    dispatch = importlib.import_module("venom_mcp._dispatch")

    async def no_cancel(client: Any, request_id: Any) -> None:
        return None

    setattr(dispatch, "_cancel_quietly", no_cancel)  # noqa: B010


def _mcp_no_default_insertion() -> None:
    # The MCP adapter validates arguments but sends them without the defaults (§5).
    import importlib
    import types

    deps = importlib.import_module("venom_mcp._deps")
    compile_verb = deps.compile_verb

    def patched(verb: Any) -> Any:
        checks = compile_verb(verb)

        def params(value: Any) -> Any:
            checks.params(value)
            return value

        return types.SimpleNamespace(params=params, result=checks.result, item=checks.item)

    setattr(deps, "compile_verb", patched)  # noqa: B010


def _cli_repeated_flag_last_wins() -> None:
    # The CLI takes the last of a repeated --flag=value instead of failing (RFC-0004 §4).
    import importlib

    argv_module = importlib.import_module("venom_gen.cli._argv")
    run_module = importlib.import_module("venom_gen.cli._run")
    parse_argv = argv_module.parse_argv

    def parse(argv: Any, tree: Any) -> Any:
        kept: list[str] = []
        seen: set[str] = set()
        for token in reversed(list(argv)):
            name = token.split("=", 1)[0] if token.startswith("--") and "=" in token else None
            if name is not None and name in seen:
                continue
            if name is not None:
                seen.add(name)
            kept.append(token)
        return parse_argv(kept[::-1], tree)

    setattr(argv_module, "parse_argv", parse)  # noqa: B010
    setattr(run_module, "parse_argv", parse)  # noqa: B010


def _mcp_catalog_drops_defaults() -> None:
    # The MCP catalog's inputSchema leaves out the params' defaults (RFC-0004 §5).
    import importlib

    deps = importlib.import_module("venom_mcp._deps")
    build_catalog = deps.build_catalog

    def patched(model: Any, **kwargs: Any) -> Any:
        tools = build_catalog(model, **kwargs)
        for tool in tools:
            for prop in tool["inputSchema"]["properties"].values():
                prop.pop("default", None)
        return tools

    setattr(deps, "build_catalog", patched)  # noqa: B010


def _caps_not_intersected() -> None:
    # hello grants every capability the server has, not the intersection with the client's
    # request (RFC-0002 §6.2/§6.3).
    import dataclasses
    import importlib

    module = importlib.import_module("venom_proto._core.server_connection")
    negotiate = module.negotiate_hello

    def patched(params: Any, **kwargs: Any) -> Any:
        outcome = negotiate(params, **kwargs)
        everything = frozenset(kwargs["caps"])
        result = dict(outcome.result or {}, caps=sorted(everything))
        return dataclasses.replace(outcome, caps=everything, result=result)

    setattr(module, "negotiate_hello", patched)  # noqa: B010


def _max_frame_not_applied_in_binary() -> None:
    # A max_frame lowered by a binary HELLO is not applied to incoming frames (RFC-0002 §5-6);
    # NDJSON lines keep it.
    cls = _server_connection()
    settle = cls._settle

    def patched(self: Any, outcome: Any, trigger: Any) -> None:
        settle(self, outcome, trigger)
        if self._frames is not None:
            self._frames.limit(1048576)

    cls._settle = patched


def _foreign_uid_served() -> None:
    # A peer of another uid is served like the owner (RFC-0002 §2.4).
    import dataclasses
    import importlib

    accept = importlib.import_module("venom_proto._server.accept")
    credentials = accept.peer_credentials

    def patched(conn: Any) -> Any:
        creds = credentials(conn)
        return None if creds is None else dataclasses.replace(creds, uid=os.geteuid())

    setattr(accept, "peer_credentials", patched)  # noqa: B010


def _mcp_unknown_tool_is_tool_error() -> None:
    # An unknown MCP tool is answered as a tool error (isError) instead of JSON-RPC -32602
    # (RFC-0004 §5). Only in the adapter's process (`TOOL mcp`): importing the SDK into every
    # CLI call would slow them, and a timing-bound check could then catch it for another reason.
    if "mcp" not in sys.argv[1:]:
        return
    from venom_mcp import adapter
    from venom_proto import VenomError

    class Lenient(dict):  # type: ignore[type-arg]
        def __contains__(self, key: object) -> bool:
            return True

    init, validate = adapter.Tools.__init__, adapter.Tools.validate

    def patched_init(self: Any, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        self.verbs = Lenient(self.verbs)

    def patched_validate(self: Any, name: str, arguments: Any) -> Any:
        if not dict.__contains__(self.verbs, name):
            raise VenomError("not_found.tool", f"no tool {name}")
        return validate(self, name, arguments)

    setattr(adapter.Tools, "__init__", patched_init)  # noqa: B010
    setattr(adapter.Tools, "validate", patched_validate)  # noqa: B010


def _cli_stream_json_prints_final_ok() -> None:
    # Under --json a streaming verb's final ok is printed after its items (RFC-0004 §4).
    import importlib

    call = importlib.import_module("venom_gen.cli._call")
    exchange = call._exchange

    def patched(client: Any, out: Any, verb: Any, compiled: Any, params: Any) -> int:
        status: int = exchange(client, out, verb, compiled, params)
        if verb.get("streams") and out.json:
            out.value({"final": True})
        return status

    setattr(call, "_exchange", patched)  # noqa: B010


MUTANTS = {
    "cli_repeated_flag_last_wins": _cli_repeated_flag_last_wins,
    "mcp_catalog_drops_defaults": _mcp_catalog_drops_defaults,
    "stream_two_finals": _stream_two_finals,
    "stream_item_after_final": _stream_item_after_final,
    "max_frame_not_applied_in": _max_frame_not_applied_in,
    "max_frame_not_applied_to_results": _max_frame_not_applied_to_results,
    "no_close_at_shutdown": _no_close_at_shutdown,
    "mcp_no_upstream_cancel": _mcp_no_upstream_cancel,
    "mcp_no_default_insertion": _mcp_no_default_insertion,
    "socket_env_ignored": _socket_env_ignored,
    "digest_not_rfc": _digest_not_rfc,
    "cli_skips_runtime_dir_check": _cli_skips_runtime_dir_check,
    "caps_not_intersected": _caps_not_intersected,
    "max_frame_not_applied_in_binary": _max_frame_not_applied_in_binary,
    "foreign_uid_served": _foreign_uid_served,
    "mcp_unknown_tool_is_tool_error": _mcp_unknown_tool_is_tool_error,
    "cli_stream_json_prints_final_ok": _cli_stream_json_prints_final_ok,
}

_chosen = os.environ.get("VENOM_MUTANT")
_program = os.path.basename(sys.argv[0] if sys.argv else "")
# Only the target's processes (daemon, CLI, MCP adapter) are broken, never the suite itself.
if _chosen and "pytest" not in _program and _program != "venom-conformance":
    MUTANTS[_chosen]()
