"""The adapter's one upstream connection: opened lazily, shared by all calls, replaced when broken.

``AsyncClient`` pipelines any number of concurrent requests on one connection (replies are
matched by id), so every tool call borrows the same ``Link``. Its reader and writer tasks live
in ``Links``' own task group, not in a caller's, so cancelling one MCP call never touches the
connection the others use.

A link is retired, and the next call opens a fresh one, when it broke (the daemon exited or
sent garbage) or when the owner-token file beside the socket changed since it connected (every
daemon start writes a fresh token, and the token is only read at connect time). A retired
link stays open until its last in-flight call ends.
"""

from __future__ import annotations

import logging
from types import TracebackType
from typing import TYPE_CHECKING, Any

import anyio
from anyio.abc import TaskGroup, TaskStatus

from venom_mcp._deps import VenomError
from venom_proto.conventions import client_auth
from venom_proto.owner_token import owner_auth, token_version

if TYPE_CHECKING:
    from venom_proto.client import AsyncClient

__all__ = ("Link", "Links", "breaks_link")

log = logging.getLogger("venom_mcp")

#: What identifies one version of the token file: None when absent, else (inode, mtime, size).
Stamp = tuple[int, int, int] | None


def breaks_link(error: VenomError) -> bool:
    """Whether ``error`` means the connection itself is unusable (not just this request)."""
    return error.code.split(".", 1)[0] in ("unavailable", "protocol")


class Link:
    """One live connection, the token-file stamp it authenticated with, and its users."""

    __slots__ = ("client", "closing", "retired", "stamp", "users")

    def __init__(self, client: AsyncClient, stamp: Stamp) -> None:
        self.client = client
        self.stamp = stamp
        self.users = 0
        self.retired = False
        #: Set to make the owner task close the connection.
        self.closing = anyio.Event()


class Links:
    """Hands out the shared ``Link``; use as ``async with Links(...)`` around all calls.

    ``hello.auth`` holds ``token`` if given, else the owner token beside the socket, re-read on
    every (re)connect.
    """

    def __init__(
        self,
        socket_path: str,
        *,
        client_name: str,
        client_version: str,
        token: str | None = None,
        tool: str | None = None,
    ) -> None:
        self.socket_path = socket_path
        self.tool = tool
        self.client_name = client_name
        self.client_version = client_version
        self.token = token
        self._tg: TaskGroup | None = None
        self._current: Link | None = None
        self._connecting = anyio.Lock()

    async def __aenter__(self) -> Links:
        tg = anyio.create_task_group()
        await tg.__aenter__()
        self._tg = tg
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        tg, self._tg, self._current = self._tg, None, None
        if tg is None:
            return None
        # Calls have ended by now (the server cancels its handlers first); a connect still
        # waiting for a stuck daemon's hello must not hold up the exit.
        tg.cancel_scope.cancel()
        return await tg.__aexit__(exc_type, exc, tb)

    def _stamp(self) -> Stamp:
        if self.token is not None:
            return None  # a given token never changes
        return token_version(self.socket_path)

    def _usable(self, link: Link | None, stamp: Stamp) -> bool:
        return link is not None and not link.retired and link.stamp == stamp

    async def acquire(self) -> Link:
        """The current link (connecting first if there is none); pair with ``release``.

        Raises ``VenomError`` when no connection can be made (``unavailable.not_running``...).
        """
        stamp = self._stamp()
        link = self._current
        if not self._usable(link, stamp):
            link = await self._replace(stamp)
            if stamp is None and (late := self._stamp()) is not None:
                # The token appeared while we connected: this connection started the daemon
                # (socket activation). Connect again as the owner instead of failing the call.
                link = await self._replace(late)
        assert link is not None
        link.users += 1
        return link

    async def _replace(self, stamp: Stamp) -> Link:
        async with self._connecting:  # concurrent first calls share one connect
            link = self._current
            if self._usable(link, stamp):
                assert link is not None
                return link
            if link is not None:
                self.retire(link)
            if self._tg is None:
                raise RuntimeError("Links used outside 'async with'")
            fresh: Link = await self._tg.start(self._hold, stamp)
            self._current = fresh
            return fresh

    def release(self, link: Link) -> None:
        """A call is done with ``link``; closes it if it was retired and this was the last use."""
        link.users -= 1
        if link.retired and link.users == 0:
            link.closing.set()

    def retire(self, link: Link) -> None:
        """No new call may use ``link``; it closes once its in-flight calls end."""
        link.retired = True
        if self._current is link:
            self._current = None
        if link.users == 0:
            link.closing.set()

    def _auth(self) -> dict[str, Any] | None:
        if self.token is not None:
            return {"token": self.token}
        if self.tool is not None:
            return client_auth(self.tool, self.socket_path)  # rfcs/0006 §4
        if self.socket_path.startswith("ssh://"):
            return None  # AsyncClient then reads <TOOL>_TOKEN itself
        return owner_auth(self.socket_path)

    async def _hold(self, stamp: Stamp, *, task_status: TaskStatus[Link]) -> None:
        """Connect, hand the link to ``start``'s caller, keep it open until it is closed."""
        from venom_proto.client import AsyncClient

        client = AsyncClient(
            self.socket_path,
            client_name=self.client_name,
            client_version=self.client_version,
            caps=("cancel",),
            auth=self._auth(),
            tool=self.tool,
        )
        await client.__aenter__()  # a failure here is raised in start()'s caller
        try:
            link = Link(client, stamp)
            task_status.started(link)
            await link.closing.wait()
        finally:
            try:
                await client.aclose()
            except Exception:  # past start(), a failure would take down every other link
                log.debug("closing the daemon connection failed", exc_info=True)
