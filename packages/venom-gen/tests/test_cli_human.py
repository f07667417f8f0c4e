"""Human text derived from the model (`venom_gen.cli.human`, rfcs/0004 D-S60 to D-S64): every
descriptor shape, streams as they arrive, and a hostile daemon's escape sequences arriving
escaped at a real terminal (a pty)."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from test_cli_kit import cli, short_dir

from venom_gen.cli.human import ItemPrinter, Table, is_flat_object, render
from venom_gen.local.doctor import render_report
from venom_gen.testing import DaemonProcess, PrivateDirs
from venom_gen.testing.hostile import HOSTILE
from venom_schema.model import Descriptor, Field

__all__ = ("cli", "short_dir")  # fixtures, re-exported for pytest

WAIT = 10.0


def f(name: str, kind: str | Descriptor, **more: Any) -> Field:
    desc = {"kind": kind, **more} if isinstance(kind, str) else kind
    return cast("Field", {"name": name, "summary": "", "type": desc, "required": True})


def obj(*fields: Field, **more: Any) -> Descriptor:
    return cast("Descriptor", {"kind": "object", "fields": list(fields), **more})


def arr(items: Descriptor | str) -> Descriptor:
    inner = {"kind": items} if isinstance(items, str) else items
    return cast("Descriptor", {"kind": "array", "items": inner})


NOTE = obj(f("id", "integer", min=1), f("text", "string"), f("tags", arr("string")))


@pytest.mark.parametrize(
    ("descriptor", "value", "text"),
    [
        # a single scalar prints bare
        ({"kind": "string"}, "hi", "hi\n"),
        ({"kind": "integer"}, 3, "3\n"),
        ({"kind": "number"}, 0.5, "0.5\n"),
        ({"kind": "boolean"}, False, "false\n"),
        ({"kind": "string", "nullable": True}, None, "null\n"),
        ({"kind": "string"}, "", '""\n'),
        ({"kind": "string"}, "two\nlines", "two\nlines\n"),
        # nothing to say: no result, an empty object
        ({"kind": "null"}, None, ""),
        (obj(), {}, ""),
        # an object: aligned name: value lines, null shown plainly
        (obj(f("a", "integer"), f("long_name", "string")), {"a": 1, "long_name": "x"},
         "a:         1\nlong_name: x\n"),
        (obj(f("maybe", "string", nullable=True)), {"maybe": None}, "maybe: null\n"),
        (obj(f("a", "string"), f("b", "string")), {"b": "only"}, "b: only\n"),  # optional, absent
        # nested objects indent; an empty one is {}
        (obj(f("outer", obj(f("inner", "integer"), f("deeper", obj(f("x", "boolean"))))),
             f("z", "null")),
         {"outer": {"inner": 1, "deeper": {"x": True}}, "z": None},
         "outer:\n  inner:  1\n  deeper:\n    x: true\nz:     null\n"),
        (obj(f("o", obj())), {"o": {}}, "o: {}\n"),
        # arrays of scalars inline; quoted where a comma or emptiness would mislead
        (obj(f("tags", arr("string"))), {"tags": ["a", "b c", "d,e", ""]},
         'tags: a, b c, "d,e", ""\n'),
        (obj(f("tags", arr("string"))), {"tags": []}, "tags: []\n"),
        (arr("integer"), [1, 2, 3], "1, 2, 3\n"),
        (arr("string"), ["null", "true"], '"null", "true"\n'),
        # arrays of flat objects are tables, header from the field names
        (obj(f("notes", arr(NOTE))), {"notes": [{"id": 1, "text": "a", "tags": ["x", "y"]}]},
         "notes:\n  id      text                      tags\n"
         "  1       a                         x, y\n"),
        (arr(NOTE), [], "[]\n"),
        # arrays of nested objects: one block per item, a blank line between
        (arr(obj(f("o", obj(f("k", "integer"))))), [{"o": {"k": 1}}, {"o": {"k": 2}}],
         "o:\n  k: 1\n\no:\n  k: 2\n"),
        (arr(arr("integer")), [[1, 2], [3]], "1, 2\n3\n"),
        # a multi-line value keeps its lines under the value column
        (obj(f("id", "integer"), f("body", "string")), {"id": 1, "body": "one\ntwo"},
         "id:   1\nbody: one\n      two\n"),
    ],
)  # fmt: skip
def test_every_descriptor_shape(descriptor: Descriptor, value: Any, text: str) -> None:
    assert render(descriptor, value) == text


def test_wide_unicode_is_aligned_in_columns() -> None:
    """East Asian wide characters take two columns: names, values and cells align on them."""
    desc = obj(f("\u540d\u524d", "string"), f("id", "integer"))
    assert render(desc, {"\u540d\u524d": "x", "id": 1}) == "\u540d\u524d: x\nid:   1\n"
    table = Table([f("name", "string", choices=["\u6f22\u5b57\u6f22", "b"]), f("n", "integer")])
    assert table.header() == "name    n"
    assert table.row({"name": "\u6f22\u5b57\u6f22", "n": 1}) == "\u6f22\u5b57\u6f22  1"
    assert table.row({"name": "b", "n": 2}) == "b       2"


def test_very_long_values() -> None:
    """A name: value line keeps the whole value; a table cell is cut to its column with an
    ellipsis, wide characters whole, numbers never, the last column never."""
    long = "x" * 5000
    assert render(obj(f("t", "string")), {"t": long}) == f"t: {long}\n"
    table = Table([f("s", "string"), f("n", "integer"), f("last", "string")])
    row = table.row({"s": "\u6f22" * 30, "n": 10**15, "last": long})
    assert row == "\u6f22" * 11 + "\u2026 " + "  1000000000000000  " + long
    assert table.row({"s": "y" * 24, "n": 1, "last": ""}) == "y" * 24 + '  1       ""'


def test_strings_are_escaped_everywhere() -> None:
    desc = obj(f(HOSTILE, "string"), f("list", arr("string")), f("rows", arr(NOTE)))
    value = {HOSTILE: HOSTILE, "list": [HOSTILE], "rows": [{"id": 1, "text": HOSTILE, "tags": []}]}
    text = render(desc, value)
    assert not set(text) & {"\x1b", "\x07", "\x9b", "\x7f", "\u202e", "\u2066", "\r", "\t"}


def test_is_flat_object() -> None:
    assert is_flat_object(NOTE)
    assert not is_flat_object(obj())
    assert not is_flat_object(obj(f("o", obj(f("k", "integer")))))
    assert not is_flat_object(arr(NOTE))


def test_streams_print_rows_as_they_arrive() -> None:
    """The header comes with the first row; an empty stream prints nothing; widths never
    depend on later rows (each write is final)."""
    writes: list[str] = []
    printer = ItemPrinter(NOTE, writes.append)
    assert writes == []  # an empty stream: nothing
    printer.item({"id": 1, "text": "first", "tags": ["a"]})
    assert writes == [
        "id      text                      tags\n1       first                     a\n"
    ]
    printer.item({"id": 22, "text": "second", "tags": []})
    assert writes[1:] == ["22      second                    []\n"]


def test_streams_of_other_items() -> None:
    writes: list[str] = []
    nested = ItemPrinter(obj(f("o", obj(f("k", "integer")))), writes.append)
    nested.item({"o": {"k": 1}})
    nested.item({"o": {"k": 2}})
    assert "".join(writes) == "o:\n  k: 1\n\no:\n  k: 2\n"
    writes.clear()
    scalars = ItemPrinter({"kind": "string"}, writes.append)
    scalars.item("a\x1b")
    scalars.item("b")
    assert writes == ["a\\x1b\n", "b\n"]


def test_headers_bold_only_with_colour() -> None:
    writes: list[str] = []
    ItemPrinter(NOTE, writes.append, colour=True).item({"id": 1, "text": "a", "tags": []})
    assert writes[0].startswith("\x1b[1mid")
    assert "\x1b" not in render(obj(f("rows", arr(NOTE))), {"rows": [{"id": 1}]})


def test_doctor_report_escapes_what_the_daemon_said() -> None:
    report = {
        "status": "ok",
        "checks": [{"name": "daemon", "status": "ok", "message": f"venom-echo {HOSTILE} answers"}],
    }
    text = render_report("venom-echo", report)
    assert not set(text) & {"\x1b", "\x07", "\x9b", "\u202e"}
    assert "\\x1b]0;pwned\\x07" in text


# -- a hostile daemon, the real CLI, a real terminal ---------------------------------------


@pytest.fixture
def hostile(venom_dirs: PrivateDirs) -> Iterator[DaemonProcess]:
    sock = str(venom_dirs.root / "hostile.sock")
    argv = [sys.executable, "-m", "venom_gen.testing.hostile", sock]
    with DaemonProcess(
        tool="venom-echo", argv=argv, socket=sock, dirs=venom_dirs, owner_token=False, timeout=WAIT
    ) as daemon:
        yield daemon


def _on_a_pty(argv: list[str], env: dict[str, str]) -> tuple[int, bytes]:
    """Run ``argv`` with stdout and stderr on a new pseudo-terminal; what the terminal got."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        argv, env=env, stdin=subprocess.DEVNULL, stdout=follower, stderr=follower
    )
    os.close(follower)
    got = b""
    try:
        while True:
            ready, _, _ = select.select([leader], [], [], WAIT)
            if not ready:
                break
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: every writer closed the terminal
                break
            if not chunk:
                break
            got += chunk
        return proc.wait(timeout=WAIT), got
    finally:
        os.close(leader)
        if proc.poll() is None:
            proc.kill()
            proc.wait()


#: Bytes a terminal acts on, as UTF-8: ESC, BEL, C1 CSI, DEL, RLO, LRI.
RAW = (b"\x1b", b"\x07", "\x9b".encode(), b"\x7f", "\u202e".encode(), "\u2066".encode())


@pytest.mark.parametrize(
    "args",
    [("echo", "--text", "hi"), ("echo", "--text", "fail"), ("tail",)],
    ids=["result", "error", "stream"],
)
def test_a_hostile_daemon_reaches_the_terminal_escaped(
    cli: list[str], hostile: DaemonProcess, args: tuple[str, ...]
) -> None:
    env = {**os.environ, "VENOM_ECHO_SOCKET": hostile.socket, "NO_COLOR": "1"}
    env.pop("CLICOLOR_FORCE", None)
    code, got = _on_a_pty([*cli, *args], env)
    assert code == (1 if "fail" in args else 0), got
    assert not [raw for raw in RAW if raw in got], got
    assert b"\\x1b]52;c;cHduZWQ=\\x07" in got  # the clipboard write, shown as text
    assert b"\\u202eevil" in got


def test_colour_on_a_terminal_is_ours_alone(cli: list[str], hostile: DaemonProcess) -> None:
    """On a terminal without NO_COLOR the header and the error prefix are coloured; every
    ESC that arrives opens or closes one of those styles."""
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "CLICOLOR", "TERM")}
    env["VENOM_ECHO_SOCKET"] = hostile.socket
    _, stream = _on_a_pty([*cli, "tail"], env)
    _, error = _on_a_pty([*cli, "echo", "--text", "fail"], env)
    assert stream.startswith(b"\x1b[1mline\x1b[0m")
    assert error.startswith(b"\x1b[1;31mvenom-echo:\x1b[0m bad \\x1b")
    for got in (stream, error):
        rest = got.replace(b"\x1b[1m", b"").replace(b"\x1b[1;31m", b"").replace(b"\x1b[0m", b"")
        assert b"\x1b" not in rest


def test_no_colour_off_a_terminal_unless_forced(cli: list[str], hostile: DaemonProcess) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "CLICOLOR_FORCE")}
    env["VENOM_ECHO_SOCKET"] = hostile.socket
    plain = subprocess.run([*cli, "tail"], env=env, capture_output=True, timeout=WAIT)
    assert plain.stdout.startswith(b"line\n")
    forced = subprocess.run(
        [*cli, "tail"], env={**env, "CLICOLOR_FORCE": "1"}, capture_output=True, timeout=WAIT
    )
    assert forced.stdout.startswith(b"\x1b[1mline\x1b[0m\n")
    both = {**env, "CLICOLOR_FORCE": "1", "NO_COLOR": "1"}
    quiet = subprocess.run([*cli, "tail"], env=both, capture_output=True, timeout=WAIT)
    assert quiet.stdout.startswith(b"line\n")
    as_json = subprocess.run(
        [*cli, "tail", "--json"], env={**env, "CLICOLOR_FORCE": "1"}, capture_output=True,
        timeout=WAIT,
    )  # fmt: skip
    assert as_json.stdout.startswith(b'{"line":"\\u001b]0;pwned\\u0007')  # JSON escapes C0


def test_help_from_a_model_is_escaped(tmp_path: Path) -> None:
    """A model file whose summaries carry escape sequences prints them escaped in help."""
    import json

    from test_cli_kit import MODEL

    from venom_gen.cli import main

    model = json.loads(json.dumps(MODEL))
    model["summary"] = "evil " + HOSTILE
    for verb in model["verbs"]:
        verb["summary"] = HOSTILE
    path = tmp_path / "m.json"
    path.write_text(json.dumps(model), encoding="utf-8")
    import io

    out = io.BytesIO()
    assert main(path, argv=["--help"], stdout=out, stderr=io.StringIO()) == 0
    assert not [raw for raw in RAW if raw in out.getvalue()]
    assert b"\\x1b]0;pwned" in out.getvalue()


def test_error_messages_are_escaped_in_human_mode_only() -> None:
    """An ``unavailable.ssh`` message carries the remote side's stderr: escaped on stderr in
    human mode; with --json the wrapper is JSON, as it always was."""
    import io

    from venom_gen.cli._output import Output
    from venom_proto import VenomError

    err = VenomError("unavailable.ssh", f"ssh exited 255: {HOSTILE}", {"stderr": HOSTILE})
    stderr = io.StringIO()
    human = Output("venom-echo", json=False, stdout=io.BytesIO(), stderr=stderr, environ={})
    assert human.error(err) == 6
    assert not set(stderr.getvalue()) & {"\x1b", "\x07", "\x9b", "\u202e", "\r"}
    assert stderr.getvalue().startswith("venom-echo: ssh exited 255: \\x1b]0;pwned\\x07")
    stdout = io.BytesIO()
    as_json = Output("venom-echo", json=True, stdout=stdout, stderr=io.StringIO(), environ={})
    assert as_json.error(err) == 6
    assert b"\x1b" not in stdout.getvalue()  # JSON's own escaping: \u001b
    assert b"\\u001b]52;c;cHduZWQ=\\u0007" in stdout.getvalue()


def test_a_multi_line_value_under_a_wide_name() -> None:
    desc = obj(f("\u540d", "string"))
    assert render(desc, {"\u540d": "a\nb"}) == "\u540d: a\n    b\n"
