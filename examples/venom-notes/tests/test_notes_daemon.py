"""A real venom-notes daemon: every verb over the CLI and the socket, grants, events and MCP."""

from __future__ import annotations

import json
from typing import Any

from venom_gen.testing import DaemonProcess, McpPeer


def _add(daemon: DaemonProcess, text: str, *tags: str) -> Any:
    args = ["note", "add", "--text", text]
    if tags:
        args += ["--tags", json.dumps(list(tags))]
    return daemon.cli_json(*args)


def test_cli_every_verb(daemon: DaemonProcess) -> None:
    first = _add(daemon, "buy milk", "home", "shop")
    assert set(first) == {"id", "created"}
    second = _add(daemon, "Call Bob")
    note = daemon.cli_json("note", "get", "--id", str(first["id"]))
    assert note == {
        "id": 1,
        "text": "buy milk",
        "tags": ["home", "shop"],
        "created": first["created"],
    }
    assert [n["id"] for n in daemon.cli_lines("note", "list")] == [1, 2]
    tagged = daemon.cli_lines("note", "list", "--tag", "home")
    assert [n["text"] for n in tagged] == ["buy milk"]
    human = daemon.cli("note", "list", "--tag", "home").stdout  # rfcs/0004 D-S60: a table
    assert human.splitlines()[0].split() == ["id", "text", "tags", "created"]
    assert human.splitlines()[1].split()[:4] == ["1", "buy", "milk", "home,"]
    found = daemon.cli_json("note", "search", "--query", "BOB")
    assert [n["id"] for n in found["notes"]] == [second["id"]]
    assert daemon.cli_json("note", "remove", "--id", "2") == {"id": 2}
    assert daemon.cli_json("note", "search", "--query", "bob") == {"notes": []}


def test_cli_not_found_exits_3(daemon: DaemonProcess) -> None:
    """RFC-0002 §7.2: a not_found.* error gives exit status 3."""
    for verb in ("get", "remove"):
        run = daemon.cli("note", verb, "--id", "99", "--json")
        assert run.returncode == 3
        assert json.loads(run.stdout)["error"] == {
            "code": "not_found.note",
            "message": "no note has id 99",
            "data": {"id": 99},
        }


def test_cli_invalid_params_exit_2(daemon: DaemonProcess) -> None:
    assert daemon.cli("note", "add").returncode == 2  # text is required
    assert daemon.cli("note", "add", "--text", "x", "--tags", '"notalist"').returncode == 2
    assert daemon.cli("note", "get", "--id", "0").returncode == 2  # ids start at 1


def test_socket_list_streams_items_then_count(daemon: DaemonProcess) -> None:
    """RFC-0002 §4.4: items carry the request id, the final ok ends the stream."""
    for i in range(5):
        _add(daemon, f"n{i}")
    replies = daemon.request({"id": 7, "verb": "note.list", "params": {"limit": 3}})
    assert [r["item"]["text"] for r in replies[:-1]] == ["n0", "n1", "n2"]
    assert all(r["id"] == 7 for r in replies)
    assert replies[-1] == {"id": 7, "ok": {"count": 3}}


def test_socket_list_pages_through_more_than_a_page(daemon: DaemonProcess) -> None:
    from venom_notes.handlers import PAGE

    replies = daemon.request(
        *[{"id": i, "verb": "note.add", "params": {"text": f"n{i}"}} for i in range(1, PAGE + 6)],
        owner=True,
    )
    assert all("ok" in r for r in replies)
    (*items, done) = daemon.request({"id": 1, "verb": "note.list", "params": {}})
    assert done["ok"] == {"count": PAGE + 5}
    assert [r["item"]["id"] for r in items] == list(range(1, PAGE + 6))


def test_writes_need_the_owner_token(daemon: DaemonProcess) -> None:
    """rfcs/0005 §2, §4: without the token a connection may read but not write."""
    add = {"id": 1, "verb": "note.add", "params": {"text": "x"}}
    (denied,) = daemon.request(add)
    assert denied["error"]["code"] == "denied.grant"
    assert denied["error"]["data"] == {"verb": "note.add", "grant": "write", "identity": "peer"}
    (ok,) = daemon.request(add, owner=True)
    assert ok["ok"]["id"] == 1
    (removed,) = daemon.request({"id": 2, "verb": "note.remove", "params": {"id": 1}})
    assert removed["error"]["code"] == "denied.grant"
    (read,) = daemon.request({"id": 3, "verb": "note.get", "params": {"id": 1}})
    assert read["ok"]["text"] == "x"


def test_writes_publish_events(daemon: DaemonProcess) -> None:
    """rfcs/0003: note.added and note.removed are published after the commit."""
    note = _add(daemon, "evented", "t")
    daemon.cli_json("note", "remove", "--id", str(note["id"]))
    events = daemon.cli_lines("events", "--cursor", "0", "--follow=false", "--types", '["note.*"]')
    assert [(e["type"], json.loads(e["data"])) for e in events] == [
        ("note.added", {"id": note["id"], "tags": ["t"]}),
        ("note.removed", {"id": note["id"]}),
    ]


def test_mcp_tools_list_and_calls(daemon: DaemonProcess, mcp: McpPeer) -> None:
    """RFC-0004 §5: every note verb is a tool; results come back as structured content."""
    names = {t["name"] for t in mcp.call("tools/list", {})["result"]["tools"]}
    assert {"note_dadd", "note_dget", "note_dlist", "note_dremove", "note_dsearch"} <= names
    added = mcp.tool("note_dadd", {"text": "from mcp", "tags": ["agent"]})
    assert added["structuredContent"]["result"]["id"] == 1
    listed = mcp.tool("note_dlist", {"tag": "agent"})["structuredContent"]
    assert [n["text"] for n in listed["items"]] == ["from mcp"]
    assert listed["result"] == {"count": 1}
    missing = mcp.tool("note_dget", {"id": 5})
    assert missing["isError"] is True
    assert json.loads(missing["content"][0]["text"])["error"]["code"] == "not_found.note"


def test_an_unusable_data_dir_stops_start_up_with_a_clear_error(fresh: DaemonProcess) -> None:
    (fresh.dirs.root / "data").rmdir()  # the kit makes it; this test needs a file there
    (fresh.dirs.root / "data").write_text("a file where the data directory should be")
    run = fresh.cli("serve")
    assert run.returncode == 6  # unavailable
    assert "unavailable.storage" in run.stderr
    assert "Traceback" not in run.stderr
