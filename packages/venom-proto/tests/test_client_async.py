"""AsyncClient against the real server (conftest ``serve``/``demo``): pipelining, streams,
cancellation, binary frames."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from venom_proto import AsyncClient, VenomError
from venom_proto._core.frames import Frame

pytestmark = pytest.mark.anyio
WAIT = 5.0


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    """The client is built on anyio: every test runs on both of its backends."""
    backend: str = request.param
    return backend


def client(path: str, **kw: Any) -> AsyncClient:
    return AsyncClient(path, client_name="test", client_version="0", **kw)


async def test_hello_call_and_errors(serve: Any, sock_path: str) -> None:
    serve()
    with anyio.fail_after(WAIT):
        async with client(sock_path) as c:
            assert c.hello_result["server"]["name"] == "test-tool"
            assert await c.call("echo", {"text": "hi"}) == {"text": "hi"}
            with pytest.raises(VenomError) as info:
                await c.call("fail", {"thing": "t"})
            assert info.value.code == "not_found.thing"
            await c.ping()


async def test_concurrent_calls_share_one_connection(serve: Any, sock_path: str) -> None:
    """RFC-0002 §4.3: pipelined requests, answered out of order, matched by id."""
    serve()
    results: dict[int, Any] = {}
    finished: list[int] = []

    async with client(sock_path) as c:

        async def one(i: int, ms: int) -> None:
            results[i] = await c.call("sleep", {"ms": ms})
            finished.append(i)

        started = time.monotonic()
        with anyio.fail_after(WAIT):
            async with anyio.create_task_group() as tg:
                for i, ms in enumerate([300, 150, 10] + [100] * 20):
                    tg.start_soon(one, i, ms)
        assert time.monotonic() - started < 1.5  # concurrent, not 2.5 s in a row
        assert results[0] == {"slept": 300}
        assert results[2] == {"slept": 10}
        assert finished[-1] == 0
        assert finished.index(2) < finished.index(1)
        assert len(results) == 23


async def test_stream_and_cancel(serve: Any, sock_path: str, event_items: Any) -> None:
    """RFC-0002 §4.4: items, then cancel ends the stream with error cancelled."""
    serve()
    with anyio.fail_after(WAIT):
        async with client(sock_path) as c:
            call = await c.stream("count", {"n": 3})
            assert [item async for item in call] == [0, 1, 2]
            assert call.result == {"count": 3}

            events = await c.stream("events")
            seen = []

            async def consume() -> None:
                async for item in events:
                    seen.append(item)
                    if len(seen) == 2:
                        await c.cancel(events.id)

            with pytest.raises(VenomError) as info:
                await consume()
            assert info.value.code == "cancelled"
            assert seen == list(event_items)


async def test_a_cancelled_caller_cancels_its_request(serve: Any, sock_path: str) -> None:
    serve()
    async with client(sock_path) as c:
        with anyio.move_on_after(0.1):
            await c.call("sleep", {"ms": 3000})
        with anyio.fail_after(WAIT):
            # the sleep was cancelled on the daemon too: its id is free and the line is clear
            assert await c.call("echo", {"text": "after"}) == {"text": "after"}


async def test_binary_mode_against_the_demo(demo: Any, sock_path: str) -> None:
    """RFC-0002 §5.3: 0xF5 + HELLO, ECHO_BYTES on an odd client stream, verbs via CONTROL."""
    with anyio.fail_after(WAIT):
        async with client(sock_path, binary=True, caps=("cancel", "venom-echo.bytes")) as c:
            assert c.hello_result["caps"] == ["cancel", "venom-echo.bytes"]
            stream = c.open_stream()
            assert stream % 2 == 1
            await c.send_frame(0x0100, stream, b"hi\n")
            assert await c.receive_frame() == Frame(0x0100, stream, b"hi\n")
            assert await c.call("echo", {"text": "hi"}) == {"text": "hi"}


async def test_frames_need_a_binary_connection(serve: Any, sock_path: str) -> None:
    serve()
    async with client(sock_path) as c:
        with pytest.raises(RuntimeError, match="binary"):
            c.open_stream()


async def test_timeout_fails_the_call_and_cancels_it(serve: Any, sock_path: str) -> None:
    """``timeout`` bounds each wait for a reply; the request is cancelled, the link stays up."""
    serve()
    with anyio.fail_after(WAIT):
        async with client(sock_path, timeout=0.2) as c:
            with pytest.raises(VenomError) as info:
                await c.call("sleep", {"ms": 3000})
            assert (info.value.code, info.value.exit_code) == ("timeout", 7)
            assert await c.call("echo", {"text": "after"}) == {"text": "after"}
            call = await c.stream("events")
            with pytest.raises(VenomError) as info:
                async for _ in call:
                    pass
            assert info.value.code == "timeout"


async def test_timeout_bounds_receive_frame(demo: Any, sock_path: str) -> None:
    with anyio.fail_after(WAIT):
        async with client(sock_path, binary=True, timeout=0.1) as c:
            with pytest.raises(VenomError) as info:
                await c.receive_frame()
            assert info.value.code == "timeout"


async def test_not_running(sock_path: str) -> None:
    """RFC-0002 §2.5: no daemon -> unavailable.not_running with data.socket."""
    with pytest.raises(VenomError) as info:
        async with client(sock_path):
            pass
    assert (info.value.code, info.value.data) == ("unavailable.not_running", {"socket": sock_path})


async def test_daemon_shutdown_fails_pending_calls(serve: Any, sock_path: str) -> None:
    server = serve()
    async with client(sock_path) as c:
        events = await c.stream("events")
        with anyio.fail_after(WAIT):
            async for _ in events:
                break
        await anyio.to_thread.run_sync(server.server.stop)
        with anyio.fail_after(WAIT), pytest.raises(VenomError) as info:
            await c.call("echo", {"text": "x"})
        assert info.value.code.split(".")[0] in {"unavailable", "cancelled"}


def test_cancel_reaches_the_daemon_when_the_enclosing_scope_is_cancelled(
    short_dir: Path, anyio_backend: str
) -> None:
    """RFC-0002 §4.4: a caller cancelled from a scope around the whole client still sends cancel.

    The client's writer runs in the scope that entered the client, so a queued cancel would die
    with it; the cancel must be written from the shielded abandon path itself.
    """
    import socket as socketlib
    import threading

    path = str(short_dir / "f.sock")
    received = bytearray()
    closed: list[bool] = []
    listener = socketlib.socket(socketlib.AF_UNIX)
    listener.bind(path)
    listener.listen()

    def fake_daemon() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.settimeout(5)
            buf = b""
            while b"\n" not in buf:
                buf += conn.recv(4096)
            hello = json.loads(buf.split(b"\n", 1)[0])
            ok = {"proto": 1, "server": {"name": "f", "version": "0"}, "caps": ["cancel"],
                  "max_frame": 1048576}  # fmt: skip
            conn.sendall(json.dumps({"id": hello["id"], "ok": ok}).encode() + b"\n")
            received.extend(buf.split(b"\n", 1)[1])
            while chunk := conn.recv(4096):
                received.extend(chunk)
            closed.append(True)  # EOF: the client closed its socket (not a recv timeout)

    thread = threading.Thread(target=fake_daemon, daemon=True)
    thread.start()

    async def main() -> None:
        with anyio.move_on_after(0.3):
            async with AsyncClient(path, client_name="t", client_version="0") as client:
                await client.call("slow", {})

    anyio.run(main, backend=anyio_backend)
    thread.join(5)
    listener.close()
    lines = [json.loads(line) for line in bytes(received).splitlines()]
    assert [m["verb"] for m in lines] == ["slow", "cancel"]
    assert closed == [True], "the client left its socket open after a cancelled scope"
    assert lines[1]["params"] == {"id": lines[0]["id"]}
