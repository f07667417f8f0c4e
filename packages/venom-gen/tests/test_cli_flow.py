"""The generated CLI's main flow in-process: requests sent, hello, socket, token, local verbs,
help, Ctrl-C, broken pipes and model errors (fake daemon, no sockets)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pytest
from test_cli_kit import MODEL, CliRun, FakeDaemon, fake_daemon, run_cli, write_model

from venom_gen.cli import main
from venom_proto import VenomError

if TYPE_CHECKING:
    from venom_schema.model import Verb

__all__ = ("fake_daemon", "run_cli")  # fixtures, re-exported for pytest

Run = Any  # the run_cli fixture: (*argv, local=..., environ=...) -> CliRun


def test_cli_sends_params_as_given(run_cli: Run, fake_daemon: FakeDaemon) -> None:
    """RFC-0004 §1: `echo --text hi --style upper` sends exactly those params."""
    run_cli("echo", "--text", "hi", "--style", "upper", "--json")
    run_cli("echo", "--text", "hi")
    assert fake_daemon.requests == [
        ("echo", {"text": "hi", "style": "upper"}),
        ("echo", {"text": "hi"}),  # defaults are the daemon's to insert
    ]


def test_cli_every_kind_reaches_the_wire(run_cli: Run, fake_daemon: FakeDaemon) -> None:
    """RFC-0004 §4: value spellings per kind become the JSON values the daemon validates."""
    res = run_cli(
        "kinds", "--s", "null", "--flag=false", "--int=-5", "--num", "1.5e3", "--nothing", "null",
        "--list", "[1, 2]", "--obj", '{"x": 1}', "--max-count", "007",
    )  # fmt: skip
    assert res.code == 0
    params = fake_daemon.requests[0][1]
    assert params == {
        "s": "null", "flag": False, "int": -5, "num": 1500.0, "nothing": None,
        "list": [1, 2], "obj": {"x": 1}, "max_count": 7,
    }  # fmt: skip
    assert type(params["num"]) is float
    run_cli("kinds", "--num", "7")
    assert type(fake_daemon.requests[1][1]["num"]) is int


@pytest.mark.parametrize(
    "argv",
    [
        ["config", "get", "--key", "k"],
        ["config.get", "--key", "k"],
        ["config", "--key", "k", "get"],
    ],
)
def test_cli_spellings_reach_one_verb(
    run_cli: Run, fake_daemon: FakeDaemon, argv: list[str]
) -> None:
    """RFC-0004 §4: spaced and dotted spellings call the same verb."""
    assert run_cli(*argv).code == 0
    assert fake_daemon.requests == [("config.get", {"key": "k"})]


def test_cli_prefix_verbs(run_cli: Run, fake_daemon: FakeDaemon) -> None:
    """RFC-0004 §4: a following non-option token selects the child, else the prefix runs."""
    run_cli("skill", "--json")
    run_cli("skill", "install")
    run_cli("skill", "--target", "x", "install")
    assert [r[0] for r in fake_daemon.requests] == ["skill", "skill.install", "skill.install"]


def test_cli_hello_identity_and_socket_order(
    run_cli: Run, fake_daemon: FakeDaemon, tmp_path: Path
) -> None:
    """RFC-0002 §2.3: --socket beats <TOOL>_SOCKET beats the default path; hello names us."""
    env = {"VENOM_ECHO_SOCKET": "/env/x.sock", "XDG_RUNTIME_DIR": str(tmp_path)}
    run_cli("ping", environ=env)
    run_cli("ping", "--socket", "/flag/y.sock", environ=env)
    run_cli("--socket=/flag/z.sock", "ping", environ=env)
    run_cli("ping", environ={"XDG_RUNTIME_DIR": str(tmp_path)})
    sockets = [h["socket"] for h in fake_daemon.hellos]
    assert sockets == [
        "/env/x.sock",
        "/flag/y.sock",
        "/flag/z.sock",
        f"{tmp_path}/venom/venom-echo.sock",
    ]
    hello = fake_daemon.hellos[0]
    assert (hello["name"], hello["version"], hello["caps"], hello["auth"]) == (
        "venom-echo", "9.9.9", ("cancel",), None,
    )  # fmt: skip


TOKEN = "0123456789abcdef" * 4


def test_cli_sends_owner_token(run_cli: Run, fake_daemon: FakeDaemon, tmp_path: Path) -> None:
    """RFC-0005 §3: the owner token beside the socket goes into hello.auth."""
    (tmp_path / "d.token").write_text(TOKEN + "\n", encoding="utf-8")
    run_cli("ping", "--socket", str(tmp_path / "d.sock"))
    (tmp_path / "plain.token").write_text(TOKEN, encoding="utf-8")
    run_cli("ping", "--socket", str(tmp_path / "plain"))
    run_cli("ping", "--socket", str(tmp_path / "other.sock"))
    (tmp_path / "bad.token").write_text("not-a-token", encoding="utf-8")
    run_cli("ping", "--socket", str(tmp_path / "bad.sock"))
    (tmp_path / "link.token").symlink_to(tmp_path / "d.token")
    run_cli("ping", "--socket", str(tmp_path / "link.sock"))
    auths = [h["auth"] for h in fake_daemon.hellos]
    assert auths == [{"token": TOKEN}, {"token": TOKEN}, None, None, None]


def test_cli_connection_failure(run_cli: Run, fake_daemon: FakeDaemon) -> None:
    """RFC-0002 §7.3: no daemon -> unavailable.not_running with data.socket, exit 6."""
    fake_daemon.connect_error = VenomError(
        "unavailable.not_running", "no daemon at /x.sock", {"socket": "/x.sock"}
    )
    res = run_cli("ping", "--json")
    assert (res.code, res.stderr) == (6, "")
    assert json.loads(res.stdout)["error"]["data"] == {"socket": "/x.sock"}
    res = run_cli("ping")
    assert (res.code, res.stdout, res.stderr) == (6, "", "venom-echo: no daemon at /x.sock\n")


def test_cli_real_client_not_running(tmp_path: Path) -> None:
    """RFC-0002 §7.3's example, byte for byte, through the real sync client."""
    out = io.BytesIO()
    env = {"VENOM_ECHO_SOCKET": "/nonexistent/x.sock"}
    code = main(
        write_model(tmp_path),
        argv=["ping", "--json"],
        environ=env,
        stdout=out,
        stderr=io.StringIO(),
    )
    assert code == 6
    assert out.getvalue() == (
        b'{"error":{"code":"unavailable.not_running","message":"no daemon at /nonexistent/x.sock",'
        b'"data":{"socket":"/nonexistent/x.sock"}}}\n'
    )


def test_cli_real_client_path_too_long(tmp_path: Path) -> None:
    """RFC-0002 §2.3: a socket path beyond sun_path fails with unavailable.path_too_long (6)."""
    out = io.BytesIO()
    argv = ["ping", "--json", "--socket", "/tmp/" + "x" * 200 + ".sock"]
    code = main(write_model(tmp_path), argv=argv, environ={}, stdout=out, stderr=io.StringIO())
    assert code == 6
    assert json.loads(out.getvalue())["error"]["code"] == "unavailable.path_too_long"


def test_cli_local_verbs(run_cli: Run, fake_daemon: FakeDaemon) -> None:
    """RFC-0004 §7: serve/mcp run in-process with argv minus the command, never the daemon."""
    calls: list[list[str]] = []

    def serve(argv: list[str]) -> int:
        calls.append(argv)
        return 17

    res = run_cli("--socket", "/s.sock", "serve", "--foreground=true", local={"serve": serve})
    assert res.code == 17
    assert calls == [["--socket", "/s.sock", "--foreground=true"]]
    assert run_cli("serve", "--help", local={"serve": serve}).code == 0
    assert len(calls) == 1  # help comes from the model
    assert fake_daemon.requests == []
    assert fake_daemon.hellos == []


def test_cli_ctrl_c_cancels_upstream(run_cli: Run, fake_daemon: FakeDaemon) -> None:
    """RFC-0002 §4.4/§7.2: Ctrl-C cancels the request on its connection and exits 8."""
    res = run_cli("tail")
    assert (res.code, res.stdout) == (8, "line\na\n")  # a table of one column
    assert res.stderr == "venom-echo: cancelled by Ctrl-C\n"
    assert fake_daemon.cancelled == [2]
    assert fake_daemon.closed == 1


def test_cli_ctrl_c_non_streaming(run_cli: Run, fake_daemon: FakeDaemon) -> None:
    """RFC-0002 §4.4: a plain call interrupted by Ctrl-C is cancelled too, with --json output."""
    from test_cli_kit import Script

    fake_daemon.responder = lambda verb, params: Script(interrupt_after=0)
    res = run_cli("echo", "--text", "x", "--json")
    assert (res.code, res.stderr) == (8, "")
    assert json.loads(res.stdout) == {
        "error": {"code": "cancelled", "message": "cancelled by Ctrl-C"}
    }
    assert fake_daemon.cancelled == [2]


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"text": "hi"}, "venom-echo echo --text hi"),
        ({"text": "two words"}, "venom-echo echo --text 'two words'"),
        ({"text": "it's"}, "venom-echo echo --text 'it'\\''s'"),
        ({"text": "-v"}, "venom-echo echo --text=-v"),
        ({"text": ""}, "venom-echo echo --text ''"),
        ({"text": "$(rm -rf /)"}, "venom-echo echo --text '$(rm -rf /)'"),
    ],
)
def test_cli_help_example_quoting(params: dict[str, Any], expected: str) -> None:
    """RFC-0004 §6: example params become flags with POSIX shell quoting (as in the docs)."""
    from venom_gen.render._views import example_command

    verb = cast("Verb", {"name": "echo", "params": []})
    assert example_command("venom-echo", verb, params, json=False) == expected


def test_cli_help_example_kinds() -> None:
    """Examples spell booleans with =, negative numbers with =, JSON values quoted."""
    from venom_gen.render._views import example_command

    verb = cast("Verb", {"name": "pane.set_title", "params": []})
    params = {"flag": True, "int": -5, "num": 1.5, "obj": {"x": 1}}
    line = example_command("t", verb, params, json=False)
    assert line == "t pane set-title --flag=true --int=-5 --num 1.5 --obj '{\"x\":1}'"


def test_cli_bad_item_cancels_upstream(run_cli: Run, fake_daemon: FakeDaemon) -> None:
    """RFC-0004 §3: an invalid stream item is internal.result, never printed; the call ends."""
    res = run_cli("count", "--n", "98")
    assert (res.code, res.stdout) == (11, "i\n0\n")
    assert fake_daemon.cancelled == [2]


def test_cli_item_for_non_streaming_verb(run_cli: Run, fake_daemon: FakeDaemon) -> None:
    """A non-streaming verb that yields items fails with internal.result (exit 11)."""
    from test_cli_kit import Script

    fake_daemon.responder = lambda verb, params: Script(items=[1], result={"text": "x"})
    res = run_cli("echo", "--text", "x", "--json")
    assert res.code == 11
    assert json.loads(res.stdout)["error"]["code"] == "internal.result"


class _ClosedPipe(io.BytesIO):
    def write(self, data: Any) -> int:
        raise BrokenPipeError(32, "Broken pipe")


def test_cli_broken_pipe_is_quiet(tmp_path: Path, fake_daemon: FakeDaemon) -> None:
    """A reader that went away (`| head -1`) ends the CLI quietly with 141."""
    err = io.StringIO()
    code = main(
        write_model(tmp_path), argv=["count", "--n", "5"], connect=fake_daemon, environ={},
        stdout=_ClosedPipe(), stderr=err,
    )  # fmt: skip
    assert (code, err.getvalue()) == (141, "")
    assert fake_daemon.closed == 1


def test_cli_help_json_wraps_text(run_cli: Run) -> None:
    """RFC-0004 §4: --help with --json prints {"help": text} and exits 0."""
    for argv in (["--help"], ["config", "--help"], ["echo", "--help"], ["count", "--help"]):
        human, wrapped = run_cli(*argv), run_cli(*argv, "--json")
        assert (human.code, wrapped.code, human.stderr, wrapped.stderr) == (0, 0, "", "")
        assert json.loads(wrapped.stdout) == {"help": human.stdout}
        assert wrapped.stdout.count("\n") == 1


def test_cli_help_before_command(run_cli: Run, fake_daemon: FakeDaemon) -> None:
    """RFC-0004 §4: --help is accepted before the command and never reaches the daemon."""
    assert run_cli("--help", "echo").stdout == run_cli("echo", "--help").stdout
    assert run_cli("--help", "echo").stdout.startswith("Usage: venom-echo echo [options]\n")
    assert run_cli("config", "--help", "get").stdout.startswith("Usage: venom-echo config get ")
    assert fake_daemon.hellos == []


def test_cli_help_content(run_cli: Run) -> None:
    """Generated help names params, types, defaults, choices, grant, streaming and examples."""
    echo = run_cli("echo", "--text", "x", "--help").stdout
    for needle in ("--text TEXT", "required", 'default: "plain"', "plain, upper", "Grant: read",
                   "$ venom-echo echo --text hi --style upper", '{"text":"HI"}'):  # fmt: skip
        assert needle in echo
    count = run_cli("count", "--help").stdout
    for needle in ("NDJSON", "not printed", "conflict.count_busy", "exit 5"):
        assert needle in count
    assert "'status' field" in run_cli("run", "--help").stdout
    assert "--flag=true|false" in run_cli("kinds", "--help").stdout
    root = run_cli("--help").stdout
    for needle in ("pane set-title", "skill install", "set-title", "serve"):
        assert needle in root
    assert "hello" not in root
    group = run_cli("config", "--help").stdout
    assert "config get" in group
    assert "config set" in group
    assert "Return the supplied text" not in group


BAD_MODELS = [
    "not json",
    '{"format": 2, "tool": "x", "verbs": []}',
    '{"format": true, "tool": "x", "verbs": []}',
    "[]",
    '{"format": 1, "tool": "x", "verbs": [{"summary": "no name"}]}',
    '{"format": 1, "tool": "Bad Tool", "verbs": '
    '[{"name": "ping", "params": [], "result": {"kind": "null"}}]}',
]


@pytest.mark.parametrize("content", BAD_MODELS)
def test_cli_bad_model_file(tmp_path: Path, content: str) -> None:
    """An unreadable or foreign model is internal.model (exit 11), never a traceback."""
    path = tmp_path / "m.json"
    path.write_text(content, encoding="utf-8")
    out = io.BytesIO()
    code = main(path, argv=["--json", "ping"], stdout=out, stderr=io.StringIO())
    assert code == 11
    assert json.loads(out.getvalue())["error"]["code"] == "internal.model"


def test_cli_missing_model_file(tmp_path: Path) -> None:
    """A missing model file reports on stderr and exits 11."""
    err = io.StringIO()
    assert main(tmp_path / "none.json", argv=["ping"], stdout=io.BytesIO(), stderr=err) == 11
    assert "cannot be read as a model" in err.getvalue()


def test_cli_model_fixture_is_normalized() -> None:
    """The fixture model compiles with the real runtime (so the table tests real validation)."""
    from venom_schema.runtime import compile_verb

    for verb in MODEL["verbs"]:
        compile_verb(verb)
    assert isinstance(CliRun(0, "", ""), CliRun)
