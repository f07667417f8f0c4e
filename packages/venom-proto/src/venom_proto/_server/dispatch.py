"""Requests of one connection (RFC-0002 4.3-4.6, 6.4): hello order, core verbs, calls, cancel.

Transport-neutral: replies leave through `DispatchHost.send` as NDJSON lines, so the same
dispatcher serves NDJSON connections and binary ``CONTROL`` frames.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from typing import Any

import orjson

from venom_proto._core._json import loads
from venom_proto._core.connection import ServerConnectionState
from venom_proto._core.errors import ProtocolViolation, VenomError
from venom_proto._core.hello import IMPLICIT_HELLO, HelloOutcome
from venom_proto._core.ids import MAX_SAFE_INT, is_valid_id
from venom_proto._core.messages import Request, encode_error, encode_ok, parse_request

from .api import Call, ConnectionInfo
from .call_reuse import ALONE, refcount
from .config import ServerConfig
from .reply_lines import error_line, internal_error, ok_line, too_large_line
from .running import DispatchHost, RunningCalls

__all__ = ("DispatchHost", "Dispatcher")

log = logging.getLogger("venom_proto.server")

_BY_CLIENT = "cancelled by client"
# Results of these types are never awaitable; skipping inspect.isawaitable saves ~1 µs per call.
_PLAIN = frozenset({dict, list, str, int, float, bool, type(None)})
_dumps = orjson.dumps
_NEWLINE = orjson.OPT_APPEND_NEWLINE
_new = object.__new__
# The fast path fills a Call's slots itself (~90 ns less than Call.__init__ with a keyword);
# fail on import, not on the first request, if Call ever gains a slot it does not know.
if set(Call.__slots__) != {"_host", "cancelled", "connection", "id", "streams", "verb"}:
    raise ImportError("venom_proto._server.dispatch: Call's slots changed; update handle_lines")


#: A sync verb the fast path may run: its handler and whether it streams.
_FastVerb = tuple[Callable[[Call, dict[str, Any]], Any], bool]


def _error(code: str, message: str, **data: Any) -> VenomError:
    return VenomError(code, message, data or None)


class Dispatcher:
    """Runs the requests of one connection and tracks the ones still in flight."""

    __slots__ = ("_closed", "_config", "_fast", "_host", "_running", "_state", "info")

    def __init__(
        self,
        config: ServerConfig,
        info: ConnectionInfo,
        host: DispatchHost,
        state: ServerConnectionState,
    ) -> None:
        self._config = config
        self._host = host
        self._state = state
        self.info = info
        self._running = RunningCalls(host, state, info)
        # Sync tool verbs the negotiated caps allow; empty until hello settles.
        self._fast: dict[str, _FastVerb] = {}
        self._closed = False

    @property
    def inflight(self) -> int:
        """Async calls still running."""
        return len(self._running)

    # -- input ---------------------------------------------------------------------------

    def handle_lines(self, lines: list[bytes]) -> None:
        """Handle request lines in order; stop after one that closes the connection.

        The common case (an object with an int or short string id, a ``params`` object or
        none, a sync verb the caps allow, an id not in flight) runs here inline, with its
        replies gathered into one `send`; it answers exactly what `handle_line` would. A sync
        call that completes inline is never registered in flight: nothing can run (cancel it,
        reuse its id) before it is done.
        """
        send = self._host.send
        out = bytearray()
        fast, info, on_call = self._fast, self.info, self._config.on_call
        in_flight, max_frame, running = self._state.in_flight, info.max_frame, self._running
        low, high = -MAX_SAFE_INT, MAX_SAFE_INT  # locals: read on every line
        spare: Call | None = None
        for line in lines:
            # Subscripts, not .get: a missing member, an unknown verb or a line that is not an
            # object raises here (a try is free in 3.11) and takes the general path below.
            try:
                obj = loads(line)
                rid: Any = obj["id"]
                verb: Any = obj["verb"]
                params: Any = obj["params"]
                handler, streams = fast[verb]
            except (ValueError, KeyError, TypeError):
                pass
            else:
                if (
                    type(params) is dict
                    and (
                        (type(rid) is int and low <= rid <= high)
                        or (type(rid) is str and len(rid) <= 16)
                    )
                    and rid not in in_flight
                ):
                    call = spare
                    if call is None:
                        call = _new(Call)
                        call.connection, call._host = info, running
                    else:
                        spare = None
                    call.id, call.verb = rid, verb
                    call.streams, call.cancelled = streams, False
                    try:
                        if on_call is not None:
                            on_call(call, params)
                        result = handler(call, params)
                        kind = type(result)
                        reply = (
                            _dumps({"id": rid, "ok": result}, option=_NEWLINE)
                            if kind is dict or kind in _PLAIN
                            else None
                        )
                    except VenomError as exc:
                        out += error_line(rid, exc)
                        continue
                    except Exception:  # from the handler, or its result would not encode
                        out += error_line(rid, internal_error(call))
                        continue
                    if reply is None:
                        if inspect.isawaitable(result):
                            if out:
                                send(bytes(out))
                                out = bytearray()
                            in_flight.add(rid)  # as receive_request does for every call
                            self._running.start(call, result)
                            continue
                        reply = ok_line(call, result, max_frame)
                    elif len(reply) > max_frame:
                        reply = too_large_line(rid, max_frame)
                    out += reply
                    if refcount(call) == ALONE:  # the handler kept no reference to it
                        spare = call
                    continue
            # Anything else takes the general path, after the replies gathered so far.
            if out:
                send(bytes(out))
                out = bytearray()
            self.handle_line(line)
            if self._closed:
                return
            fast, max_frame = self._fast, info.max_frame
        if out:
            send(bytes(out))

    def handle_line(self, line: bytes) -> None:
        """Handle one request line; malformed ones get the 4.6 reply."""
        try:
            request = parse_request(line)
        except ProtocolViolation as exc:
            self._host.send(encode_error(exc.id, exc))
            if exc.close:
                self._close()
            return
        self.handle_request(request)

    def handle_request(self, req: Request) -> None:
        """Admit one parsed request through the core's state (hello order, ids), then run it."""
        rid, verb = req.id, req.verb
        try:
            outcome = self._state.receive_request(req)
        except VenomError as exc:
            self._reply_error(rid, exc)
            if isinstance(exc, ProtocolViolation) and exc.close:
                self._close()
            return
        if outcome is not None:  # it was hello
            self._host.send(encode_ok(rid, outcome.result))
            self.apply_hello(outcome)
            return
        if self.info.proto is None:  # the first request settled an implicit hello
            self.apply_hello(self._state.hello or IMPLICIT_HELLO)
        if verb == "ping":
            self._host.send(encode_ok(rid, {}))
        elif verb == "cancel":
            self._cancel(rid, req.params)
        else:
            self._call(req)
        if rid not in self._running:  # answered inline; an async call finishes when its task does
            self._state.finish(rid)

    def apply_hello(self, outcome: HelloOutcome) -> None:
        """Record a hello outcome on the connection."""
        info = self.info
        info.proto, info.caps, info.max_frame = outcome.proto, outcome.caps, outcome.max_frame
        info.hello = outcome.params
        self._fast = {
            name: (verb.handler, verb.streams)
            for name, verb in self._config.verbs.items()
            if not verb.is_async and (verb.capability is None or verb.capability in info.caps)
        }
        self._host.hello_done(outcome)

    def _close(self) -> None:
        self._closed = True
        self._host.close()

    # -- cancel (4.4) ----------------------------------------------------------------------

    def _cancel(self, rid: int | str, params: dict[str, Any]) -> None:
        if "cancel" not in self.info.caps:
            err = _error(
                "unsupported.capability", "cancel needs capability 'cancel'", capability="cancel"
            )
            self._reply_error(rid, err)
            return
        if "id" not in params:
            self._reply_error(
                rid, _error("invalid_params.missing", "missing param 'id'", param="id")
            )
            return
        target = params["id"]
        if not is_valid_id(target):
            err = _error("invalid_params.type", "id must be an integer or string", param="id")
            self._reply_error(rid, err)
            return
        if target not in self._running:
            err = _error("not_found.request", f"no request {target!r} in flight", id=target)
            self._reply_error(rid, err)
            return
        # The target's final error goes out before cancel's own null, as in 4.4.
        self._running.end(target, VenomError("cancelled", _BY_CLIENT))
        self._host.send(encode_ok(rid, None))

    def cancel_all(self, message: str | None) -> None:
        """End every running call: with a ``cancelled`` error, or silently when ``None``."""
        self._running.cancel_all(message)

    # -- tool verbs ------------------------------------------------------------------------

    def _call(self, req: Request) -> None:
        cfg, rid = self._config, req.id
        verb = cfg.verbs.get(req.verb)
        if verb is None:
            self._reply_error(
                rid, _error("unsupported.verb", f"unknown verb {req.verb!r}", verb=req.verb)
            )
            return
        if verb.capability is not None and verb.capability not in self.info.caps:
            err = _error(
                "unsupported.capability",
                f"verb {req.verb!r} needs capability {verb.capability!r}",
                verb=req.verb,
                capability=verb.capability,
            )
            self._reply_error(rid, err)
            return
        call = Call(rid, req.verb, self.info, self._running, streams=verb.streams)
        try:
            if cfg.on_call is not None:
                cfg.on_call(call, req.params)
            result = verb.handler(call, req.params)
        except VenomError as exc:
            self._reply_error(rid, exc)
            return
        except Exception:
            self._reply_error(rid, internal_error(call))
            return
        if verb.is_async or (type(result) not in _PLAIN and inspect.isawaitable(result)):
            self._running.start(call, result)
        else:
            self._reply_ok(call, result)

    # -- replies ---------------------------------------------------------------------------

    def _reply_ok(self, call: Call, result: Any) -> None:
        self._host.send(ok_line(call, result, self.info.max_frame))

    def _reply_error(self, rid: int | str | None, err: VenomError) -> None:
        self._host.send(error_line(rid, err))
