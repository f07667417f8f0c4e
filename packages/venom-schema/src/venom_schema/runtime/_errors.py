"""Validation failures: the internal signal raised by compiled validators and its wire form.

Compiled validators never build paths on the success path. A failure raises `Invalid` with the
innermost path component; every enclosing object or array appends its own component while the
exception unwinds, so the path is stored innermost-first and reversed once at the boundary.
"""

from __future__ import annotations

from venom_proto import VenomError

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would cost every CLI call ~3 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

    #: Which boundary a validator guards: caller input, a final result, or one stream item.
    Kind = Literal["params", "result", "item"]
    #: The refinement of ``invalid_params`` (RFC-0004 §3) that a failure maps to.
    Reason = Literal["unknown", "missing", "type", "enum", "range"]

__all__ = (
    "DescriptorError",
    "Invalid",
    "json_type_name",
    "short_repr",
    "to_error",
)

_MAX_REPR = 60
_MAX_PATH = 120


class DescriptorError(ValueError):
    """Raised by `compile_descriptor`/`compile_verb` for a descriptor that is not normalized."""


class Invalid(Exception):
    """A value failed a compiled check; ``path`` holds components innermost-first."""

    __slots__ = ("path", "problem", "reason")

    def __init__(self, reason: Reason, problem: str, path: list[str] | None = None) -> None:
        super().__init__(reason, problem)
        self.reason: Reason = reason
        self.problem = problem
        self.path: list[str] = [] if path is None else path


_TYPE_NAMES: dict[type, str] = {
    bool: "boolean",
    type(None): "null",
    int: "integer",
    float: "number",
    str: "string",
    list: "array",
    dict: "object",
}


def json_type_name(value: Any) -> str:
    """The JSON type of ``value`` for messages (``boolean`` before ``integer``: bool is an int)."""
    for cls, name in _TYPE_NAMES.items():
        if isinstance(value, cls):
            return name
    return type(value).__name__


def short_repr(value: Any) -> str:
    """A one-line, bounded rendering of a scalar for an error message."""
    try:
        text = repr(value)
    except ValueError:  # ints beyond sys.get_int_max_str_digits() refuse to print
        return "<integer too large to print>"
    return text if len(text) <= _MAX_REPR else text[: _MAX_REPR - 3] + "..."


def _shown(path: str) -> str:
    """The path as a message shows it: one line (RFC-0002 §7.1) and bounded.

    Unknown member names come from the caller and may hold newlines or be huge; ``data`` keeps
    the exact path, the message only needs to be readable.
    """
    if not path.isprintable():
        path = path.encode("unicode_escape").decode("ascii")
    return path if len(path) <= _MAX_PATH else path[: _MAX_PATH - 3] + "..."


def to_error(invalid: Invalid, kind: Kind) -> VenomError:
    """The RFC-0004 §3 error for a failure: ``invalid_params.*`` or ``internal.result``."""
    path = ".".join(reversed(invalid.path))
    shown = _shown(path)
    if kind == "params":
        if invalid.reason == "missing":
            message = f"missing required param '{shown}'"
        elif invalid.reason == "unknown":
            message = f"unknown param '{shown}'"
        elif path:
            message = f"param '{shown}': {invalid.problem}"
        else:
            message = f"params: {invalid.problem}"
        return VenomError(f"invalid_params.{invalid.reason}", message, {"param": path})
    where = f"invalid {kind} at '{shown}'" if path else f"invalid {kind}"
    return VenomError(
        "internal.result",
        f"{where}: {invalid.problem}",
        {"path": path, "reason": invalid.reason},
    )
