"""The handler registry (RFC-0004 §2, §7): a product's handlers as venom-proto `VerbHandler`s.

`build_verbs` pairs every daemon-dispatched verb of a normalized model with its handler and wraps
the handler so that, on every call and before the handler runs, the caller's grant is checked
(``denied.grant``), then the params are validated with defaults inserted (``invalid_params.*``);
afterwards the result, and every streamed item, is validated (``internal.result``).

Which verbs need a handler: those on the ``daemon`` surface (`venom_schema.surfaces`): neither
transport (hello, cancel) nor local (serve, mcp) verbs, and not the core verbs proto answers
itself (RFC-0002 §4.5): proto's built-in ``ping`` always wins, so the registry neither needs nor
accepts a handler for it.
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Awaitable, Callable, Container, Mapping
from typing import Any

from venom_proto import Call, ConnectionInfo, Handler, VenomError, VerbHandler

from .grants import ALL_GRANTS, STATIC_GRANT_CLASSES, check_grant
from .model import Json, JsonObject, Model
from .runtime import CompiledVerb, DescriptorError, Validator, compile_verb
from .runtime._generated import compile_function, object_block
from .surfaces import verbs_on

__all__ = ("GrantsFor", "RegistryError", "build_verbs")

_DISPATCH = frozenset({"transport", "local"})

#: Where an invalid result or item is reported to the author (the caller gets ``internal.result``).
log = logging.getLogger("venom_schema.registry")

#: What the daemon tells the registry about a caller: the grants its connection holds.
GrantsFor = Callable[[ConnectionInfo], Container[str]]


class RegistryError(Exception):
    """Raised by `build_verbs` at start-up when handlers and the model's verbs do not match.

    ``missing`` and ``extra`` list every offending verb name, sorted; ``problems`` lists other
    defects of the model (an unknown grant or dispatch value, a malformed descriptor).
    """

    def __init__(
        self, missing: list[str], extra: list[str], problems: list[str] | None = None
    ) -> None:
        self.missing = missing
        self.extra = extra
        self.problems = problems or []
        parts = []
        if missing:
            parts.append("missing handlers: " + ", ".join(missing))
        if extra:
            parts.append("handlers for no daemon verb: " + ", ".join(extra))
        parts.extend(self.problems)
        super().__init__("; ".join(parts))


def build_verbs(
    model: Model, handlers: Mapping[str, Handler], *, grants_for: GrantsFor
) -> dict[str, VerbHandler]:
    """Wrap each handler for `venom_proto.Server`; raises `RegistryError` listing every mismatch."""
    verbs = verbs_on(model, "daemon")
    problems = [
        f"verb {v.get('name')!r}: unknown dispatch {v['dispatch']!r}"
        for v in model["verbs"]
        if "dispatch" in v and v["dispatch"] not in _DISPATCH
    ]
    problems += [
        f"verb {v.get('name')!r}: unknown grant {v.get('grant')!r}"
        for v in verbs
        if v.get("grant") not in ALL_GRANTS
    ]
    compiled: dict[str, CompiledVerb] = {}
    for verb in verbs:
        try:
            compiled[verb["name"]] = compile_verb(verb, generate=True)
        except DescriptorError as exc:
            problems.append(f"verb {verb.get('name')!r}: {exc}")
    names = {verb["name"] for verb in verbs}
    missing = sorted(names - handlers.keys())
    extra = sorted(handlers.keys() - names)
    if missing or extra or problems:
        raise RegistryError(missing, extra, problems)
    return {
        name: VerbHandler(_wrap_handler(checks, handlers[name], grants_for), streams=checks.streams)
        for name, checks in compiled.items()
    }


def _wrap_handler(compiled: CompiledVerb, handler: Handler, grants_for: GrantsFor) -> Handler:
    """The checked handler for one verb; ``async def`` exactly when ``handler`` is.

    Keeping a sync handler sync lets proto run it inline, without a task. ``compiled`` comes
    from ``compile_verb(..., generate=True)``, so a sync non-streaming verb always has the
    plans `_generated_plain` inlines.
    """
    name, grant = compiled.name, compiled.grant
    params, plain_result = compiled.params, compiled.result
    # The cold paths take the logging wrapper; the async path logs inline (no extra frame).
    result = _logged(plain_result, name, "result")
    item = _logged(compiled.item, name, "item") if compiled.streams else None

    needs_grant = grant != "none"  # `none` is explicitly no grant at all (RFC-0004 §2)

    def held(connection: ConnectionInfo) -> Container[str]:
        # Resolved once per connection: its hello, and so its grants, never change once settled.
        grants = connection.grants
        if grants is None:
            grants = connection.grants = grants_for(connection)
        return grants

    def admit(call: Call, raw: JsonObject) -> tuple[Call, JsonObject]:
        if needs_grant:
            check_grant(grant, held(call.connection), name)
        checked = params(raw)
        return (call if item is None else _ItemCheckingCall(call, item)), checked

    if inspect.iscoroutinefunction(handler):

        @functools.wraps(handler)
        async def run_async(call: Call, raw: JsonObject) -> Json:
            refresh = _refresh_of(held(call.connection))
            if refresh is not None:
                await refresh()
            target, checked = admit(call, raw)
            value = await handler(target, checked)
            try:
                return plain_result(value)
            except VenomError as exc:
                _log_refusal(exc, name, "result")
                raise

        return run_async

    async def run_live(refresh: Callable[[], Awaitable[None]], call: Call, raw: JsonObject) -> Json:
        await refresh()
        target, checked = admit(call, raw)
        value = handler(target, checked)
        if inspect.isawaitable(value):
            value = await value
        return result(value)

    @functools.wraps(handler)
    def run_sync(call: Call, raw: JsonObject) -> Json:
        refresh = _refresh_of(held(call.connection))
        if refresh is not None:  # live grants: decided after a fresh look, so off this path
            return run_live(refresh, call, raw)
        target, checked = admit(call, raw)
        value = handler(target, checked)
        if inspect.isawaitable(value):  # a plain def returning a coroutine (e.g. a partial)
            return _checked_later(value, result)
        return result(value)

    if item is None:
        return _generated_plain(compiled, handler, held, run_sync, result)
    return run_sync


def _refresh_of(grants: Container[str]) -> Callable[[], Awaitable[None]] | None:
    """The ``refresh`` of live grants (an issued token's, rfcs/0005 §7.3), else None.

    Live grants are decided by a store other processes change: the registry awaits their
    ``refresh`` before every admission on the connection, whatever the verb's grant, and the
    refresh raises (ending the call, and its owner closes the connection) when they ended.
    """
    if grants.__class__ in STATIC_GRANT_CLASSES:
        return None
    refresh: Callable[[], Awaitable[None]] | None = getattr(grants, "refresh", None)
    return refresh


_JSON_TYPES = frozenset({dict, list, str, int, float, bool, type(None)})


def _generated_plain(
    compiled: CompiledVerb,
    handler: Handler,
    held: Callable[[ConnectionInfo], Container[str]],
    general: Handler,
    result: Validator,
) -> Handler:
    """A sync, non-streaming verb's checked handler as one generated function.

    The grant test, the params check and (for an object result) the result check are inlined
    around the handler call (`runtime.object_block`), saving three frames per call on the
    daemon's hottest path. Anything the inline code does not accept goes to the compiled
    validators, which decide exactly as `wrap_handler`'s closures do; a connection whose
    grants are not a set decided once (`STATIC_GRANT_CLASSES`: the owner token's, the
    peer's floor) holding the verb's grant (refused, or live grants) goes to ``general``, the
    wrapper every other verb uses.
    """
    if compiled.params_plans is None:
        raise RegistryError([], [], [f"verb {compiled.name!r}: not compiled for the daemon"])
    env: dict[str, Any] = {
        "_handler": handler,
        "_params": compiled.params,
        "_result": result,
        "_general": general,
        "_held": held,
        "_STATIC": STATIC_GRANT_CLASSES,
        "_GRANT": compiled.grant,
        "_NAME": compiled.name,
        "_JSON_TYPES": _JSON_TYPES,
        "_isawaitable": inspect.isawaitable,
        "_checked_later": _checked_later,
    }
    lines = [
        "def run_plain(call, raw):",
        "    grants = call.connection.grants",
        "    if grants is None:",
        "        grants = _held(call.connection)",
    ]
    if compiled.grant != "none":  # `none` is explicitly no grant at all (RFC-0004 §2)
        lines += [
            "    if grants.__class__ not in _STATIC or _GRANT not in grants:",
            "        return _general(call, raw)",
        ]
    else:  # no grant, but live grants still end a session whose token stopped counting
        lines += [
            "    if grants.__class__ not in _STATIC:",
            "        return _general(call, raw)",
        ]
    lines += object_block(
        compiled.params_plans, "raw", "params", "p", env, "    ", otherwise="params = _params(raw)"
    )
    lines.append("    value = _handler(call, params)")
    if compiled.result_plans is not None:
        # The result is encoded at once and never kept: it may be its own checked value.
        lines += object_block(compiled.result_plans, "value", None, "r", env, "    ", reuse=True)
    lines += [
        "    if type(value) not in _JSON_TYPES and _isawaitable(value):",
        "        return _checked_later(value, _result)  # a def returning a coroutine",
        "    return _result(value)",
    ]
    run: Handler = compile_function(lines, env, "run_plain")
    functools.update_wrapper(run, handler)
    return run


def _log_refusal(exc: VenomError, verb: str, what: str) -> None:
    data = exc.data if isinstance(exc.data, dict) else {}
    path = data.get("path", "")
    log.error("verb %r returned an invalid %s (path %r): %s", verb, what, path, exc.message)


def _logged(validator: Validator, verb: str, what: str) -> Validator:
    """``validator``, logging one line naming the verb and the path of what it refuses.

    The caller gets ``internal.result`` and no detail it could not act on; the author gets the
    line (docs/handlers.md).
    """

    def checked(value: Any) -> Any:
        try:
            return validator(value)
        except VenomError as exc:
            _log_refusal(exc, verb, what)
            raise

    return checked


async def _checked_later(awaitable: Awaitable[Any], result: Validator) -> Any:
    return result(await awaitable)


class _ItemGate:
    """The `CallHost` of an `_ItemCheckingCall`: validates, then emits on the real call."""

    __slots__ = ("_call", "_item")

    def __init__(self, call: Call, item: Validator) -> None:
        self._call = call
        self._item = item

    async def emit_item(self, call: Call, item: Any) -> None:
        await self._call.emit(self._item(item))


class _ItemCheckingCall(Call):
    """The call a streaming handler sees: ``emit`` validates each item first (RFC-0004 §3).

    ``cancelled`` reads through to the server's call, which the dispatcher updates.
    """

    __slots__ = ("_inner",)

    def __init__(self, inner: Call, item: Validator) -> None:
        self._inner = inner
        super().__init__(
            inner.id, inner.verb, inner.connection, _ItemGate(inner, item), streams=inner.streams
        )

    @property
    def cancelled(self) -> bool:
        return self._inner.cancelled

    @cancelled.setter
    def cancelled(self, value: bool) -> None:
        if value:
            self._inner.cancelled = True
