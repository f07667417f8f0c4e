"""`App`: one running daemon's shared services, and `serve`, which puts it on its socket."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import json
import logging
import os
import sys
from collections.abc import Container, Mapping
from typing import TYPE_CHECKING

import anyio

from venom_gen._doctor_checks import config_check, doctor_report, filesystem_checks
from venom_gen._handover import Handover, take_handover
from venom_proto import Call, ConnectionInfo, Handler, Server, VenomError, VerbHandler
from venom_proto.conventions import env_var, resolve_socket_path
from venom_proto.model_cache import load_cache_info, load_model
from venom_proto.owner_token import (
    OwnerToken,
    install_owner_token,
    read_owner_token,
    remove_owner_token,
)
from venom_proto.systemd import JournalFormatter, journal_stream_matches
from venom_schema.canonical import canonical_json
from venom_schema.grants import grants_for_connection
from venom_schema.model import JsonObject, Model
from venom_schema.registry import RegistryError, build_verbs

from .config import ConfigStore
from .events import EventBus
from .files import FileWorkers
from .skill import SkillVerbs
from .tokens import TokenVerbs

if TYPE_CHECKING:
    from venom_gen.product import Product

__all__ = ("App", "serve")


class App:
    """What handlers reach the world through: the model, events, configuration and a logger."""

    def __init__(self, product: Product, socket_path: str) -> None:
        self.product = product
        self.socket_path = socket_path
        self.model: Model = load_model(product.model_path)
        self.digest: str | None = load_cache_info(product.model_path).get("digest")
        self.log = logging.getLogger(product.tool)
        self.events = EventBus()
        self.config = ConfigStore(product.tool, product.config_schema())
        self.skill = SkillVerbs(self.model)
        self.token: OwnerToken | None = None
        self.tokens = TokenVerbs(product.tool)
        self._workers = FileWorkers()
        self._server: Server | None = None
        self._manifest: JsonObject | None = None

    async def manifest(self, call: Call, params: JsonObject) -> JsonObject:
        """``manifest``: the model as canonical JSON text and its digest (rfcs/0001 §16)."""
        if self._manifest is None:
            text = canonical_json(self.model)
            digest = "sha256:" + hashlib.sha256(text).hexdigest()
            self._manifest = {"model": text.decode("utf-8"), "digest": digest}
        return self._manifest

    async def doctor(self, call: Call, params: JsonObject) -> JsonObject:
        """``doctor`` from the daemon's side of the socket; the checks run in a worker thread."""

        def checks() -> list[dict[str, str]]:
            found = filesystem_checks(self.product.tool, self.socket_path)
            found.append(config_check(self.config.problems(), str(self.config.path)))
            return found

        return doctor_report(await self._workers.run(checks, abandon_on_cancel=True))

    async def shutdown(self, call: Call, params: JsonObject) -> JsonObject:
        """``shutdown``: answer, then stop as SIGTERM does (rfcs/0001 §11)."""
        peer = call.connection
        self.log.info("shutdown requested by pid %s (uid %s)", peer.pid, peer.uid)
        if self._server is not None:
            # Scheduled, not called: this call's reply is written before the shutdown begins,
            # and the shutdown then drains it to the caller like any other pending output.
            asyncio.get_running_loop().call_soon(self._server.stop)
        return {"pid": os.getpid()}

    def shared_handlers(self) -> dict[str, Handler]:
        """Handlers for the shared bundles' daemon verbs (rfcs/0001, rfcs/0003)."""
        return {
            "events": self.events.handle,
            "config.get": self.config.get,
            "config.set": self.config.set,
            "config.check": self.config.check,
            "config.reload": self.config.reload,
            "config.schema": self.config.schema,
            "skill": self.skill.skill,
            "skill.install": self.skill.install,
            "doctor": self.doctor,
            "shutdown": self.shutdown,
            "token.issue": self.tokens.issue,
            "token.list": self.tokens.list,
            "token.revoke": self.tokens.revoke,
            "manifest": self.manifest,
        }

    def grants_for(self, connection: ConnectionInfo) -> Container[str]:
        """The grants a connection holds (rfcs/0005-local-grants.md).

        The registry asks once per connection and caches the answer on it
        (``ConnectionInfo.grants``), so the constant-time token comparison runs once; an
        issued token's set is live, re-read before each admission, and a connection whose
        token stopped counting is closed (rfcs/0005 §7.4, rfcs/0006 §2.4).
        """
        return grants_for_connection(connection, self.token, self.tokens)

    def verbs(self) -> dict[str, VerbHandler]:
        """Every daemon verb's handler, shared and the product's, wrapped by the registry.

        Raises `venom_schema.registry.RegistryError` when they do not match the model.
        """
        handlers = {**self.shared_handlers(), **self.product.handlers_for(self)}
        return build_verbs(self.model, handlers, grants_for=self.grants_for)

    def server(self, verbs: Mapping[str, VerbHandler] | None = None) -> Server:
        """The proto server with every handler wrapped by the registry (or with ``verbs``,
        which `verbs` built)."""
        # Kept for shutdown, which stops the server that serves it.
        server = self._server = Server(
            self.product.tool,
            self.product.version,
            dict(self.verbs() if verbs is None else verbs),
            frame_handlers=self.product.frame_handlers_for(self),
            schema=self.digest,
            report_to=functools.partial(_report_location, self.product.tool),
        )
        self.tokens.attach(server.close_connections)
        return server


#: Project-URL labels of a bug tracker, in the order tried (lowercase; PEP 753's normalized
#: ``issues`` first), then a home page.
_REPORT_LABELS = ("issues", "issue tracker", "bug tracker", "bugs", "tracker", "homepage")


def _report_location(distribution: str) -> str | None:
    """Where to report a bug in the product ``distribution`` (its tool name): the issue
    tracker among its ``Project-URL``s, else its home page; None when it is not installed or
    names neither. Read from its package metadata when an internal error first needs it
    (rfcs/0004-schema-decisions.md D-S59), never at start-up."""
    from importlib.metadata import PackageNotFoundError, metadata

    try:
        meta = metadata(distribution)
    except PackageNotFoundError:
        return None
    urls: dict[str, str] = {}
    for entry in meta.get_all("Project-URL") or []:
        label, _, url = entry.partition(",")
        urls.setdefault(label.strip().lower().replace("-", " ").replace("_", " "), url.strip())
    for label in _REPORT_LABELS:
        if urls.get(label):
            return urls[label]
    home = meta.get_all("Home-page") or []
    return str(home[0]) if home else None


def _registry_mismatch(err: RegistryError) -> VenomError:
    """The start-up refusal for handlers that do not match the model's daemon verbs.

    One line naming both sets, exit 2 like a bad configuration (an author's mistake, not the
    daemon's), with the sets as data for ``--json`` (rfcs/0004 D-S37).
    """
    shown = ", ".join
    message = (
        "the handlers do not match the model's daemon verbs: "
        f"missing handlers: {shown(err.missing) or '(none)'}; "
        f"handlers for no daemon verb: {shown(err.extra) or '(none)'}"
    )
    if err.problems:
        message += "; " + "; ".join(err.problems)
    return VenomError(
        "invalid_params.handlers",
        message,
        {"missing": err.missing, "extra": err.extra, "problems": err.problems},
    )


def _setup_logging(tool: str) -> None:
    level = os.environ.get(env_var(tool, "LOG"), "info").upper()
    handler = logging.StreamHandler(sys.stderr)
    try:
        stderr_fd: int | None = sys.stderr.fileno()
    except (OSError, ValueError):  # stderr replaced by an object with no descriptor
        stderr_fd = None
    if stderr_fd is not None and journal_stream_matches(os.environ, stderr_fd):
        # The journal stamps each line itself and reads the priority from the `<N>` prefix.
        handler.setFormatter(JournalFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=getattr(logging, level, logging.INFO), handlers=[handler])


#: How long a daemon replaced under ``serve --reload`` keeps answering its connections.
_RELOAD_DRAIN = 5.0


def _refresh_model(model_path: str) -> None:
    """Under ``serve --reload``: recompile the cached model when its manifest changed (the
    ``verbs.zon`` beside ``verbs.model.json``), so an edited manifest is checked and served
    without a separate build step. Raises ``invalid_params.manifest`` for an invalid one."""
    from venom_proto.model_cache import cache_path

    folder = os.path.dirname(model_path) or "."
    manifests = [
        os.path.join(folder, name)
        for name in sorted(os.listdir(folder))
        if name.endswith(".zon") and cache_path(os.path.join(folder, name)) == model_path
    ]
    if not manifests:
        return  # a product shipping its model alone: nothing to recompile
    manifest = manifests[0]
    from venom_schema.manifest import ManifestError
    from venom_schema.model_cache import compile_model
    from venom_schema.zon import ZonError

    bundles: list[str] | None = None
    with contextlib.suppress(VenomError):  # an unreadable cache gets the default bundles
        bundles = load_cache_info(model_path).get("bundles")
    try:
        compile_model(manifest, model_path, bundles=bundles)
    except (ManifestError, ZonError) as exc:
        lines = str(exc).splitlines()
        raise VenomError(
            "invalid_params.manifest",
            "; ".join(lines),
            {"manifest": manifest, "problems": lines},
        ) from None
    except OSError as exc:
        raise VenomError(
            "failed.model", f"cannot refresh {model_path}: {exc.strerror or exc}"
        ) from None


def serve(
    product: Product,
    socket_flag: str | None,
    environ: Mapping[str, str],
    *,
    json_errors: bool = False,
) -> int:
    """``<tool> serve``: run the daemon in the foreground until SIGTERM or SIGINT.

    A refusal to start is logged on stderr and, with ``--json``, also printed as the
    ``{"error": ...}`` wrapper on stdout (RFC-0002 §7.3); the exit status is its class's.
    Under ``serve --reload`` (a supervisor's channel in the environment) the daemon first
    checks the changed product, then serves on the supervisor's socket once told to, keeping
    the supervisor's owner token.
    """
    handover = take_handover()
    _setup_logging(product.tool)
    log = logging.getLogger(product.tool)

    def refuse(err: VenomError) -> int:
        log.error("%s (%s)", err.message, err.code)
        if json_errors:
            line = json.dumps({"error": err.to_object()}, separators=(",", ":"))
            sys.stdout.write(line + "\n")
            sys.stdout.flush()
        return err.exit_code

    try:
        path = resolve_socket_path(product.tool, socket_flag, environ)
        if handover is not None:
            _refresh_model(product.model_path)
        app = App(product, path)
        server = app.server()
    except VenomError as err:
        return refuse(err)
    except RegistryError as err:
        return refuse(_registry_mismatch(err))
    if handover is not None:
        if not handover.ready():
            return 0  # superseded by a newer change before it served
        # Replaced by the next version: the calls it holds finish rather than end cancelled.
        server.drain = _RELOAD_DRAIN

    def locked(where: str) -> None:
        # Only the daemon that won the lock writes the token (a losing racer can't clobber it),
        # and before the socket exists, so no client ever connects without finding it.
        app.token = _owner_token(where, handover)

    def ready(where: str) -> None:
        log.info("listening on %s (pid %d, schema %s)", where, os.getpid(), app.digest)
        sys.stderr.flush()
        if handover is not None:
            handover.serving()

    try:
        run = functools.partial(server.run, path, ready=ready, on_locked=locked)
        anyio.run(run, backend="asyncio")
    except VenomError as err:
        return refuse(err)
    finally:
        # Under reload the token is the supervisor's: the next daemon keeps it, so a client
        # that read it before the swap is still the owner after it.
        if app.token is not None and handover is None:
            remove_owner_token(path)
    log.info("stopped")
    return 0


def _owner_token(socket_path: str, handover: Handover | None) -> OwnerToken:
    """A fresh owner token, or under ``serve --reload`` the one the supervisor wrote."""
    if handover is not None:
        current = read_owner_token(socket_path)
        if current is not None:
            return OwnerToken(current)
    return install_owner_token(socket_path)
