"""The generated command-line interface of any Venom product (RFC-0004 §4, RFC-0002 §7.3).

``main(model_path, argv=..., local=..., version=...)`` reads the product's cached normalized
model, parses argv into one verb call, validates it exactly as the daemon would, sends it over
the product's socket and prints the outcome. `build_tree` and `parse_argv` are the command tree
and argv grammar it runs on (see ``_argv`` for the grammar and its error codes); the shell
completions are generated from the same tree.

On the path of every CLI call: these modules import no ``typing``, ``json`` or ``re``.
"""

from ._argv import ArgvError, Invocation, flag_value, parse_argv
from ._run import main
from ._tree import Command, CommandTree, build_tree

__all__ = (
    "ArgvError",
    "Command",
    "CommandTree",
    "Invocation",
    "build_tree",
    "flag_value",
    "main",
    "parse_argv",
)
