"""``venom call TARGET VERB [PARAMS | -]``: one verb of any daemon, checked by its own model.

The params are one JSON object (the argument, ``-`` for standard input, or ``{}``), read before
the daemon is reached; the daemon's model (`._models`) then decides the verb and checks them
with the validators the product CLI runs (`venom_schema.runtime`), so bad params exit 2 before
the request is sent. The call itself is the product CLI's exchange: items printed as they
arrive, the result validated, Ctrl-C cancelling upstream, the exit status of RFC-0002 §7.2 or
the verb's own ``exit`` policy.
"""

from __future__ import annotations

import sys

from venom_gen.cli._call import _exchange
from venom_proto import VenomError
from venom_proto.stdjson import std_loads
from venom_schema.grants import PUBLIC_GRANTS
from venom_schema.surfaces import shown_on

from ._models import daemon_model, find_verb
from ._target import Session, resolve_target

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would cost every call ~3 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import IO, Any

    from venom_gen.cli._output import Output
    from venom_gen.cli._protocols import CompiledVerb
    from venom_schema.model import Verb

__all__ = ("read_params", "run_call")

#: What interpreting a malformed model raises (a descriptor nested past the stack included).
_MALFORMED = (ValueError, KeyError, TypeError, AttributeError, IndexError, RecursionError)
#: The most params text read from standard input (a daemon's default bound on one message).
STDIN_LIMIT = 64 * 1024 * 1024


def _usage(message: str, data: dict[str, Any]) -> VenomError:
    return VenomError("invalid_params.usage", message, data)


def read_params(text: str | None, stdin: IO[bytes] | None) -> dict[str, Any]:
    """PARAMS as one JSON object: ``text``, standard input for ``-``, ``{}`` when absent."""
    if text is None:
        return {}
    if text == "-":
        if stdin is None:
            raise _usage("PARAMS is '-' but there is no standard input", {"arg": "-"})
        data = stdin.read(STDIN_LIMIT + 1)
        if len(data) > STDIN_LIMIT:
            raise _usage(f"PARAMS on standard input exceed {STDIN_LIMIT} bytes", {"arg": "-"})
        where = "standard input"
    else:
        data = text.encode("utf-8", "surrogateescape")
        where = "PARAMS"
    try:
        value = std_loads(data)
    except ValueError as exc:
        raise _usage(f"{where} is not JSON: {exc}", {"arg": where}) from None
    if not isinstance(value, dict):
        raise _usage(
            f'{where} must be one JSON object, such as \'{{"text":"hi"}}\'', {"arg": where}
        )
    params: dict[str, Any] = value
    return params


def _compile(verb: Verb) -> CompiledVerb:
    from venom_schema.runtime import compile_verb

    try:
        compiled: CompiledVerb = compile_verb(verb)
    except _MALFORMED as exc:  # the daemon's model is input like any other: never a traceback
        raise VenomError("internal.model", f"verb {verb.get('name')!r}: {exc!r}") from None
    return compiled


def _callable_verb(model: Any, name: str) -> Verb:
    verb = find_verb(model, name)
    try:
        remote = shown_on(verb, "client")
    except _MALFORMED:
        raise VenomError("internal.model", f"verb {name!r} is malformed") from None
    if not remote:
        # hello and cancel are the connection's own; serve and mcp run in the product's process.
        raise VenomError(
            "unsupported.verb",
            f"'{name}' is not a daemon verb: run it with the product's own command",
            {"verb": name},
        )
    return verb


def run_call(
    target_text: str,
    verb_name: str,
    params_text: str | None,
    *,
    tool: str | None,
    out: Output,
    environ: Mapping[str, str],
    stdin: IO[bytes] | None,
) -> int:
    """Run ``venom call``; returns the exit status, raises ``VenomError`` on failure."""
    target = resolve_target(target_text, tool=tool, environ=environ)
    params = read_params(params_text, stdin if stdin is not None else _stdin())
    session = Session(target, environ)
    try:
        model, _ = daemon_model(session)
        verb = _callable_verb(model, verb_name)
        compiled = _compile(verb)
        try:
            compiled.params(params)
        except VenomError as exc:
            hint = f"Try 'venom describe {target_text} {verb_name}'."
            return out.error(exc, hint=hint)
        if verb.get("grant") not in PUBLIC_GRANTS:
            session.as_owner_if_late()
        return _exchange(session.client, out, verb, compiled, params)
    finally:
        session.close()


def _stdin() -> IO[bytes] | None:
    stream = sys.stdin
    return None if stream is None else stream.buffer
