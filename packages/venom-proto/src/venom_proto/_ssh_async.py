"""The async client's ssh transport (rfcs/0006 §3): ``ssh ... <tool> bridge`` on anyio pipes.

Separate from `venom_proto.ssh` so the sync client's path never imports anyio.
"""

from __future__ import annotations

import contextlib
import subprocess

import anyio
from anyio.abc import ByteStream, Process

from ._core.errors import VenomError
from .ssh import EXIT_GRACE, STDERR_KEPT, SshTarget, ssh_argv, ssh_failure

__all__ = ("SshLink", "open_ssh_link")


class SshLink(ByteStream):
    """A byte stream over one ssh child's stdin/stdout; `aclose` always reaps the child."""

    def __init__(self, target: SshTarget, process: Process) -> None:
        self.target = target
        self._process = process
        self._stderr = bytearray()
        self._stderr_done = anyio.Event()

    async def collect_stderr(self) -> None:
        """Keep the last `STDERR_KEPT` bytes ssh writes on stderr, until it closes it."""
        stream = self._process.stderr
        try:
            if stream is None:
                return
            async for chunk in stream:
                self._stderr += chunk
                del self._stderr[:-STDERR_KEPT]
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            pass
        finally:
            self._stderr_done.set()

    async def send(self, item: bytes) -> None:
        assert self._process.stdin is not None
        await self._process.stdin.send(item)

    async def send_eof(self) -> None:
        assert self._process.stdin is not None
        await self._process.stdin.aclose()

    async def receive(self, max_bytes: int = 65536) -> bytes:
        assert self._process.stdout is not None
        return await self._process.stdout.receive(max_bytes)

    async def failure(self, *, after_hello: bool) -> VenomError:
        """Why the link ended: ssh's exit status and stderr, waiting up to a second for them."""
        with anyio.move_on_after(1):
            await self._process.wait()
            await self._stderr_done.wait()
        return ssh_failure(
            self.target, self._process.returncode, bytes(self._stderr), after_hello=after_hello
        )

    async def aclose(self) -> None:
        """Close stdin, give ssh `EXIT_GRACE` seconds to exit, then kill it; always reaps."""
        with anyio.CancelScope(shield=True):
            for stream in (self._process.stdin, self._process.stdout):
                if stream is not None:
                    with contextlib.suppress(Exception):
                        await stream.aclose()
            with anyio.move_on_after(EXIT_GRACE):
                await self._process.wait()
            if self._process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    self._process.kill()
                await self._process.wait()
            if self._process.stderr is not None:
                with contextlib.suppress(Exception):
                    await self._process.stderr.aclose()


async def open_ssh_link(target: SshTarget, tool: str, connect_timeout: float | None) -> SshLink:
    """Start ``ssh ... <tool> bridge`` in a session of its own; ``unavailable.ssh`` if it can't."""
    argv = ssh_argv(target, tool, connect_timeout=connect_timeout)
    try:
        process = await anyio.open_process(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        raise VenomError(
            "unavailable.ssh",
            f"cannot run {argv[0]!r}: {exc.strerror or exc}",
            {"socket": target.url, "command": argv[0], "reason": str(exc.strerror)},
        ) from None
    return SshLink(target, process)
