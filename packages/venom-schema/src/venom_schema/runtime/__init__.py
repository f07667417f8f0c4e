"""Runtime validation of params, results and stream items (RFC-0004 §2, §3).

Light by design: it is on the CLI's path for client-side validation, so it imports only the
standard library and venom-proto's `VenomError` (no ZON reader, no pydantic). Descriptors are
compiled once into closures; see ``_compile`` for the failure order and ``_checks`` for the JSON
number semantics (bool is not an integer; ``1.0`` is the integer 1; NaN and inf are rejected).
"""

from __future__ import annotations

from ._checks import DescriptorError
from ._compile import CompiledVerb, compile_descriptor, compile_params, compile_verb

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would cost every CLI call ~3 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from ._compile import Validator

__all__ = (
    "CompiledVerb",
    "DescriptorError",
    "Validator",
    "compile_descriptor",
    "compile_params",
    "compile_verb",
)


def __getattr__(name: str) -> object:
    # `Validator` is an annotation-only alias; it is built on first import (PEP 562) because
    # building it needs `typing`, which the CLI's verb-call path never imports.
    if name == "Validator":
        from collections.abc import Callable
        from typing import Any

        validator = Callable[[Any], Any]
        globals()[name] = validator  # later lookups skip __getattr__
        return validator
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
