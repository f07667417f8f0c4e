"""Runtime validation of params, results and stream items (RFC-0004 §2, §3).

Light by design: it is on the CLI's path for client-side validation, so it imports only the
standard library and ``venom_proto._core.errors`` (no ZON reader, no pydantic). Descriptors are
compiled once into closures; see ``_compile`` for the failure order and ``_scalars`` for the JSON
number semantics (bool is not an integer; ``1.0`` is the integer 1; NaN and inf are rejected).
"""

from ._compile import Validator, compile_descriptor, compile_params
from ._errors import DescriptorError
from ._verb import CompiledVerb, compile_verb, load_model

__all__ = (
    "CompiledVerb",
    "DescriptorError",
    "Validator",
    "compile_descriptor",
    "compile_params",
    "compile_verb",
    "load_model",
)
