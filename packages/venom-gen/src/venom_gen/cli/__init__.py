"""The generated command-line interface of any Venom product (RFC-0004 §4, RFC-0002 §7.3).

``main(model_path, argv=..., local=..., version=...)`` reads the product's cached normalized
model, parses argv into one verb call, validates it exactly as the daemon would, sends it over
the product's socket and prints the outcome. See ``_argv`` for the grammar and its error codes.
"""

from ._run import main

__all__ = ("main",)
