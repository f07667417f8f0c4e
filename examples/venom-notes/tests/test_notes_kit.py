"""The test kit (venom_gen.testing) on venom-notes: in process, in memory, fakes, real daemons."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import pytest

from venom_gen import Product
from venom_gen.daemon import App
from venom_gen.daemon.events import EventBus
from venom_gen.testing import (
    DaemonProcess,
    DaemonStartError,
    FakeCall,
    InProcess,
    PrivateDirs,
    RawPeer,
)
from venom_notes.handlers import NoteHandlers
from venom_notes.handlers import handlers as notes_handlers
from venom_notes.product import PRODUCT
from venom_notes.store import NoteStore
from venom_proto import Handler, VenomError

pytestmark = pytest.mark.anyio


async def test_in_process_calls_go_through_the_registry(venom_app: InProcess) -> None:
    added = await venom_app.call("note.add", {"text": "milk", "tags": ["b", "a", "b"]})
    assert added["id"] == 1
    assert (await venom_app.call("note.get", {"id": 1}))["tags"] == ["a", "b"]
    with pytest.raises(VenomError) as denied:  # grants: the public ones cannot write
        await venom_app.call("note.add", {"text": "x"}, owner=False)
    assert denied.value.code == "denied.grant"
    with pytest.raises(VenomError) as invalid:  # params are validated before the handler
        await venom_app.call("note.get", {"id": "one"})
    assert invalid.value.code.startswith("invalid_params")
    items, result = await venom_app.stream("note.list", {})
    assert [item["text"] for item in items] == ["milk"]
    assert result == {"count": 1}


async def test_in_process_defaults_are_inserted(venom_app: InProcess, fake_call: Any) -> None:
    for n in range(60):
        await venom_app.call("note.add", {"text": f"note {n}"})
    found = await venom_app.call("note.search", {"query": "note"})
    assert len(found["notes"]) == 50  # the declared default limit
    with pytest.raises(KeyError):  # the handler alone gets no default
        await venom_app.verbs["note.search"].handler.__wrapped__(  # type: ignore[attr-defined]
            fake_call("note.search", streams=False), {"query": "note"}
        )


def test_in_process_from_sync_code(venom_app: InProcess) -> None:
    assert venom_app.run("note.add", {"text": "sync"})["id"] == 1
    assert venom_app.run("note.search", {"query": "SYNC"})["notes"][0]["id"] == 1


def test_in_process_checks_results(
    venom_dirs: PrivateDirs, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def broken(app: App) -> Mapping[str, Handler]:
        real = dict(notes_handlers(app, NoteStore(tmp_path / "notes.db")))
        real["note.get"] = lambda call, params: {"id": "not an integer"}
        return real

    product = Product(
        tool=PRODUCT.tool, version="0", model_path=PRODUCT.model_path, handlers=broken
    )
    for name, value in venom_dirs.env(product.tool).items():
        monkeypatch.setenv(name, value)
    with InProcess(product).closing() as harness, pytest.raises(VenomError) as info:
        harness.run("note.get", {"id": 1})
    assert info.value.code == "internal.result"


async def test_memory_client_talks_to_the_whole_server(venom_app: InProcess) -> None:
    with anyio.fail_after(10):
        async with venom_app.client() as client:
            assert client.hello_result["server"]["name"] == "venom-notes"
            await client.call("note.add", {"text": "in memory"})
            items = [item async for item in client.stream("note.list")]
            assert [item["text"] for item in items] == ["in memory"]
            assert await client.call("ping") == {}
            watch = client.send("note.watch", {"cursor": 0})
            first = await client.reply(watch)
            assert (first.kind, first.value["change"]) == ("item", "added")
            client.cancel(watch)
            final = await client.reply(watch)
            assert final.kind == "error"
            assert final.value.code == "cancelled"
        async with venom_app.client(owner=False) as reader:
            with pytest.raises(VenomError) as info:
                await reader.call("note.remove", {"id": 1})
            assert info.value.code == "denied.grant"


async def test_a_fake_call_records_what_a_handler_emits(tmp_path: Path) -> None:
    store = NoteStore(tmp_path / "notes.db")
    store.add("one", [])
    store.add("two", ["t"])

    app = SimpleNamespace(events=EventBus())
    handlers = NoteHandlers(app, store)  # type: ignore[arg-type]
    call = FakeCall("note.list")
    assert await handlers.note_list(call, {"tag": "t"}) == {"count": 1}
    assert [item["text"] for item in call.items] == ["two"]
    assert call.connection.uid == os.getuid()


def test_the_raw_peer_speaks_ndjson(venom_raw: RawPeer, venom_daemon: DaemonProcess) -> None:
    hello = venom_raw.hello(token=venom_daemon.token())
    assert hello["ok"]["server"]["name"] == "venom-notes"
    [added] = venom_raw.request({"id": 1, "verb": "note.add", "params": {"text": "raw"}})
    assert added["ok"]["id"] == 1
    replies = venom_raw.request(
        {"id": "a", "verb": "note.get", "params": {"id": 1}}, {"id": "b", "verb": "ping"}
    )
    assert sorted(reply["id"] for reply in replies) == ["a", "b"]
    assert next(r for r in replies if r["id"] == "a")["ok"]["text"] == "raw"
    venom_raw.send(b"{not json}\n")
    assert venom_raw.json()["error"]["code"].startswith("protocol")


def test_the_daemon_fixture_serves_the_cli_and_the_clients(venom_daemon: DaemonProcess) -> None:
    assert venom_daemon.cli_json("note", "add", "--text", "cli")["id"] == 1
    with venom_daemon.client() as client:
        assert client.call("note.get", {"id": 1})["text"] == "cli"
    with venom_daemon.client(owner=False) as reader, pytest.raises(VenomError) as info:
        reader.call("note.remove", {"id": 1})
    assert info.value.code == "denied.grant"
    assert venom_daemon.cli_lines("note", "list")[0]["text"] == "cli"
    assert venom_daemon.socket.startswith(str(venom_daemon.dirs.runtime))


def test_a_failed_start_raises_with_the_log_and_leaves_nothing(tmp_path: Path) -> None:
    dirs = PrivateDirs()
    (dirs.root / "data").rmdir()
    (dirs.root / "data").write_text("not a directory")
    daemon = DaemonProcess("venom_notes.product:PRODUCT", dirs=dirs)
    try:
        with pytest.raises(DaemonStartError, match=r"unavailable\.storage"):
            daemon.start()
        assert daemon.proc is None
        assert not daemon.running
    finally:
        daemon.close()
        dirs.remove()
    assert not dirs.root.exists()


def test_the_context_manager_cleans_up_after_a_failed_start(tmp_path: Path) -> None:
    seen: list[Path] = []

    class Recording(DaemonProcess):
        def start(self, *, poll: float = 0.01) -> Recording:
            seen.append(self.dirs.root)
            raise DaemonStartError("boom")

    with pytest.raises(DaemonStartError), Recording("venom_notes.product:PRODUCT"):
        pass
    assert seen
    assert not seen[0].exists()


def test_the_context_manager_stops_the_daemon() -> None:
    with DaemonProcess("venom_notes.product:PRODUCT") as daemon:
        proc = daemon.proc
        root = daemon.dirs.root
        assert daemon.running
    assert proc is not None
    assert proc.returncode == 0
    assert not root.exists()


async def test_in_process_names_an_unknown_verb(venom_app: InProcess) -> None:
    with pytest.raises(VenomError) as info:
        await venom_app.call("note.nope")
    assert info.value.code == "not_found.verb"
    assert info.value.data == {"verb": "note.nope"}


async def test_a_closed_memory_client_refuses_calls(venom_app: InProcess) -> None:
    client = venom_app.client()
    async with client:
        assert await client.call("note.search", {"query": "x"}) == {"notes": []}
    with pytest.raises(VenomError) as info:
        await client.call("ping")
    assert info.value.code == "unavailable.disconnected"
