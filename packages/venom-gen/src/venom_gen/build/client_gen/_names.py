"""Python names for wire names: methods, keyword arguments, classes and generated types.

Methods are the wire name with each ``.`` replaced by ``_`` (``echo.repeat`` ->
``echo_repeat``), which reads naturally but is not injective (``a.b`` and ``a_b`` meet). Rather
than an ugly reversible escape, the generator refuses such a manifest with a `GenerationError`
naming both verbs. A name that is a Python keyword or a member of the client classes (``close``,
``connect``...) gets a trailing ``_``. Types are CamelCase paths (``EchoTypesParamsNested``);
every generated module-level name is checked for uniqueness the same way. Result, item and
error-data field names may be any text (RFC-0004 §2); they stay TypedDict keys verbatim, and
the types named after them use `member_camel`, made unique within each object.
"""

from __future__ import annotations

import keyword
import re

from venom_gen.render._views import GenerationError

__all__ = (
    "CLIENT_MEMBERS",
    "RUNTIME_NAMES",
    "GenerationError",
    "NameTable",
    "arg_name",
    "camel",
    "client_class",
    "member_camel",
    "method_name",
)

#: Members of the generated client classes that a verb method must not shadow: those of
#: `venom_proto.typed.TypedClient` and `AsyncTypedClient` (wire names start with a lowercase
#: letter, so the bases' ``_call`` and ``_stream`` are safe).
CLIENT_MEMBERS = frozenset(
    {"aclose", "client_name", "close", "connect", "hello_result", "raw", "schema_digest", "tool"}
)
#: Module-level names of the generated client besides its types, which the verb types must
#: leave free (the client imports them).
RUNTIME_NAMES = frozenset(
    {
        "ABSENT",
        "Absent",
        "AsyncStream",
        "AsyncTypedClient",
        "CLIENT_NAME",
        "Final",
        "SCHEMA_DIGEST",
        "Stream",
        "TOOL",
        "TypedClient",
        "VenomError",
        "cast",
    }
)

_RESERVED = "the generated runtime"
_SPLIT = re.compile(r"[._-]+")
_WORDS = re.compile(r"[A-Za-z0-9]+")


def camel(name: str) -> str:
    """``config.get`` -> ``ConfigGet``; ``venom-echo`` -> ``VenomEcho``."""
    return "".join(part[:1].upper() + part[1:] for part in _SPLIT.split(name) if part)


def member_camel(name: str) -> str:
    """A CamelCase identifier part for any field name (RFC-0004 §2 allows any name outside
    params): its ASCII letters and digits, capitalized word by word, as `camel` gives for
    parameter-style names (``created_at`` and ``createdAt`` -> ``CreatedAt``); ``Field`` when
    none are left (``😀``), and an ``N`` before a leading digit (``1st`` -> ``N1st``)."""
    part = "".join(word[:1].upper() + word[1:] for word in _WORDS.findall(name))
    if not part:
        return "Field"
    return "N" + part if part[0].isdigit() else part


def client_class(tool: str, *, is_async: bool) -> str:
    """``VenomEchoClient`` / ``AsyncVenomEchoClient``."""
    return ("Async" if is_async else "") + camel(tool) + "Client"


def _safe(name: str, taken: frozenset[str]) -> str:
    return name + "_" if keyword.iskeyword(name) or name in taken else name


def method_name(wire: str) -> str:
    """The client method for a wire name (see the module docstring)."""
    return _safe(wire.replace(".", "_"), CLIENT_MEMBERS)


def arg_name(param: str) -> str:
    """The keyword argument for a param: keywords and ``self`` get a trailing ``_``."""
    return _safe(param, frozenset({"self"}))


class NameTable:
    """Claims names in one namespace; a second claim of a name is a `GenerationError`."""

    def __init__(self, what: str, reserved: frozenset[str] = frozenset()) -> None:
        self._what = what
        self._owners: dict[str, str] = dict.fromkeys(reserved, _RESERVED)

    def claim(self, name: str, owner: str) -> str:
        """Record ``name`` for ``owner`` (for the error message) and return it."""
        previous = self._owners.setdefault(name, owner)
        if previous != owner:
            raise GenerationError(
                f"{self._what} {name!r} is generated for both {previous} and {owner}; "
                "rename one of them in the manifest"
            )
        return name

    def claimed(self) -> list[str]:
        """Every claimed name except the reserved ones, in claim order."""
        return [name for name, owner in self._owners.items() if owner != _RESERVED]
