"""Request ids and verb names (RFC-0002 4.1, 4.2, 4.5), and the error object, its classes and
their exit codes (section 7): one module, as error codes share the verb names' grammar and both
are on the path of every CLI call."""

from __future__ import annotations

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would cost the CLI ~2 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = (
    "CLASS_EXIT",
    "CORE_VERBS",
    "MAX_ID_BYTES",
    "MAX_SAFE_INT",
    "ProtocolViolation",
    "VenomError",
    "error_class",
    "exit_code_for",
    "is_valid_id",
    "is_verb_name",
)

#: RFC-0002 4.1: integers on the wire lie within ±(2**53-1).
MAX_SAFE_INT = 2**53 - 1
#: RFC-0002 4.2: a string id is at most 64 bytes of UTF-8.
MAX_ID_BYTES = 64
#: RFC-0002 4.5: the verbs proto answers itself, in every daemon; a tool cannot override them.
CORE_VERBS = frozenset({"hello", "cancel", "ping"})

# Verb names (and error codes, which share their grammar) are checked by hand, not with a regex:
# `re` (with enum, functools...) would cost every CLI call a few ms, and every client imports
# this module.
_NAME_START = frozenset("abcdefghijklmnopqrstuvwxyz")
_NAME_CHARS = _NAME_START | frozenset("0123456789_")


def is_valid_id(value: object) -> bool:
    """True for an int within ±(2**53-1) (``bool`` is not an int here) or a str of <= 64 bytes."""
    if type(value) is int:
        return -MAX_SAFE_INT <= value <= MAX_SAFE_INT
    if type(value) is str:
        # Cheap first: 16 or fewer code points are at most 64 bytes of UTF-8.
        return len(value) <= 16 or len(value.encode("utf-8", "surrogatepass")) <= MAX_ID_BYTES
    return False


def is_verb_name(name: str) -> bool:
    """True when ``name`` matches ``^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)*$``."""
    return all(part[:1] in _NAME_START and _NAME_CHARS.issuperset(part) for part in name.split("."))


#: RFC-0002 7.2: the class of an error code decides the CLI exit status.
CLASS_EXIT: dict[str, int] = {
    "failed": 1,
    "invalid_params": 2,
    "not_found": 3,
    "denied": 4,
    "conflict": 5,
    "unavailable": 6,
    "timeout": 7,
    "cancelled": 8,
    "protocol": 9,
    "unsupported": 10,
    "internal": 11,
}


def error_class(code: str) -> str:
    """The class of ``code``: the part before the first dot, ``failed`` when unknown (7.1)."""
    cls = code.split(".", 1)[0]
    return cls if cls in CLASS_EXIT else "failed"


def exit_code_for(code: str) -> int:
    """The CLI exit status for an error code; unknown classes exit like ``failed``."""
    return CLASS_EXIT[error_class(code)]


class VenomError(Exception):
    """An RFC-0002 error: raised by handlers to fail a call and by every client for any failure.

    ``code`` is ``<class>`` or ``<class>.<detail>``; ``data`` is an optional object of details.
    """

    __slots__ = ("code", "data", "message")

    def __init__(self, code: str, message: str, data: dict[str, Any] | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.data = data

    @property
    def exit_code(self) -> int:
        """The CLI exit status for this error (RFC-0002 7.2)."""
        return exit_code_for(self.code)

    def to_object(self) -> dict[str, Any]:
        """The wire error object: ``{"code", "message"[, "data"]}``."""
        obj: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            obj["data"] = self.data
        return obj

    @classmethod
    def from_object(cls, obj: Any) -> VenomError:
        """Read a wire error object; a malformed one becomes ``protocol.invalid_reply``."""
        if not isinstance(obj, dict):
            return cls("protocol.invalid_reply", "error member is not an object")
        code, message, data = obj.get("code"), obj.get("message"), obj.get("data")
        if not isinstance(code, str) or not is_verb_name(code):
            return cls("protocol.invalid_reply", "error object without a valid code")
        if not isinstance(message, str):
            message = code
        return cls(code, message, data if isinstance(data, dict) else None)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r}, {self.data!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, VenomError):
            return NotImplemented
        return (self.code, self.message, self.data) == (other.code, other.message, other.data)

    __hash__ = None  # type: ignore[assignment]


class ProtocolViolation(VenomError):
    """A ``protocol.*`` error found by the sans-I/O core.

    ``close`` tells the transport to close the connection after replying; ``id`` is the request
    id when it could be read (``None`` otherwise).
    """

    __slots__ = ("close", "id")

    def __init__(
        self,
        code: str,
        message: str,
        data: dict[str, Any] | None = None,
        *,
        close: bool = False,
        id: int | str | None = None,
    ) -> None:
        super().__init__(code, message, data)
        self.close = close
        self.id = id
