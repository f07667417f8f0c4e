"""Sans-I/O bookkeeping shared by the sync and async clients.

The transport writes what :meth:`ClientCore.start` and :meth:`ClientCore.request` return, feeds
every received chunk to :meth:`ClientCore.receive_data` and pops replies per id with
:meth:`ClientCore.next_reply`. The JSON codec is injected so the sync client can run on the
stdlib twin and never import orjson.
"""

from __future__ import annotations

from ._core.errors import VenomError
from ._core.ndjson import DEFAULT_MAX_FRAME, LineDecoder
from ._core.replies import Reply, invalid_reply, reply_from_object

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would cost the CLI ~2 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections import deque
    from collections.abc import Callable, Iterable
    from typing import Any, TypeAlias

    Loads: TypeAlias = Callable[[bytes], Any]
    Dumps: TypeAlias = Callable[[Any], bytes]

else:
    # The C type that collections.deque is: `collections` itself (operator, keyword, reprlib)
    # would cost every CLI call ~1 ms.
    from _collections import deque

__all__ = ("ClientCore", "hello_params", "raise_for")


def hello_params(
    *,
    client_name: str,
    client_version: str,
    caps: Iterable[str] = ("cancel",),
    auth: dict[str, Any] | None = None,
    max_frame: int | None = None,
) -> dict[str, Any]:
    """The hello params a client sends (RFC-0002 6.1): always ``proto: [1]``."""
    params: dict[str, Any] = {
        "proto": [1],
        "client": {"name": client_name, "version": client_version},
        "caps": list(caps),
    }
    if max_frame is not None:
        params["max_frame"] = max_frame
    if auth is not None:
        params["auth"] = auth
    return params


class ClientCore:
    """Ids, in-flight requests and per-id reply queues for one NDJSON client connection."""

    def __init__(self, *, loads: Loads, dumps: Dumps, max_frame: int | None = None) -> None:
        self._loads = loads
        self._dumps = dumps
        self._next_id = 1
        self._pending: dict[int | str, deque[Reply]] = {}
        self._hello_id: int | None = None
        self._hello_error: VenomError | None = None
        self._decoder = LineDecoder(max_frame or DEFAULT_MAX_FRAME)
        #: The hello result once the server accepted hello, else ``None``.
        self.hello_result: dict[str, Any] | None = None
        #: The connection's max_frame: ours until hello settles it.
        self.max_frame = max_frame or DEFAULT_MAX_FRAME

    # -- sending ---------------------------------------------------------------------------

    def _take_id(self) -> int:
        id_ = self._next_id
        self._next_id += 1
        return id_

    def _encode(self, message: dict[str, Any]) -> bytes:
        return self._dumps(message) + b"\n"

    def _too_large(self, size: int) -> VenomError:
        return VenomError(
            "protocol.too_large",
            f"message of {size} bytes exceeds max_frame ({self.max_frame})",
            {"max_frame": self.max_frame},
        )

    def _check_size(self, data: bytes) -> bytes:
        if len(data) > self.max_frame:
            raise self._too_large(len(data))
        return data

    def start(self, params: dict[str, Any]) -> bytes:
        """The opening bytes: the hello request."""
        self._hello_id = self._take_id()
        return self._encode({"id": self._hello_id, "verb": "hello", "params": params})

    def request(self, verb: str, params: dict[str, Any] | None = None) -> tuple[int, bytes]:
        """Allocate an id for a request; return it and the bytes to send."""
        id_ = self._take_id()
        data = self._check_size(
            self._encode({"id": id_, "verb": verb, "params": {} if params is None else params})
        )
        self._pending[id_] = deque()
        return id_, data

    # -- receiving -------------------------------------------------------------------------

    @property
    def hello_done(self) -> bool:
        """True once hello was answered, either way."""
        return self.hello_result is not None or self._hello_error is not None

    def hello(self) -> dict[str, Any]:
        """The hello result; raises the server's error if hello failed."""
        if self._hello_error is not None:
            raise self._hello_error
        if self.hello_result is None:
            raise RuntimeError("hello has not been answered yet")
        return self.hello_result

    def _settle_hello(self, result: Any, error: VenomError | None) -> None:
        if error is not None:
            self._hello_error = error
            return
        if type(result) is not dict or type(result.get("max_frame")) is not int:
            raise invalid_reply("hello result without max_frame")
        self.hello_result = result
        self.max_frame = self._decoder.max_frame = result["max_frame"]

    def _parse(self, data: bytes) -> Reply:
        try:
            obj = self._loads(data)
        except ValueError as exc:
            raise invalid_reply(f"invalid JSON from server: {exc}") from None
        return reply_from_object(obj)

    def receive_data(self, data: bytes) -> list[int | str]:
        """Feed received bytes; return the ids that got replies (possibly repeated).

        Raises :class:`VenomError` when the connection is unusable: an undecodable or
        oversized server message, or an error with ``id: null`` (the server could not read a
        request of ours; it may be closing).
        """
        touched: list[int | str] = []
        for line in self._decoder.feed(data):
            self._accept(self._parse(line), touched)
        return touched

    def _accept(self, reply: Reply, touched: list[int | str]) -> None:
        id_ = reply.id
        if id_ is None:
            raise reply.value  # reply_from_object allows id null only on errors
        if id_ == self._hello_id and not self.hello_done:
            if reply.kind == "item":
                raise invalid_reply("item reply to hello")
            self._settle_hello(reply.value, reply.value if reply.kind == "error" else None)
            return
        queue = self._pending.get(id_)
        if queue is not None:  # replies to forgotten requests are dropped
            queue.append(reply)
            touched.append(id_)

    def next_reply(self, id: int | str) -> Reply | None:
        """Pop the next reply for ``id``, or ``None`` if none arrived yet.

        After the final reply (ok or error) the id is forgotten.
        """
        queue = self._pending.get(id)
        if not queue:
            if queue is None:
                raise KeyError(id)
            return None
        reply = queue.popleft()
        if reply.kind != "item":
            del self._pending[id]
        return reply

    def forget(self, id: int | str) -> None:
        """Stop tracking ``id``; its later replies are dropped."""
        self._pending.pop(id, None)

    @property
    def in_flight(self) -> frozenset[int | str]:
        """Ids sent whose final reply has not been popped."""
        return frozenset(self._pending)


def raise_for(reply: Reply) -> Any:
    """The ok/item value of ``reply``, or raise its error."""
    if reply.kind == "error":
        raise reply.value
    return reply.value
