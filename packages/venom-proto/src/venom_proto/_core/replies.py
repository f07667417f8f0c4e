"""Server-to-client message shapes (RFC-0002 4.2), JSON-library free for the light client."""

from __future__ import annotations

from .errors import ProtocolViolation, VenomError, is_valid_id

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would cost the CLI ~2 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ("KINDS", "Reply", "reply_from_object")

KINDS = ("ok", "item", "error")


class Reply:
    """One message from the server: ``kind`` is ``"ok"``, ``"item"`` or ``"error"``.

    ``value`` is the ok or item value, or a :class:`VenomError` for an error reply. ``id`` is
    ``None`` only for an error about a message whose id the server could not read.
    """

    __slots__ = ("id", "kind", "value")

    def __init__(self, id: int | str | None, kind: str, value: Any) -> None:
        self.id = id
        self.kind = kind
        self.value = value

    @property
    def final(self) -> bool:
        """True for ok and error, the one final response of a request."""
        return self.kind != "item"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Reply):
            return NotImplemented
        return (self.id, self.kind, self.value) == (other.id, other.kind, other.value)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Reply({self.id!r}, {self.kind!r}, {self.value!r})"


def invalid_reply(message: str) -> ProtocolViolation:
    """A reply the client cannot use; the client closes the connection."""
    return ProtocolViolation("protocol.invalid_reply", message, close=True)


def reply_from_object(obj: Any) -> Reply:
    """Classify a decoded server message; anything malformed raises ``protocol.invalid_reply``.

    A response must hold exactly one of ``ok`` and ``error``; an item holds ``item`` and neither
    of them. Unknown members are ignored (RFC-0002 4.1).
    """
    if type(obj) is not dict:
        raise invalid_reply("server message is not a JSON object")
    if "id" not in obj:
        raise invalid_reply("server message without id")
    id_ = obj["id"]
    present = [kind for kind in KINDS if kind in obj]
    if len(present) != 1:
        raise invalid_reply("server message must hold exactly one of ok, item, error")
    kind = present[0]
    if id_ is None:
        if kind != "error":
            raise invalid_reply("only an error may carry id null")
    elif not is_valid_id(id_):
        raise invalid_reply("server message with an invalid id")
    if kind == "error":
        return Reply(id_, kind, VenomError.from_object(obj["error"]))
    return Reply(id_, kind, obj[kind])
