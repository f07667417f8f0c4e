"""The argv grammar of every generated CLI (RFC-0004 §4), independent of any daemon.

Parsing runs in two passes. The first walks the tokens once: non-option tokens select commands
(canonical spaced tokens, or an exact dotted wire name as the first token), and every option
except the switches ``--json``/``--help`` (also spelt ``-h``) and, before any command, the global
``--version`` takes a value, inline (``--x=v``) or as the next token unless that token starts
with ``-``. Because booleans must be written ``--x=true``, this is
decidable without knowing the verb. The second pass checks the options against the chosen verb.

Error codes (all exit 2, RFC-0002 §7.2 ``invalid_params``):

- ``invalid_params.usage`` (data ``{"arg": token}``, or ``{"command": path}`` when a command
  is missing): unknown command token, a token after ``--``, a short option other than ``-h``,
  a missing value, a repeated option, a value given to a switch, a bare boolean or
  ``--flag true``, a param option before the command, ``--version`` with a command or another
  option, or a command, option name or ``--socket`` path that is not valid UTF-8 (``data.arg``
  then shows each such byte as ``\\xNN``; param values that are not UTF-8 are
  ``invalid_params.type`` of that param, see "Option values" below).
- ``invalid_params.unknown`` (data ``{"param": name}``): an option that names no param of the
  verb, the same code the daemon uses for an unknown param.
- ``invalid_params.type`` / ``.range`` (data ``{"param": name}``): a malformed value; see
  "Option values" below. Everything else (missing, enum, declared bounds) is left to the validator.

Unknown commands and options name the nearest spellings ("did you mean"), computed only then.
"""

from __future__ import annotations

from venom_proto import VenomError
from venom_proto.stdjson import std_dumps, std_loads
from venom_schema.names import flag_name

from ._output import printable
from ._tree import Command, CommandTree

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would cost every call ~3 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from venom_schema.model import Descriptor, Field

__all__ = (
    "MAX_SAFE_INTEGER",
    "USAGE",
    "ArgvError",
    "Invocation",
    "convert_value",
    "flag_value",
    "parse_argv",
    "wants_json",
)

#: The code of every CLI usage error that is not about one param's value.
USAGE = "invalid_params.usage"
_SWITCHES = ("json", "help")


class ArgvError(VenomError):
    """Raised by `parse_argv`; ``path`` is the command whose help the user should read."""

    __slots__ = ("path",)

    def __init__(self, code: str, message: str, data: dict[str, Any], path: tuple[str, ...]):
        super().__init__(code, message, data)
        self.path = path


class Invocation:
    """A parsed command line: the command, its params and the client options."""

    __slots__ = ("command", "help", "json", "params", "rest", "socket", "version")

    def __init__(
        self,
        command: Command,
        params: dict[str, Any],
        *,
        json: bool,
        socket: str | None,
        help: bool,
        rest: tuple[str, ...],
        version: bool = False,
    ) -> None:
        self.command = command
        self.params = params
        self.json = json
        self.socket = socket
        self.help = help
        #: argv without the command tokens, handed to local (in-process) verbs.
        self.rest = rest
        #: ``<tool> --version``: the global option, before any command.
        self.version = version


class _Option:
    """One ``--name[=value]`` (or stray ``-x``) token as scanned, before the verb is known."""

    __slots__ = ("after_command", "inline", "name", "next_token", "short", "token", "value")

    def __init__(
        self, token: str, name: str, value: str | None, *, inline: bool, after_command: bool
    ) -> None:
        self.token = token
        self.name = name
        self.value = value
        self.inline = inline
        self.after_command = after_command
        self.next_token: str | None = None
        self.short = False


def wants_json(argv: Sequence[str]) -> bool:
    """Whether ``--json`` was given, so that even usage errors print the JSON wrapper."""
    for token in argv:
        if token == "--":
            return False
        if token == "--json":
            return True
    return False


def _usage(message: str, data: dict[str, Any], node: Command) -> ArgvError:
    return ArgvError(USAGE, message, data, node.path)


def _check_utf8(token: str, node: Command) -> None:
    """Refuse a token that is not UTF-8 (argv bytes arrive as surrogate escapes)."""
    if token.isascii():
        return
    try:
        token.encode("utf-8")
    except UnicodeEncodeError:
        shown = printable(token)
        raise _usage(f"argument '{shown}' is not valid UTF-8", {"arg": shown}, node) from None


def _child(tree: CommandTree, node: Command, token: str) -> Command | None:
    if node is tree.root and token in tree.by_wire:
        return tree.by_wire[token]
    return node.children.get(token)


def _unknown_command(tree: CommandTree, node: Command, token: str) -> ArgvError:
    if not node.children:
        where = " ".join(node.path)
        return _usage(
            f"unexpected argument {token!r}: {where} takes no arguments", {"arg": token}, node
        )
    from ._suggest import did_you_mean

    where = f" for {' '.join(node.path)!r}" if node.path else ""
    # A dotted token is a misspelt wire name (accepted as one word at the root).
    dotted = node is tree.root and "." in token
    hint = did_you_mean(token, tree.by_wire if dotted else node.children, prefix="")
    return _usage(f"unknown command {token!r}{where}{hint}", {"arg": token}, node)


def _scan(argv: Sequence[str], tree: CommandTree) -> tuple[Command, list[_Option], set[int]]:
    node, options, commands = tree.root, [], set()
    ended = False
    i = 0
    while i < len(argv):
        token = argv[i]
        i += 1
        # Option values are checked with the value ("Option values" and ``--socket`` below).
        _check_utf8(token.partition("=")[0] if token.startswith("--") else token, node)
        if ended:
            raise _usage(f"unexpected argument {token!r} after '--'", {"arg": token}, node)
        if token == "--":
            ended = True
        elif token.startswith("--"):
            name, eq, value = token[2:].partition("=")
            opt = _Option(
                token,
                name,
                value if eq else None,
                inline=bool(eq),
                after_command=node is not tree.root,
            )
            # Before any command --version is the global switch; after one it may be a param.
            switch = name in _SWITCHES or (name == "version" and node is tree.root)
            if not eq and not switch:
                following = argv[i] if i < len(argv) else None
                if following is not None and not following.startswith("-"):
                    opt.value = following
                    i += 1
                else:
                    opt.next_token = following
            options.append(opt)
        elif token == "-h":  # the one short option: --help's conventional spelling
            options.append(_Option(token, "help", None, inline=False, after_command=True))
        elif token.startswith("-") and token != "-":
            opt = _Option(token, token, None, inline=False, after_command=True)
            opt.short = True
            options.append(opt)
        else:
            child = _child(tree, node, token)
            if child is None:
                raise _unknown_command(tree, node, token)
            node = child
            commands.add(i - 1)
    return node, options, commands


def _missing_command(node: Command) -> ArgvError:
    if not node.path:
        return _usage("missing command", {"command": ""}, node)
    names = ", ".join(sorted(node.children))
    where = " ".join(node.path)
    return _usage(f"missing subcommand for {where!r}; one of: {names}", {"command": where}, node)


def _param_value(opt: _Option, param: Field, node: Command) -> Any:
    flag, name, desc = "--" + opt.name, str(param["name"]), param["type"]
    if desc.get("kind") == "boolean" and not opt.inline:
        raise _usage(
            f"boolean option {flag} takes =true or =false, as {flag}=true", {"arg": opt.token}, node
        )
    if opt.value is None:
        hint = ""
        if opt.next_token is not None:
            hint = f"; a value starting with '-' needs the form {flag}={opt.next_token}"
        raise _usage(f"option {flag} needs a value{hint}", {"arg": opt.token}, node)
    try:
        return convert_value(desc, opt.value, flag=flag, param=name)
    except VenomError as exc:
        raise ArgvError(exc.code, exc.message, exc.data or {}, node.path) from None


def parse_argv(argv: Sequence[str], tree: CommandTree) -> Invocation:
    """Parse ``argv`` (without the program name) against ``tree``; raise `ArgvError` on misuse.

    With ``--help`` anywhere before ``--``, only command tokens are checked and the result has
    ``help=True``; option errors then do not matter.
    """
    node, options, commands = _scan(argv, tree)
    rest = tuple(tok for i, tok in enumerate(argv) if i not in commands)
    json_mode = any(o.name == "json" and not o.inline for o in options)
    if any(o.name == "help" and not o.inline for o in options):
        return Invocation(node, {}, json=json_mode, socket=None, help=True, rest=rest)
    if any(o.name == "version" and not o.after_command for o in options):
        return _version(node, options, json_mode, rest)
    if node.verb is None:
        raise _missing_command(node)
    by_flag = {flag_name(str(p["name"]))[2:]: p for p in node.verb["params"]}
    seen: set[str] = set()
    params: dict[str, Any] = {}
    socket: str | None = None
    for opt in options:
        if opt.short:
            raise _usage(
                f"unknown option {opt.token} (there are no short options)", {"arg": opt.token}, node
            )
        if opt.name in seen:
            raise _usage(f"option --{opt.name} given more than once", {"arg": opt.token}, node)
        if opt.name in _SWITCHES:
            if opt.inline:
                raise _usage(
                    f"--{opt.name} is a switch and takes no value", {"arg": opt.token}, node
                )
        elif opt.name == "socket":
            if not opt.value:
                raise _usage("option --socket needs a path", {"arg": opt.token}, node)
            _check_utf8(opt.value, node)
            socket = opt.value
        elif opt.name not in by_flag:
            raise _unknown_flag(opt, by_flag, node)
        elif not opt.after_command:
            raise _usage(f"option {opt.token} must follow the command", {"arg": opt.token}, node)
        else:
            param = by_flag[opt.name]
            params[str(param["name"])] = _param_value(opt, param, node)
        seen.add(opt.name)
    return Invocation(node, params, json=json_mode, socket=socket, help=False, rest=rest)


def _version(
    node: Command, options: Sequence[_Option], json_mode: bool, rest: tuple[str, ...]
) -> Invocation:
    """``<tool> --version [--json]``: nothing else may come with it."""
    for opt in options:
        if opt.name == "version" and opt.inline:
            raise _usage("--version is a switch and takes no value", {"arg": opt.token}, node)
        if opt.name not in ("version", "json"):
            raise _usage(f"--version takes no other option than --json, got {opt.token}",
                         {"arg": opt.token}, node)  # fmt: skip
    if node.path:
        command = " ".join(node.path)
        message = f"--version goes alone, before any command (got {command!r})"
        raise ArgvError(USAGE, message, {"arg": "--version"}, ())
    return Invocation(node, {}, json=json_mode, socket=None, help=False, rest=rest, version=True)


def _unknown_flag(opt: _Option, by_flag: Mapping[str, Field], node: Command) -> ArgvError:
    if opt.name.replace("_", "-") in by_flag:  # --max_grant: the param's name, not its flag
        hint = f"; did you mean '--{opt.name.replace('_', '-')}'?"
    else:
        from ._suggest import did_you_mean

        hint = did_you_mean(opt.name, [*by_flag, *_SWITCHES, "socket"], prefix="--")
    param = opt.name.replace("-", "_")
    return ArgvError(
        "invalid_params.unknown", f"unknown option --{opt.name}{hint}", {"param": param}, node.path
    )


def flag_value(rest: Sequence[str], name: str) -> str | None:
    """The value of option ``name`` (``--x v`` or ``--x=v``) in a local verb's argv.

    `parse_argv` has already checked the argv; a local verb only reads its options back.
    """
    for i, arg in enumerate(rest):
        if arg == name and i + 1 < len(rest):
            return rest[i + 1]
        if arg.startswith(name + "="):
            return arg.partition("=")[2]
    return None


# ------------------------------------------------------------------------------------------------
# Option values to JSON values, by the param's type descriptor (RFC-0004 §4).
#
# Spellings, chosen once for every product:
#
# - ``string``: the token verbatim. ``--text null`` sends the *string* ``"null"``: params are
#   never nullable in format 1 (RFC-0004 §3), so the one valid reading of ``null`` for a string
#   param is the string itself.
# - ``integer``: ASCII decimal digits with an optional leading ``-`` (``+5``, ``5.0``, ``1e3``
#   and ``0x10`` are refused, like in JSON). Magnitudes beyond 2**53-1 fail with ``.range``,
#   the RFC-0002 §4.1 wire limit; declared ``min``/``max`` are left to the validator.
# - ``number``: JSON number syntax only (no ``+1``, ``1.``, ``.5``, ``inf``, ``nan``), read as
#   the daemon's JSON decoder reads the same literal: without fraction or exponent it is an
#   integer, held to ±(2**53-1) with ``.range`` (never rounded to a double); with one it is a
#   double, and one that overflows (``1e999``) fails with ``.range``.
# - ``boolean``: ``true`` or ``false`` (the parser insists on the ``--x=true`` form).
# - ``null`` kind: the literal ``null``.
# - ``array`` and ``object``: exactly one strict JSON document (no NaN, no lone surrogates).
# - For every non-string kind the literal ``null`` becomes JSON null, which the validator then
#   refuses with ``invalid_params.type``, exactly as the daemon would.
#
# Malformed values raise ``invalid_params.type`` (``.range`` for the limits above) with
# ``data.param`` naming the param, the same shape the validator uses.


#: RFC-0002 §4.1 / RFC-0004 §3: integers must survive every JSON parser exactly.
MAX_SAFE_INTEGER = 2**53 - 1

_SHOWN = 40
_INF = float("inf")

# The integer and number grammars below are checked by hand, not with regexes: importing `re`
# (with enum, functools...) would cost every CLI call a few ms.


def _is_digits(text: str) -> bool:
    """``[0-9]+``: ASCII digits only (``str.isdigit`` alone also accepts ``²`` or ``٣``)."""
    return text.isascii() and text.isdigit()


def _unsigned(text: str, signs: str) -> str:
    return text[1:] if text[:1] and text[0] in signs else text


def _number_shape(text: str) -> bool | None:
    """Whether a JSON number has a fraction or exponent; ``None`` if ``text`` is no JSON number.

    The grammar is ``-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?`` (RFC 8259 §6).
    """
    mantissa, exp_mark, exponent = _unsigned(text, "-").replace("E", "e").partition("e")
    integer, dot, fraction = mantissa.partition(".")
    if not _is_digits(integer) or (len(integer) > 1 and integer[0] == "0"):
        return None
    if dot and not _is_digits(fraction):
        return None
    if exp_mark and not _is_digits(_unsigned(exponent, "+-")):
        return None
    return bool(dot or exp_mark)


def _show(text: str) -> str:
    shown = text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."
    return repr(shown)


def _fail(reason: str, flag: str, param: str, problem: str) -> VenomError:
    return VenomError(f"invalid_params.{reason}", f"{flag}: {problem}", {"param": param})


def _integer(text: str, flag: str, param: str) -> int:
    if not _is_digits(_unsigned(text, "-")):
        raise _fail("type", flag, param, f"expected an integer (decimal digits), got {_show(text)}")
    return _safe_integer(text, flag, param)


def _safe_integer(text: str, flag: str, param: str) -> int:
    digits = text.lstrip("-").lstrip("0")
    # Check the length first: int() refuses very long digit strings with its own ValueError.
    if len(digits) > len(str(MAX_SAFE_INTEGER)) or int(digits or "0") > MAX_SAFE_INTEGER:
        raise _fail("range", flag, param, f"integer {_show(text)} is beyond ±{MAX_SAFE_INTEGER}")
    return int(text)


def _number(text: str, flag: str, param: str) -> int | float:
    shape = _number_shape(text)
    if shape is None:
        raise _fail("type", flag, param, f"expected a JSON number, got {_show(text)}")
    if not shape:
        # An integer literal stays an integer, as in the daemon's JSON decoder, so one beyond
        # the RFC-0002 §4.1 range fails with .range instead of being rounded to a double.
        return _safe_integer(text, flag, param)
    value = float(text)
    if not -_INF < value < _INF:
        raise _fail("range", flag, param, f"number {_show(text)} is not a finite double")
    return value


def _json_document(desc: Descriptor, text: str, flag: str, param: str) -> Any:
    try:
        return std_loads(text.encode("utf-8"))
    except ValueError:
        # The decoder's "Extra data: line 1 column 2" names no fix: say what the flag takes.
        raise _fail("type", flag, param, _json_hint(desc, text, flag)) from None


#: A sample JSON value per item kind, for the example in a JSON flag's error.
_SAMPLES = {"string": '"a"', "integer": "1", "number": "1.5", "boolean": "true", "null": "null"}


def _json_hint(desc: Descriptor, text: str, flag: str) -> str:
    """``takes one JSON value, an array (e.g. --tags '[1,2]'); got '1,2'``."""
    if desc.get("kind") == "array":
        what, example = "an array", "[" + ",".join(text.split()) + "]"
        try:  # '1,2', '1 2' or '"a","b"' are the items of the array the user meant
            std_loads(example.encode("utf-8"))
        except ValueError:
            items = desc.get("items")
            kind = str(items["kind"]) if items is not None else ""
            if kind == "string":  # 'a,b' meant ["a","b"]
                words = (std_dumps(word).decode("utf-8") for word in text.split(","))
                example = "[" + ",".join(words) + "]"
            else:
                sample = _SAMPLES.get(kind, "{}")
                example = f"[{sample},{sample}]"
    else:
        fields = desc.get("fields") or []
        what = "an object"
        example = "{" + ",".join(f'"{f["name"]}":...' for f in fields[:2]) + "}"
    quoted = "'" + example.replace("'", "'\\''") + "'"
    return f"takes one JSON value, {what} (e.g. {flag} {quoted}); got {_show(text)}"


def convert_value(desc: Descriptor, text: str, *, flag: str, param: str) -> Any:
    """Turn one option value into the JSON value sent as ``params[param]``."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # argv bytes that are not UTF-8 arrive as surrogate escapes; JSON cannot carry them.
        raise _fail("type", flag, param, "value is not valid UTF-8") from None
    kind = desc.get("kind")
    if kind == "string":
        return text
    if kind in ("array", "object"):
        return _json_document(desc, text, flag, param)
    if text == "null":
        return None
    if kind == "boolean":
        if text in ("true", "false"):
            return text == "true"
        raise _fail("type", flag, param, f"expected true or false, got {_show(text)}")
    if kind == "integer":
        return _integer(text, flag, param)
    if kind == "number":
        return _number(text, flag, param)
    raise _fail("type", flag, param, f"expected null, got {_show(text)}")
