"""`FakeCall`: a real `venom_proto.Call` whose items are kept, for handler unit tests."""

from __future__ import annotations

import os
from typing import Any

from venom_proto import Call, ConnectionInfo
from venom_proto.sansio import DEFAULT_MAX_FRAME

__all__ = ("FakeCall",)


class _Recorder:
    __slots__ = ("items",)

    def __init__(self) -> None:
        self.items: list[Any] = []

    async def emit_item(self, call: Call, item: Any) -> None:
        self.items.append(item)


class FakeCall(Call):
    """What a handler gets from the server, without one: ``emit`` appends to `items`.

    The connection is this process's (uid, gid, pid) with the given ``max_frame`` and hello
    params; set ``cancelled`` to see how a handler reacts to a cancel. A handler called with
    it directly skips the registry (no defaults, grant or result checks):
    `venom_gen.testing.InProcess` calls through the registry.
    """

    __slots__ = ("items",)

    def __init__(
        self,
        verb: str = "test",
        *,
        id: int | str = 1,
        streams: bool = True,
        max_frame: int = DEFAULT_MAX_FRAME,
        hello: dict[str, Any] | None = None,
        grants: frozenset[str] | None = None,
    ) -> None:
        info = ConnectionInfo(
            id=1,
            uid=os.getuid(),
            gid=os.getgid(),
            pid=os.getpid(),
            protocol="ndjson",
            proto=1,
            caps=frozenset({"cancel"}),
            max_frame=max_frame,
            hello=dict(hello or {}),
            grants=grants,
        )
        recorder = _Recorder()
        super().__init__(id, verb, info, recorder, streams=streams)
        #: Every item emitted so far, in order.
        self.items: list[Any] = recorder.items
