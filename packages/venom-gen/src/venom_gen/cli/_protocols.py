"""Structural types of the CLI's collaborators; imported only while type checking."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Protocol

__all__ = ("Client", "CompiledVerb", "Connect", "StartupSession", "StreamCall")


class StreamCall(Protocol):
    """An in-flight request: iterate its items, then read ``result``."""

    def __iter__(self) -> Iterator[Any]: ...

    @property
    def result(self) -> Any: ...


class Client(Protocol):
    """The part of the sync client the CLI uses."""

    def stream(self, verb: str, params: dict[str, Any]) -> StreamCall: ...

    def cancel(self, id: int | str, *, wait: float | None = None) -> Any: ...

    def close(self) -> None: ...


class Connect(Protocol):
    """Opens a client (connect and hello); raises ``VenomError`` when it cannot."""

    def __call__(
        self,
        socket_path: str,
        *,
        client_name: str,
        client_version: str,
        caps: tuple[str, ...],
        auth: dict[str, Any] | None,
        connect_timeout: float,
    ) -> Client: ...


class CompiledVerb(Protocol):
    """``venom_schema.runtime.compile_verb``'s validators for one verb."""

    def params(self, value: Any) -> Any: ...

    def result(self, value: Any) -> Any: ...

    def item(self, value: Any) -> Any: ...


class StartupSession(Protocol):
    """What the CLI tells the binary's start-up image (``venom_gen.startup``), and asks it."""

    def load(self, path: str, read: Callable[[str], Any]) -> Any: ...

    def dispatch(self, kind: str) -> None: ...
