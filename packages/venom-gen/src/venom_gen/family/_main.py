"""``venom``'s command line: ``ls``, ``describe`` and ``call``, their options and help.

The grammar is small and hand-read (``argparse`` would load ``re`` and ``gettext`` on every
call): options may come anywhere before ``--``; anything else is positional. Errors are the
product CLI's: ``invalid_params.usage`` (exit 2) with a hint, the ``{"error":...}`` wrapper
with ``--json``, and the exit codes of RFC-0002 §7.2. Each command's module is imported when it
runs, so ``venom call`` loads neither ``ls``'s socket probing nor ``describe``'s help renderer.
"""

from __future__ import annotations

import os
import sys

from venom_gen._version import VERSION
from venom_gen.cli._output import Output
from venom_gen.cli._run import run_process
from venom_proto import VenomError

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would cost every call ~3 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import IO, TextIO

__all__ = ("Args", "main", "parse_args")

PROGRAM = "venom"
#: Seconds ``venom ls`` waits for every hello together unless VENOM_CONNECT_TIMEOUT says.
LS_TIMEOUT = 3.0
#: Each command's positional arguments: (required, optional).
_ARITY = {"ls": (0, 0), "describe": (1, 1), "call": (2, 1)}

USAGE = {
    "ls": "venom ls [--json]",
    "describe": "venom describe TARGET [VERB] [--tool TOOL] [--json]",
    "call": "venom call TARGET VERB [PARAMS | -] [--tool TOOL] [--json]",
}
_TARGET = [
    "TARGET is a tool name (its socket found as that tool's own CLI finds it: $<TOOL>_SOCKET,",
    "then $XDG_RUNTIME_DIR/venom/<tool>.sock), a socket path, or an ssh:// URL",
    "(ssh://[user@]host[:port][/path/<tool>.sock]; --tool TOOL names the remote tool when",
    "the path does not). hello.auth is $<TOOL>_TOKEN when set, else, for a local socket,",
    "the owner token beside it.",
]
_EXIT = [
    "Exit status: 0 success, 1 failed, 2 invalid_params (usage, bad PARAMS), 3 not_found,",
    "4 denied, 5 conflict, 6 unavailable, 7 timeout, 8 cancelled (Ctrl-C), 9 protocol,",
    "10 unsupported (no such verb), 11 internal (a bad model); a verb with an exit policy",
    "exits with its result's status.",
]
HELP = {
    "": [
        "venom: the client of every Venom daemon: list them, read their verbs, call one.",
        "",
        "Usage: venom <command> [options]",
        "",
        "Commands:",
        "  ls        every daemon socket of this user, with hello's tool, version, schema",
        "  describe  a daemon's verbs, as its own CLI's --help shows them",
        "  call      call one verb with params as a JSON object, checked before sending",
        "",
        *_TARGET,
        "",
        "Global options:",
        '  --json      print JSON: the result, or {"error":...} on failure',
        "  -h, --help  show this help",
        "  --version   print the version",
        "",
        "Run 'venom <command> --help' for a command's arguments.",
        "",
        *_EXIT,
    ],
    "ls": [
        f"Usage: {USAGE['ls']}",
        "",
        "Lists every socket in this user's runtime directory ($XDG_RUNTIME_DIR/venom, else",
        "${TMPDIR:-/tmp}/venom-<uid>) with its tool, the listener's pid (peer credentials),",
        "and hello's version and schema digest. Nothing is removed or changed: a socket",
        "nobody listens on is 'stale', one of another user 'foreign' (never spoken to), one",
        "whose hello does not come within $VENOM_CONNECT_TIMEOUT (default 3 s) 'unresponsive'.",
    ],
    "describe": [
        f"Usage: {USAGE['describe']}",
        "",
        "Prints the daemon's verbs as '<tool> --help' prints them, or VERB's (a wire name",
        "such as config.get, or a group such as config) as '<tool> config get --help' does,",
        "from the model the daemon serves (its manifest verb; the digest is checked against",
        "hello's schema). With --json: the server, the digest, the model or the verbs' records,",
        "and the help text.",
        "",
        *_TARGET,
    ],
    "call": [
        f"Usage: {USAGE['call']}",
        "",
        "Calls VERB (its wire name, such as echo.repeat) with PARAMS, one JSON object",
        "(default {}; '-' reads it from standard input), checked against the daemon's own",
        "model before it is sent. Results and stream items print as the product's CLI prints",
        "them; items as they arrive. Ctrl-C cancels the call in the daemon (exit 8).",
        "",
        *_TARGET,
        "",
        'Example: venom call venom-echo echo.repeat \'{"text":"hi","count":2}\' --json',
    ],
}


class Args:
    """A parsed ``venom`` command line."""

    __slots__ = ("command", "help", "json", "positional", "tool", "version")

    def __init__(self) -> None:
        self.command = ""
        self.positional: list[str] = []
        self.json = False
        self.help = False
        self.version = False
        self.tool: str | None = None


def _usage(message: str, data: dict[str, object] | None = None) -> VenomError:
    return VenomError("invalid_params.usage", message, data or {})


def parse_args(argv: list[str]) -> Args:
    """Read argv; ``invalid_params.usage`` for what the grammar does not allow."""
    args = Args()
    tokens = iter(argv)
    positional: list[str] = []
    for token in tokens:
        if token == "--":
            positional.extend(tokens)
            break
        if token == "--json":
            args.json = True
        elif token in ("-h", "--help"):
            args.help = True
        elif token == "--version":
            args.version = True
        elif token == "--tool" or token.startswith("--tool="):
            value = token.partition("=")[2] if "=" in token else next(tokens, None)
            if not value or value.startswith("-"):
                raise _usage("--tool needs a tool name", {"option": "--tool"})
            args.tool = value
        elif token.startswith("-") and token != "-":
            raise _usage(f"unknown option '{token}'", {"option": token})
        else:
            positional.append(token)
    if positional:
        args.command, args.positional = positional[0], positional[1:]
    if args.help or args.version:
        if args.command and args.command not in _ARITY:
            raise _usage(f"unknown command '{args.command}'", {"command": args.command})
        return args
    if not args.command:
        raise _usage("a command is required: ls, describe or call", {})
    arity = _ARITY.get(args.command)
    if arity is None:
        raise _usage(f"unknown command '{args.command}'", {"command": args.command})
    required, optional = arity
    if not required <= len(args.positional) <= required + optional:
        raise _usage(
            f"usage: {USAGE[args.command]}",
            {"command": args.command, "args": len(args.positional)},
        )
    if args.tool is not None and args.command == "ls":
        raise _usage("--tool is for describe and call", {"option": "--tool"})
    return args


def _ls_timeout(environ: Mapping[str, str]) -> float:
    from venom_gen.cli._call import connect_timeout

    if environ.get("VENOM_CONNECT_TIMEOUT"):
        return connect_timeout(PROGRAM, environ)
    return LS_TIMEOUT


def _run(args: Args, out: Output, environ: Mapping[str, str], stdin: IO[bytes] | None) -> int:
    if args.version:
        if out.json:
            out.value({"tool": PROGRAM, "version": VERSION})
        else:
            out.text(f"{PROGRAM} {VERSION}")
        return 0
    if args.help:
        return out.help("\n".join(HELP[args.command]) + "\n")
    command, positional = args.command, args.positional
    if command == "call":
        from ._call import run_call

        params = positional[2] if len(positional) > 2 else None
        return run_call(
            positional[0],
            positional[1],
            params,
            tool=args.tool,
            out=out,
            environ=environ,
            stdin=stdin,
        )
    if command == "describe":
        from ._describe import run_describe

        verb = positional[1] if len(positional) > 1 else None
        return run_describe(positional[0], verb, tool=args.tool, out=out, environ=environ)
    from ._ls import run_ls

    return run_ls(out=out, environ=environ, timeout=_ls_timeout(environ))


def main(
    argv: list[str] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    stdin: IO[bytes] | None = None,
    stdout: IO[bytes] | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run ``venom`` on ``argv`` (default ``sys.argv[1:]``); returns the exit status.

    Never raises for bad input, an unreachable daemon, Ctrl-C or a closed stdout; the other
    arguments exist for tests and embedding.
    """
    args_list = list(sys.argv[1:] if argv is None else argv)

    def body(out: Output) -> int:
        try:
            try:
                args = parse_args(args_list)
            except VenomError as exc:
                command = next((t for t in args_list if t in _ARITY), "")
                hint = f"Try 'venom {command} --help'." if command else "Try 'venom --help'."
                return out.error(exc, hint=hint)
            return _run(args, out, os.environ if environ is None else environ, stdin)
        except VenomError as exc:
            return out.error(exc)

    return run_process(
        PROGRAM,
        args_list,
        body,
        own_process=argv is None,
        stdout=stdout,
        stderr=stderr,
        environ=environ,
    )
