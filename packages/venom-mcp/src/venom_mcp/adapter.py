"""The MCP stdio adapter (RFC-0004 §5) on the SDK's low-level server.

The low-level server is used on purpose: the high-level one answers unknown tools and validates
arguments itself, where RFC-0004 wants -32602 for unknown tools and Venom's own validation
(with ``invalid_params.*`` codes) for known ones.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, Protocol

import anyio
import mcp.types as mt
from mcp.server.caching import CacheHint
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp.shared.jsonrpc_dispatcher import progress_token_from_params

from venom_mcp._deps import (
    Validators,
    VenomError,
    build_catalog,
    compile_verb,
    server_instructions,
)
from venom_mcp._limits import compact_json
from venom_mcp._lines import MAX_LINE
from venom_mcp._progress import HEARTBEAT, Progress
from venom_proto.conventions import mcp_name
from venom_schema.model import JsonObject, Model, Verb

__all__ = (
    "CATALOG_CACHE",
    "HEARTBEAT",
    "MAX_LINE",
    "OnItem",
    "Tools",
    "Upstream",
    "build_server",
    "error_result",
    "run_server",
    "serve_stdio",
    "success_result",
)

log = logging.getLogger("venom_mcp")

#: Called once per stream item as it arrives (the adapter's progress reporting).
OnItem = Callable[[], Awaitable[None]]

#: The 2026-07-28 caching hint on ``tools/list`` and ``server/discover`` (rfcs/0004 D-S72):
#: the catalog is fixed for the adapter's lifetime, so a day bounds only a cache that outlives
#: the process; private, since it reflects this adapter's ``--max-grant``.
CATALOG_CACHE = CacheHint(ttl_ms=86_400_000, scope="private")


class Upstream(Protocol):
    """Runs one verb on the daemon and returns the RFC-0004 §5 success wrapper.

    ``{"result": ok}``, or ``{"items": [...], "result": ok}`` for streaming verbs; failures
    raise ``VenomError``. ``on_item``, when given, is awaited once per stream item as it
    arrives. An upstream that is also an async context manager is entered for the server's
    lifetime (``build_server`` does this).
    """

    async def invoke(
        self, verb: Verb, params: JsonObject, *, on_item: OnItem | None = None
    ) -> JsonObject: ...


class Tools:
    """The fixed catalog and the verbs behind it, resolved once for the adapter's lifetime."""

    def __init__(
        self,
        model: Model,
        *,
        max_grant: str | None = None,
        item_totals: Mapping[str, str] | None = None,
    ) -> None:
        self.catalog: list[dict[str, Any]] = build_catalog(model, max_grant=max_grant)
        listed = {entry["name"] for entry in self.catalog}
        # Only listed tools can be called: the catalog holds the ``mcp`` surface's verbs
        # (venom_schema.surfaces: no transport or local verb, RFC-0004 §7) up to --max-grant
        # (rfcs/0005-local-grants.md §5); anything else is refused like an unknown tool.
        self.verbs: dict[str, Verb] = {
            name: verb for verb in model["verbs"] if (name := mcp_name(verb["name"])) in listed
        }
        self._validators: dict[str, Validators] = {}
        #: Tool name -> the integer param that fixes how many items its stream yields.
        self._totals = _item_totals(model, item_totals or {})
        self._listing = mt.ListToolsResult(tools=[mt.Tool.model_validate(t) for t in self.catalog])
        #: The server's ``instructions`` (rfcs/0004 D-S36): the root summary, which tools
        #: change state, the stream limits.
        self.instructions: str = server_instructions(model, max_grant=max_grant)

    def listing(self) -> mt.ListToolsResult:
        """The ``tools/list`` result (one page: the catalog is small and fixed)."""
        return self._listing

    def total(self, name: str, params: JsonObject) -> int | None:
        """How many items tool ``name`` will stream for validated ``params``, if they fix it."""
        param = self._totals.get(name)
        value = None if param is None else params.get(param)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def _checks(self, name: str) -> Validators:
        validators = self._validators.get(name)
        if validators is None:
            validators = self._validators[name] = compile_verb(self.verbs[name])
        return validators

    def validate(self, name: str, arguments: Any) -> JsonObject:
        """Check ``arguments`` for tool ``name`` and insert defaults (RFC-0004 §5)."""
        params: JsonObject = self._checks(name).params({} if arguments is None else arguments)
        return params

    def check_success(self, name: str, wrapper: JsonObject) -> JsonObject:
        """Check an upstream's success wrapper against tool ``name``'s descriptors.

        The adapter is a validating boundary like the CLI (RFC-0004 §3): a result or item that
        does not match (a misbehaving or older daemon) raises ``internal.result`` instead of
        reaching the client as success content that breaks the advertised outputSchema.
        """
        checks = self._checks(name)
        streams = self.verbs[name]["streams"]
        if set(wrapper) != ({"items", "result"} if streams else {"result"}):
            raise VenomError(
                "internal.result",
                f"the upstream's success wrapper has members {sorted(wrapper)}",
                {"path": "", "reason": "type"},
            )
        if streams:
            if not isinstance(wrapper["items"], list):
                raise VenomError(
                    "internal.result", "stream items are not a list", {"path": "", "reason": "type"}
                )
            for item in wrapper["items"]:
                checks.item(item)
        checks.result(wrapper["result"])
        return wrapper


def _item_totals(model: Model, item_totals: Mapping[str, str]) -> dict[str, str]:
    """``item_totals`` (wire name -> param) keyed by tool name; each must name a streaming
    verb's integer param (``ValueError`` otherwise)."""
    verbs = {verb["name"]: verb for verb in model["verbs"]}
    totals: dict[str, str] = {}
    for wire, param in item_totals.items():
        verb = verbs.get(wire)
        kinds = {} if verb is None else {f["name"]: f["type"]["kind"] for f in verb["params"]}
        if verb is None or not verb["streams"] or kinds.get(param) != "integer":
            raise ValueError(f"item_totals: {wire!r} has no integer param {param!r} of a stream")
        totals[mcp_name(wire)] = param
    return totals


def success_result(wrapper: JsonObject) -> mt.CallToolResult:
    """Structured content plus the same wrapper as compact JSON text (RFC-0004 §5)."""
    return mt.CallToolResult(
        content=[mt.TextContent(type="text", text=compact_json(wrapper))],
        structured_content=wrapper,
        is_error=False,
    )


def error_result(error: VenomError) -> mt.CallToolResult:
    """``isError`` with the ``{"error": ...}`` wrapper as text and no structured content."""
    text = compact_json({"error": error.to_object()})
    return mt.CallToolResult(content=[mt.TextContent(type="text", text=text)], is_error=True)


def build_server(
    tools: Tools,
    upstream: Upstream,
    *,
    name: str,
    version: str,
    heartbeat: float = HEARTBEAT,
) -> Server[Any]:
    """A low-level MCP server exposing ``tools`` and forwarding calls to ``upstream``.

    A call that carries a ``progressToken`` gets ``notifications/progress`` (``_progress``):
    one per stream item, and a heartbeat after ``heartbeat`` seconds without one.
    """

    async def list_tools(
        ctx: ServerRequestContext[Any], params: mt.PaginatedRequestParams | None
    ) -> mt.ListToolsResult:
        return tools.listing()

    async def call_tool(
        ctx: ServerRequestContext[Any], params: mt.CallToolRequestParams
    ) -> mt.CallToolResult:
        tool = params.name
        if tool not in tools.verbs:
            raise MCPError(code=mt.INVALID_PARAMS, message=f"Unknown tool: {tool}")
        try:
            args = tools.validate(tool, params.arguments)
            if progress_token_from_params(ctx.params) is None:
                wrapper = await upstream.invoke(tools.verbs[tool], args)
            else:
                wrapper = await _with_progress(ctx, tool, args)
            return success_result(tools.check_success(tool, wrapper))
        except VenomError as exc:
            return error_result(exc)
        except Exception:
            # The boundary: nothing below may reach the client as a traceback or bare error.
            log.exception("tool %s failed", tool)
            return error_result(VenomError("internal", "the MCP adapter failed; see its stderr"))

    async def _with_progress(
        ctx: ServerRequestContext[Any], tool: str, args: JsonObject
    ) -> JsonObject:
        progress = Progress(
            ctx.session.report_progress, total=tools.total(tool, args), interval=heartbeat
        )
        outcome: JsonObject | VenomError
        async with anyio.create_task_group() as beats:
            beats.start_soon(progress.heartbeat)
            try:
                outcome = await upstream.invoke(tools.verbs[tool], args, on_item=progress.item)
                await progress.finish()
            except VenomError as exc:
                outcome = exc  # raised below, outside the group, so it is not wrapped
            finally:
                # Before the result goes out: no notification may follow it.
                beats.cancel_scope.cancel()
        if isinstance(outcome, VenomError):
            raise outcome
        return outcome

    @asynccontextmanager
    async def lifespan(_: Server[Any]) -> AsyncIterator[dict[str, Any]]:
        # An upstream that holds resources (DaemonUpstream's shared connection) lives exactly
        # as long as the server: opened before the first message, closed after the last call.
        if isinstance(upstream, AbstractAsyncContextManager):
            async with upstream:
                yield {}
        else:
            yield {}

    server: Server[Any] = Server(
        name,
        version=version,
        instructions=tools.instructions,
        lifespan=lifespan,
        cache_hints={"tools/list": CATALOG_CACHE, "server/discover": CATALOG_CACHE},
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
    # The default OpenTelemetry middleware is a no-op without an exporter; skip its per-call cost.
    server.middleware = []
    return server


async def serve_stdio(server: Server[Any]) -> None:
    """Serve ``server`` on stdin/stdout until stdin closes.

    Pipes and sockets are served from the event loop (``_stdio``); anything else, such as a
    file or a tty, through worker threads (``_blocking_stdio``). Both bound each stdin line
    (``_lines.MAX_LINE``) and answer what the SDK would drop (``_envelope``).
    """
    from venom_mcp._blocking_stdio import blocking_stdio
    from venom_mcp._envelope import AnsweringMalformed
    from venom_mcp._stdio import pipe_stdio

    options = server.create_initialization_options()
    async with pipe_stdio() as pipes:
        if pipes is not None:
            reader = AnsweringMalformed(*pipes)
            await server.run(reader, reader.replies, options)
            return
    async with blocking_stdio() as streams:
        reader = AnsweringMalformed(*streams)
        await server.run(reader, reader.replies, options)


def run_server(server: Server[Any]) -> int:
    """Run ``serve_stdio`` to completion: 0 on stdin EOF, 130 on Ctrl-C."""
    try:
        anyio.run(serve_stdio, server)
    except KeyboardInterrupt:
        return 130
    return 0
