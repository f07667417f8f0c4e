"""One verb call to the daemon: connect, send, print items, validate, cancel on Ctrl-C.

The client is anything shaped like ``venom_proto.sync_client.SyncClient``; tests inject a fake
through `Connect`. Every call goes through ``client.stream`` (a non-streaming verb simply yields
no items) so that the request has a handle whose ``id`` a Ctrl-C can cancel upstream
(RFC-0002 §4.4) on the same connection.
"""

from __future__ import annotations

from venom_proto import VenomError
from venom_proto.conventions import client_auth, env_token_auth, env_var
from venom_proto.owner_token import owner_auth
from venom_schema.grants import PUBLIC_GRANTS

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would cost every call ~3 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import os
    from collections.abc import Mapping
    from typing import Any

    from venom_schema.model import JsonObject, Verb

    from ._output import Output
    from ._protocols import Client, CompiledVerb, Connect, StreamCall

__all__ = (
    "CANCEL_WAIT",
    "CONNECT_TIMEOUT",
    "call_daemon",
    "connect_timeout",
    "drift_hint",
    "exit_status",
    "sync_connect",
)

#: Seconds allowed for connect plus hello unless ``<TOOL>_CONNECT_TIMEOUT`` says otherwise; the
#: sync client's own default (venom_proto.sync_client.CONNECT_TIMEOUT, not imported here: the
#: constant is on every call's path and the module is imported only to connect).
CONNECT_TIMEOUT = 10.0
_INF = float("inf")


def sync_connect(
    socket_path: str,
    *,
    client_name: str,
    client_version: str,
    caps: tuple[str, ...],
    auth: dict[str, Any] | None,
    connect_timeout: float,
) -> Client:
    """The real transport: ``venom_proto.sync_client.SyncClient`` (C ``_socket`` + ``_json``)."""
    from venom_proto.sync_client import SyncClient

    client: Client = SyncClient(
        socket_path,
        tool=client_name,  # the generated CLI's client name is its tool's (rfcs/0006 §3)
        client_name=client_name,
        client_version=client_version,
        caps=caps,
        auth=auth,
        connect_timeout=connect_timeout,
    )
    return client


def connect_timeout(tool: str, environ: Mapping[str, str]) -> float:
    """Seconds for connect plus hello: ``<TOOL>_CONNECT_TIMEOUT`` if set, else 10.

    The variable holds a positive decimal number of seconds; anything else is a usage error
    (exit 2, ``data.env`` naming the variable). It bounds reaching the daemon only, never the
    verb: RFC-0004 §4 reserves a verb deadline for a future shared policy.
    """
    name = env_var(tool, "CONNECT_TIMEOUT")
    text = environ.get(name)
    if not text:
        return CONNECT_TIMEOUT
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < _INF:
        raise VenomError(
            "invalid_params.usage",
            f"{name} must be a positive number of seconds, got {text!r}",
            {"env": name},
        )
    return value


def remote(socket_path: str) -> bool:
    """Whether ``socket_path`` names a daemon on another host (rfcs/0006)."""
    return socket_path.startswith("ssh://")


def exit_status(verb: Verb, result: Any) -> int:
    """0, or the result's status field under ``exit = {kind: result}`` (RFC-0004 §3)."""
    policy = verb["exit"]
    if policy["kind"] != "result":
        return 0
    field = str(policy.get("field"))
    status = result.get(field) if isinstance(result, dict) else None
    if isinstance(status, int) and not isinstance(status, bool) and 0 <= status <= 255:
        return status
    raise VenomError(
        "internal.result",
        f"invalid result at '{field}': not an exit status 0-255",
        {"path": field, "reason": "range"},
    )


#: Seconds the CLI waits for the daemon to answer its ``cancel`` (Ctrl-C, a bad item) before
#: it exits anyway: a busy or hung daemon must not hold a Ctrl-C; the connection's close
#: then ends the call in the daemon (RFC-0002 §4.4).
CANCEL_WAIT = 2.0


def _cancel(client: Client, handle: StreamCall) -> None:
    call_id = getattr(handle, "id", None)
    if call_id is None:
        return
    try:
        client.cancel(call_id, wait=CANCEL_WAIT)
    except (VenomError, OSError):
        return  # the connection closes right after; the daemon drops the call then anyway


def _exchange(
    client: Client,
    out: Output,
    verb: Verb,
    compiled: CompiledVerb,
    params: JsonObject,
) -> int:
    streams = bool(verb.get("streams"))
    handle = client.stream(str(verb["name"]), params)
    try:
        for item in handle:
            try:
                if not streams:
                    raise VenomError(
                        "internal.result", "stream item for a non-streaming verb", {"path": ""}
                    )
                compiled.item(item)
            except VenomError:
                _cancel(client, handle)
                raise
            out.item(verb, item)
        result = handle.result
    except KeyboardInterrupt:
        _cancel(client, handle)
        raise
    compiled.result(result)
    status = exit_status(verb, result)
    if not streams:
        out.result(verb, result)
    return status


#: The error classes a daemon running another schema answers with (an unknown verb, a param it
#: does not know, a value it no longer takes): only these get the drift hint.
_DRIFT_CLASSES = ("unsupported", "invalid_params")


def drift_hint(err: VenomError, daemon_schema: Any, own_schema: Any, tool: str) -> str | None:
    """The one line that explains ``err`` when the daemon's ``hello.schema`` is not the
    digest this CLI was built with (rfcs/0004 D-S49); None when it does not apply."""
    if err.code.partition(".")[0] not in _DRIFT_CLASSES:
        return None
    if not isinstance(daemon_schema, str) or not isinstance(own_schema, str):
        return None  # an absent digest is not itself an error (RFC-0004 §7)
    if daemon_schema == own_schema:
        return None
    return (
        f"hint: the daemon runs schema {daemon_schema[:19]}, this CLI was built for"
        f" {own_schema[:19]}: restart the daemon to serve this build, or upgrade the CLI"
        f" ('{tool} doctor' compares them)"
    )


def _own_schema(model_path: Any) -> Any:
    from venom_proto.model_cache import load_cache_info

    try:
        return load_cache_info(model_path).get("digest")
    except VenomError:
        return None


def call_daemon(
    connect: Connect,
    socket_path: str,
    *,
    out: Output,
    verb: Verb,
    compiled: CompiledVerb,
    params: JsonObject,
    client_version: str,
    connect_timeout: float = CONNECT_TIMEOUT,
    environ: Mapping[str, str] | None = None,
    model_path: str | os.PathLike[str] | None = None,
) -> int:
    """Run one remote verb and return the exit status; raises ``VenomError`` on failure.

    With ``model_path``, an ``unsupported`` or ``invalid_params`` error from a daemon whose
    ``hello.schema`` differs from this CLI's digest is reported here with `drift_hint`."""

    def hello(auth: dict[str, Any] | None) -> Client:
        return connect(
            socket_path,
            client_name=out.tool,
            client_version=client_version,
            caps=("cancel",),
            auth=auth,
            connect_timeout=connect_timeout,
        )

    auth = client_auth(out.tool, socket_path, environ)
    client = hello(auth)
    if auth is None and verb["grant"] not in PUBLIC_GRANTS and not remote(socket_path):
        # No token when we looked, one now that hello is answered: this connection started
        # the daemon (socket activation), which wrote it before serving us. Say hello again
        # as the owner rather than fail a call the owner may make (rfcs/0001 §12).
        late = owner_auth(socket_path)
        if late is not None:
            client.close()
            client = hello(late)
    try:
        return _exchange(client, out, verb, compiled, params)
    except VenomError as exc:
        if exc.code == "denied.grant" and env_token_auth(out.tool, environ) is not None:
            raise _from_variable(exc, env_var(out.tool, "TOKEN")) from None
        if model_path is None or exc.code.partition(".")[0] not in _DRIFT_CLASSES:
            raise
        # Only on this error path: the cache is read again for its digest.
        hello_result = getattr(client, "hello_result", None) or {}
        advertised = hello_result.get("schema") if isinstance(hello_result, dict) else None
        hint = drift_hint(exc, advertised, _own_schema(model_path), out.tool)
        if hint is None:
            raise
        return out.error(exc, hint=hint)
    finally:
        client.close()


def _from_variable(err: VenomError, variable: str) -> VenomError:
    """``denied.grant`` for a call that presented ``$<TOOL>_TOKEN``: say so, by name, for the
    variable replaces the owner token even beside a local socket (rfcs/0005 §3, D-S56)."""
    data = dict(err.data or {})
    data["token_variable"] = variable
    message = (
        f"{err.message}; the token came from {variable}, which is presented in place of the"
        f" owner token (unset {variable} to act as the owner)"
    )
    return VenomError(err.code, message, data)
