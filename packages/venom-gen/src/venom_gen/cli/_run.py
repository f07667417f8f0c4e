"""The main flow of a generated CLI: model, argv, help, validation, dispatch, exit status.

Only ``os``, ``sys``, C accelerators (``_json``, ``_socket``), venom-proto's sync client and
local conventions, and venom-schema's light modules (``runtime``, ``surfaces``, ``names``) are
imported on the path of a verb call: not even ``typing``, ``json``, ``re`` or ``socket``, which
cost several ms of every call (tests/test_cli_process.py checks). Help text is built lazily.
"""

from __future__ import annotations

import gc
import os
import sys

from venom_proto import VenomError
from venom_proto.conventions import resolve_socket_path
from venom_proto.model_cache import load_model
from venom_schema.surfaces import shown_on

from ._argv import ArgvError, parse_argv, wants_json
from ._call import call_daemon, connect_timeout, sync_connect
from ._output import ClosedStdout, Output, OutputLost, silence_stdout
from ._tree import CommandTree, build_tree

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would cost every call ~3 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import IO, TextIO

    from venom_schema.model import Model, Verb

    from ._protocols import CompiledVerb, Connect, StartupSession

    LocalVerb = Callable[[list[str]], int]

__all__ = ("EXIT_BROKEN_PIPE", "EXIT_OUTPUT_LOST", "main", "run_process")

#: Exit status after the reader of stdout went away: the shell's 128 + SIGPIPE.
EXIT_BROKEN_PIPE = 141
#: Exit status when a successful outcome could not be written to stdout (RFC-0002 ``failed``).
EXIT_OUTPUT_LOST = 1


def _compile(verb: Verb) -> CompiledVerb:
    from venom_schema.runtime import compile_verb

    try:
        compiled: CompiledVerb = compile_verb(verb)
    except ValueError as exc:  # DescriptorError: the cached model is not normalized
        raise VenomError("internal.model", f"verb {verb.get('name')!r}: {exc}") from None
    return compiled


def _startup_session() -> StartupSession | None:
    # The binary's start-up image, when venom_gen.startup started it: it keeps the model (our
    # own build output) decoded while the file is unchanged, and learns what this call runs.
    startup = sys.modules.get("venom_gen.startup")
    session: StartupSession | None = None if startup is None else startup._session()
    return session


def _load_model(model_path: str | os.PathLike[str], session: StartupSession | None) -> Model:
    if session is None:
        model: Model = load_model(model_path)
        return model
    cached: Model = session.load(os.fspath(model_path), load_model)
    return cached


def _socket_path(tool: str, flag: str | None, environ: Mapping[str, str]) -> str:
    # The sync client checks the length and the runtime directory (RFC-0002 §2.3, §2.4).
    try:
        return resolve_socket_path(tool, flag, environ)
    except ValueError as exc:  # a tool name that RFC-0002 §2.1 does not allow
        raise VenomError("internal.model", str(exc)) from None


def _hint(tree: CommandTree, path: tuple[str, ...]) -> str:
    return f"Try '{' '.join((tree.tool, *path, '--help'))}'."


def _print_version(
    model: Model, model_path: str | os.PathLike[str], version: str, out: Output
) -> int:
    """``<tool> --version``: ``tool version``; with ``--json`` also the schema digest."""
    if not out.json:
        out.text(f"{model['tool']} {version}")
        return 0
    from venom_proto.model_cache import load_cache_info

    # The digest compiled with the model (what doctor compares with hello.schema).
    schema = load_cache_info(model_path).get("digest")
    out.value({"tool": model["tool"], "version": version, "schema": schema})
    return 0


def _run(
    model_path: str | os.PathLike[str],
    argv: list[str],
    out: Output,
    *,
    local: Mapping[str, LocalVerb],
    version: str,
    connect: Connect,
    environ: Mapping[str, str],
) -> int:
    session = _startup_session()
    try:
        model = _load_model(model_path, session)
    except VenomError as exc:
        return out.error(exc)
    try:
        tree = build_tree(model)
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        return out.error(VenomError("internal.model", f"malformed verb in the CLI model: {exc!r}"))
    out.tool = tree.tool
    try:
        invocation = parse_argv(argv, tree)
    except ArgvError as exc:
        return out.error(exc, hint=_hint(tree, exc.path))
    command = invocation.command
    if invocation.version:
        return _print_version(model, model_path, version, out)
    if invocation.help:
        from ._help import render_help

        return out.help(render_help(model, tree, command))
    verb = command.verb
    assert verb is not None  # parse_argv returns a verb unless help was asked for
    try:
        compiled = _compile(verb)
        compiled.params(invocation.params)
    except VenomError as exc:
        hint = _hint(tree, command.path) if exc.code.startswith("invalid_params") else None
        return out.error(exc, hint=hint)
    name = verb["name"]
    try:
        handler = local.get(name)
        if handler is not None:  # a local verb, or a client-side override such as doctor
            if session is not None:
                session.dispatch("local")
            return handler(list(invocation.rest))
        if not shown_on(verb, "client"):  # a local verb this binary does not implement
            raise VenomError(
                "unsupported.verb", f"'{name}' is not available in this build", {"verb": name}
            )
        socket_path = _socket_path(tree.tool, invocation.socket, environ)
        bound = connect_timeout(tree.tool, environ)
        if session is not None:
            session.dispatch("daemon")
        return call_daemon(
            connect,
            socket_path,
            out=out,
            verb=verb,
            compiled=compiled,
            params=invocation.params,
            client_version=version,
            connect_timeout=bound,
            environ=environ,
            model_path=model_path,
        )
    except VenomError as exc:
        return out.error(exc)


def main(
    model_path: str | os.PathLike[str],
    *,
    argv: list[str] | None = None,
    local: Mapping[str, LocalVerb] | None = None,
    version: str = "0.0.0",
    connect: Connect | None = None,
    environ: Mapping[str, str] | None = None,
    stdout: IO[bytes] | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run the generated CLI for the product whose normalized model is at ``model_path``.

    ``argv`` defaults to ``sys.argv[1:]``; ``local`` supplies the in-process verbs (``serve``,
    ``mcp``) and client-side overrides of daemon verbs (``doctor`` runs its checks here so it
    can report a daemon that is down), each called, after validation, with argv minus the
    command tokens; ``version`` is sent in hello.
    ``connect``, ``environ``, ``stdout`` and ``stderr`` exist for tests and embedding. Returns
    the exit status (RFC-0002 §7.2); never raises for bad input, Ctrl-C or a closed stdout.
    Output that cannot be written (a closed or full stdout) makes a success exit 1 and leaves
    an error's own status as it is.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    program = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "venom"

    def body(out: Output) -> int:
        return _run(
            model_path,
            args,
            out,
            local={} if local is None else local,
            version=version,
            connect=sync_connect if connect is None else connect,
            environ=os.environ if environ is None else environ,
        )

    return run_process(
        program,
        args,
        body,
        own_process=argv is None,
        stdout=stdout,
        stderr=stderr,
        environ=environ,
    )


def run_process(
    program: str,
    args: list[str],
    body: Callable[[Output], int],
    *,
    own_process: bool,
    stdout: IO[bytes] | None,
    stderr: TextIO | None,
    environ: Mapping[str, str] | None,
) -> int:
    """The edge of a CLI process, the same for a product's binary and for ``venom``: the
    output (``--json`` or human text, on ``stdout``/``stderr`` or the process's own), then
    ``body(out)``, with Ctrl-C (``cancelled``, exit 8), a reader that went away (exit 141)
    and a success whose output was lost (exit 1) turned into exit statuses.
    ``own_process`` is true when ``args`` are the process's own command line."""
    if own_process:
        # The modules loaded so far live as long as the process. Out of the collector's
        # sight, its passes during the call stay short (a pass over them all cost ~0.7 ms of
        # every call); callers embedding a CLI keep their collector.
        gc.freeze()
    out_stream: IO[bytes] | ClosedStdout
    if stdout is not None:
        out_stream = stdout
    else:  # sys.stdout is None when the process started with fd 1 closed
        out_stream = ClosedStdout() if sys.stdout is None else sys.stdout.buffer
    out = Output(
        program,
        json=wants_json(args),
        stdout=out_stream,
        stderr=sys.stderr if stderr is None else stderr,
        environ=environ,
    )
    try:
        return body(out)
    except KeyboardInterrupt:
        try:
            return out.error(VenomError("cancelled", "cancelled by Ctrl-C"))
        except (KeyboardInterrupt, BrokenPipeError):
            return 8
    except BrokenPipeError:
        if not isinstance(out_stream, ClosedStdout):
            silence_stdout(out_stream)
        return EXIT_BROKEN_PIPE
    except OutputLost as lost:
        out.lost(lost)
        return EXIT_OUTPUT_LOST
