"""``venom``'s own command line, in process: usage errors, help, version, targets."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from venom_gen._version import VERSION
from venom_gen.family import main
from venom_gen.family._target import resolve_target
from venom_proto import VenomError


def _run(*argv: str, environ: dict[str, str] | None = None) -> tuple[int, str, str]:
    out, err = io.BytesIO(), io.StringIO()
    env = {"XDG_RUNTIME_DIR": "/nonexistent/run"} if environ is None else environ
    code = main(list(argv), environ=env, stdout=out, stderr=err)
    return code, out.getvalue().decode(), err.getvalue()


@pytest.mark.parametrize(
    ("argv", "data"),
    [
        ((), {}),
        (("frob",), {"command": "frob"}),
        (("ls", "extra"), {"command": "ls", "args": 1}),
        (("describe",), {"command": "describe", "args": 0}),
        (("call", "venom-echo"), {"command": "call", "args": 1}),
        (("call", "a", "b", "{}", "more"), {"command": "call", "args": 4}),
        (("ls", "--frob"), {"option": "--frob"}),
        (("ls", "--tool", "x"), {"option": "--tool"}),
        (("call", "a", "b", "--tool"), {"option": "--tool"}),
    ],
)
def test_usage_errors_exit_2_with_the_wrapper(argv: tuple[str, ...], data: dict[str, Any]) -> None:
    code, out, err = _run(*argv, "--json")
    assert code == 2
    error = json.loads(out)["error"]
    assert (error["code"], error["data"]) == ("invalid_params.usage", data)
    assert err == ""
    human = _run(*argv)
    assert human[0] == 2
    assert human[1] == ""
    assert human[2].startswith("venom: ")
    assert "Try 'venom" in human[2]


def test_help_and_version() -> None:
    code, out, _ = _run("--help")
    assert code == 0
    assert out.startswith("venom: the client of every Venom daemon")
    for command in ("ls", "describe", "call"):
        code, out, _ = _run(command, "--help")
        assert code == 0
        assert out.startswith(f"Usage: venom {command}")
    code, out, _ = _run("call", "--help", "--json")
    assert code == 0
    assert json.loads(out)["help"].startswith("Usage: venom call")
    assert _run("--version") == (0, f"venom {VERSION}\n", "")
    assert json.loads(_run("--version", "--json")[1]) == {"tool": "venom", "version": VERSION}


def test_targets_resolve_as_the_tools_own_cli_would() -> None:
    env = {"XDG_RUNTIME_DIR": "/run/user/7", "VENOM_NOTES_SOCKET": "ssh://h/x/venom-notes.sock"}
    by_name = resolve_target("venom-echo", tool=None, environ=env)
    assert (by_name.socket, by_name.tool, by_name.remote) == (
        "/run/user/7/venom/venom-echo.sock",
        "venom-echo",
        False,
    )
    overridden = resolve_target("venom-notes", tool=None, environ=env)
    assert (overridden.socket, overridden.remote) == ("ssh://h/x/venom-notes.sock", True)
    path = resolve_target("./venom-echo.sock", tool=None, environ=env)
    assert (path.socket, path.tool) == ("./venom-echo.sock", "venom-echo")
    assert resolve_target("/tmp/odd", tool=None, environ=env).tool is None
    assert resolve_target("/tmp/odd", tool="venom-echo", environ=env).tool == "venom-echo"
    url = resolve_target("ssh://h:22/run/venom/venom-echo.sock", tool=None, environ=env)
    assert (url.tool, url.remote) == ("venom-echo", True)
    assert resolve_target("ssh://h", tool="venom-echo", environ=env).tool == "venom-echo"
    for text, tool in (("ssh://h", None), ("", None), ("x", "Not A Tool")):
        with pytest.raises(VenomError) as caught:
            resolve_target(text, tool=tool, environ=env)
        assert caught.value.code == "invalid_params.usage"


def test_an_unreachable_target_is_unavailable_not_a_traceback() -> None:
    code, out, _ = _run("call", "venom-echo", "ping", "--json")
    assert code == 6
    assert json.loads(out)["error"]["code"] == "unavailable.not_running"
    code, out, _ = _run("describe", "ssh://h", "--json")
    assert code == 2
    assert json.loads(out)["error"]["data"] == {"socket": "ssh://h"}
    code, _, err = _run("call", "venom-echo", "ping", "{bad")
    assert code == 2
    assert "PARAMS is not JSON" in err
