"""``venom`` against venom-echo and venom-notes, both real daemons in one runtime directory.

Every command is a real ``venom`` process; what it prints is compared with what each product's
own CLI prints for the same thing, byte for byte: the help, every result and stream item, both
output modes (the same output layer prints both, so the human mode stays identical whatever it
becomes), and the same exit codes.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from venom_echo.product import MODEL_PATH as ECHO_MODEL
from venom_gen.testing import DaemonProcess, PrivateDirs
from venom_notes.product import MODEL_PATH as NOTES_MODEL
from venom_proto.model_cache import load_cache_info, load_model

TIMEOUT = 20.0
VENOM = str(Path(sys.executable).with_name("venom"))


class Family:
    """venom-echo and venom-notes serving from one runtime directory."""

    def __init__(self) -> None:
        self.dirs = PrivateDirs()
        self.echo = DaemonProcess("venom_echo.product:PRODUCT", dirs=self.dirs)
        self.notes = DaemonProcess("venom_notes.product:PRODUCT", dirs=self.dirs)
        self.env = self.echo.env

    def venom(self, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [VENOM, *args],
            env={**self.env, **env},
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )

    def cli(self, daemon: DaemonProcess, *args: str) -> subprocess.CompletedProcess[str]:
        return daemon.cli(*args, env=self.env)


@pytest.fixture(scope="module")
def family() -> Iterator[Family]:
    both = Family()
    try:
        both.echo.start()
        both.notes.start()
        yield both
    finally:
        both.echo.stop()
        both.notes.stop()
        both.dirs.remove()


def _digest(model_path: str) -> str:
    found: str = load_cache_info(model_path)["digest"]
    return found


def test_ls_lists_both_daemons_with_hello_and_peer_pid(family: Family) -> None:
    out = family.venom("ls", "--json")
    assert out.returncode == 0, out.stderr
    listed: dict[str, Any] = json.loads(out.stdout)
    assert listed["runtime_dir"] == str(Path(family.echo.socket).parent)
    rows = {(r["tool"], r["status"], r["pid"], r["schema"]) for r in listed["sockets"]}
    assert rows == {
        ("venom-echo", "live", family.echo.pid, _digest(ECHO_MODEL)),
        ("venom-notes", "live", family.notes.pid, _digest(NOTES_MODEL)),
    }
    assert {r["version"] for r in listed["sockets"]} == {"0.2.0"}
    human = family.venom("ls")
    assert human.returncode == 0
    assert "venom-echo" in human.stdout
    assert "venom-notes" in human.stdout


@pytest.mark.parametrize(
    ("which", "verb", "words"),
    [
        ("echo", None, ()),
        ("echo", "echo.repeat", ("echo", "repeat")),
        ("echo", "config", ("config",)),
        ("notes", None, ()),
        ("notes", "note.add", ("note", "add")),
        ("notes", "note.list", ("note", "list")),
    ],
)
def test_describe_prints_the_products_own_help(
    family: Family, which: str, verb: str | None, words: tuple[str, ...]
) -> None:
    daemon = family.echo if which == "echo" else family.notes
    shown = family.venom("describe", daemon.tool, *([verb] if verb else []))
    own = family.cli(daemon, *words, "--help")
    assert (shown.returncode, own.returncode) == (0, 0), shown.stderr
    assert _same_help(shown.stdout, own.stdout)


def _same_help(served: str, own: str) -> bool:
    """Byte for byte, but for the key order inside an example's JSON: the served model is
    canonical JSON, whose objects sort their keys (rfcs/0004 D-S66)."""
    if served == own:
        return True
    pairs = list(zip(served.splitlines(), own.splitlines(), strict=True))
    for a, b in pairs:
        if a != b and json.loads(a) != json.loads(b):
            return False
    return any(a != b for a, b in pairs)


def test_describe_json_is_the_served_model_and_its_digest(family: Family) -> None:
    for daemon, path in ((family.echo, ECHO_MODEL), (family.notes, NOTES_MODEL)):
        out = family.venom("describe", daemon.tool, "--json")
        assert out.returncode == 0, out.stderr
        shown = json.loads(out.stdout)
        assert shown["schema"] == _digest(path)
        assert shown["model"] == load_model(path)
        assert shown["server"]["name"] == daemon.tool
        one = json.loads(family.venom("describe", daemon.socket, "doctor", "--json").stdout)
        assert [v["name"] for v in one["verbs"]] == ["doctor"]


#: (daemon, verb, venom's PARAMS, the product CLI's words for the same call, shell-quoted).
CALLS = [
    ("echo", "echo", '{"text":"hi"}', "echo --text hi"),
    ("echo", "echo.repeat", '{"text":"x","count":3}', "echo repeat --text x"),
    ("echo", "echo.exit", '{"status":3}', "echo exit --status 3"),
    ("echo", "echo.fail", '{"code":"not_found.echo"}', "echo fail --code not_found.echo"),
    ("echo", "echo.types", '{"count":2,"tags":["a"]}', """echo types --count 2 --tags '["a"]'"""),
    ("echo", "skill", None, "skill"),
    (
        "notes",
        "note.add",
        '{"text":"milk","tags":["home"]}',
        """note add --text milk --tags '["home"]'""",
    ),
    ("notes", "note.list", '{"tag":"home"}', "note list --tag home"),
    ("notes", "note.get", '{"id":9999}', "note get --id 9999"),
]


@pytest.mark.parametrize(("which", "verb", "params", "words"), CALLS, ids=[c[1] for c in CALLS])
@pytest.mark.parametrize("mode", [("--json",), ()], ids=["json", "human"])
def test_call_prints_what_the_products_cli_prints(
    family: Family,
    which: str,
    verb: str,
    params: str | None,
    words: str,
    mode: tuple[str, ...],
) -> None:
    daemon = family.echo if which == "echo" else family.notes
    if verb == "note.add":  # its result names a fresh id: compare the shape, not the bytes
        out = family.venom("call", daemon.tool, verb, *([params] if params else []), *mode)
        assert out.returncode == 0, out.stderr
        return
    out = family.venom("call", daemon.tool, verb, *([params] if params else []), *mode)
    own = family.cli(daemon, *shlex.split(words), *mode)
    assert (out.returncode, out.stdout) == (own.returncode, own.stdout), out.stderr
    # The same message; a usage hint names each client's own help.
    first = out.stderr.partition("\n")[0]
    assert first.replace("venom:", f"{daemon.tool}:") == own.stderr.partition("\n")[0]


def test_a_bad_choice_is_refused_by_venom_as_by_the_product(family: Family) -> None:
    out = family.venom("call", "venom-echo", "echo.fail", '{"code":"nope.x"}')
    own = family.cli(family.echo, "echo", "fail", "--code", "nope.x")
    assert (out.returncode, own.returncode) == (2, 2)
    assert out.stderr.endswith("Try 'venom describe venom-echo echo.fail'.\n")


def test_call_presents_the_owner_token_and_the_tool_token(family: Family) -> None:
    """The hello.auth rule of every client: the owner token beside a local socket grants
    write; <TOOL>_TOKEN, when set, is presented instead (a stranger's: read-only, exit 4)."""
    added = family.venom("call", "venom-notes", "note.add", '{"text":"t"}', "--json")
    assert added.returncode == 0, added.stdout + added.stderr
    note = json.loads(added.stdout)
    removed = family.venom(
        "call", family.notes.socket, "note.remove", json.dumps({"id": note["id"]})
    )
    assert removed.returncode == 0, removed.stderr
    bad = family.venom(
        "call", "venom-notes", "note.add", '{"text":"u"}', "--json", VENOM_NOTES_TOKEN="nope"
    )
    own = family.notes.cli(
        "note", "add", "--text", "u", "--json", env={**family.env, "VENOM_NOTES_TOKEN": "nope"}
    )
    assert (bad.returncode, own.returncode) == (4, 4)
    assert json.loads(bad.stdout)["error"]["code"] == json.loads(own.stdout)["error"]["code"]


def test_call_refuses_bad_params_and_local_verbs(family: Family) -> None:
    bad = family.venom("call", "venom-echo", "echo.repeat", '{"text":"x","count":-1}', "--json")
    assert bad.returncode == 2
    assert json.loads(bad.stdout)["error"]["code"] == "invalid_params.range"
    for verb in ("serve", "hello", "mcp"):
        out = family.venom("call", "venom-echo", verb, "--json")
        assert out.returncode == 10, (verb, out.stdout)
        assert json.loads(out.stdout)["error"]["code"] == "unsupported.verb"
