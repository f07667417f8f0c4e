"""The service manager files (rfcs/0001 §12): systemd's own verifier, a plistlib round
trip, and the units' socket path and command driven for real by systemd-socket-activate."""

from __future__ import annotations

import os
import plistlib
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from venom_echo.product import MODEL_PATH as ECHO_MODEL
from venom_gen.render.service import (
    render_launchd_plist,
    render_systemd_service,
    render_systemd_socket,
    service_files,
)
from venom_gen.testing import PrivateDirs
from venom_notes.product import MODEL_PATH as NOTES_MODEL
from venom_proto.conventions import resolve_socket_path
from venom_proto.model_cache import load_model
from venom_schema.model import Model

ANALYZE = shutil.which("systemd-analyze")
ACTIVATE = shutil.which("systemd-socket-activate")
TIMEOUT = 10.0


def settings(unit: str) -> dict[str, str]:
    """``Key=value`` lines of a unit file (the last one wins; comments and sections dropped)."""
    found: dict[str, str] = {}
    for line in unit.splitlines():
        key, sep, value = line.partition("=")
        if sep and not line.startswith(("#", "[")):
            found[key] = value
    return found


@pytest.fixture
def echo_product_model() -> Model:
    model: Model = load_model(ECHO_MODEL)
    return model


@pytest.fixture
def notes_product_model() -> Model:
    model: Model = load_model(NOTES_MODEL)
    return model


@pytest.fixture
def home(venom_dirs: PrivateDirs) -> Path:
    """A private HOME, short enough for sun_path, whose ``run`` is the XDG_RUNTIME_DIR: the
    test kit's directories (removed afterwards), used here as one tree."""
    return venom_dirs.root


def _install_binary(home: Path, tool: str) -> Path:
    """``~/.local/bin/<tool>``, where the units look by default: the venv's own binary."""
    binary = Path(sys.executable).with_name(tool)
    if not binary.exists():
        pytest.skip(f"{tool} is not installed beside {sys.executable}")
    target = home / ".local" / "bin" / tool
    target.parent.mkdir(parents=True)
    target.symlink_to(binary)
    return target


def _install_man_pages(home: Path, model_path: str) -> None:
    """The product's generated man pages where ``man`` finds them (``Documentation=man:``)."""
    man1 = home / "man" / "man1"
    man1.mkdir(parents=True)
    for page in (Path(model_path).parent / "generated" / "man").iterdir():
        (man1 / page.name).symlink_to(page)


def _verify(home: Path, units: list[Path]) -> subprocess.CompletedProcess[str]:
    assert ANALYZE is not None
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "XDG_RUNTIME_DIR": str(home / "run"),
        "MANPATH": str(home / "man"),
        "SYSTEMD_LOG_LEVEL": "notice",
    }
    return subprocess.run(
        [ANALYZE, "verify", "--user", *map(str, units)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _verifier_runs(home: Path) -> str | None:
    """Why ``systemd-analyze verify --user`` cannot run here, or None when it can."""
    if ANALYZE is None:
        return "systemd-analyze is not installed"
    probe = home / "probe.service"
    probe.write_text("[Service]\nType=oneshot\nExecStart=/bin/true\n")
    done = _verify(home, [probe])
    probe.unlink()
    if done.returncode != 0 or done.stderr.strip():
        return f"systemd-analyze verify --user does not run here: {done.stderr.strip()[:200]}"
    return None


@pytest.mark.parametrize("product", ["echo", "notes"])
def test_systemd_analyze_verifies_the_generated_units(
    product: str, home: Path, echo_product_model: Model, notes_product_model: Model
) -> None:
    model = echo_product_model if product == "echo" else notes_product_model
    reason = _verifier_runs(home)
    if reason is not None:
        pytest.skip(reason)
    _install_binary(home, model["tool"])
    _install_man_pages(home, ECHO_MODEL if product == "echo" else NOTES_MODEL)
    units = home / "units"
    units.mkdir()
    for name, text in service_files(model).items():
        if not name.endswith(".plist"):
            (units / name).write_text(text)
    done = _verify(home, sorted(units.iterdir()))
    assert (done.returncode, done.stderr) == (0, ""), done.stderr


def test_the_verifier_catches_a_broken_unit(home: Path, echo_product_model: Model) -> None:
    """The check above can fail: a misspelt setting and a missing binary are reported."""
    reason = _verifier_runs(home)
    if reason is not None:
        pytest.skip(reason)
    broken = home / "venom-echo.service"
    broken.write_text(
        render_systemd_service(echo_product_model).replace("Type=notify", "Type=notifyy")
    )
    (home / "venom-echo.socket").write_text(render_systemd_socket(echo_product_model))
    done = _verify(home, [broken, home / "venom-echo.socket"])
    assert "notifyy" in done.stderr
    assert "is not executable" in done.stderr  # no ~/.local/bin/venom-echo in this HOME


def test_the_socket_unit_listens_where_serve_and_the_cli_look(echo_product_model: Model) -> None:
    socket_unit = settings(render_systemd_socket(echo_product_model))
    # %t is $XDG_RUNTIME_DIR in a user manager (systemd.unit(5)).
    listen = socket_unit["ListenStream"].replace("%t", "/R")
    assert listen == resolve_socket_path("venom-echo", None, {"XDG_RUNTIME_DIR": "/R"})
    assert (socket_unit["SocketMode"], socket_unit["DirectoryMode"]) == ("0600", "0700")
    assert socket_unit["Accept"] == "no"
    service = settings(render_systemd_service(echo_product_model))
    assert service["Type"] == "notify"
    assert service["ExecStart"] == "%h/.local/bin/venom-echo serve"
    assert service["StandardError"] == "journal"


def test_a_given_command_is_one_word_of_exec_start(echo_product_model: Model) -> None:
    plain = settings(render_systemd_service(echo_product_model, "/opt/v/bin/venom-echo"))
    assert plain["ExecStart"] == "/opt/v/bin/venom-echo serve"
    spaced = settings(render_systemd_service(echo_product_model, "/opt/my v/venom-echo"))
    assert spaced["ExecStart"] == '"/opt/my v/venom-echo" serve'
    # systemd will not name an executable holding a quote: sh runs it, the path an argument
    quoted = settings(render_systemd_service(echo_product_model, '/opt/my "v"/venom-echo'))
    assert quoted["ExecStart"] == (
        '/bin/sh -c "exec \\"$$0\\" \\"$$@\\"" "/opt/my \\"v\\"/venom-echo" serve'
    )


def test_summaries_cannot_break_a_unit(echo_product_model: Model) -> None:
    model = {**echo_product_model, "summary": "100% evil\n[Service]\nExecStart=/bin/rm \\"}
    unit = render_systemd_service(model)  # type: ignore[arg-type]
    assert "Description=100%% evil [Service] ExecStart=/bin/rm\n" in unit
    assert unit.count("\n[Service]\n") == 1


def test_the_plist_round_trips_through_plistlib(echo_product_model: Model) -> None:
    job = plistlib.loads(render_launchd_plist(echo_product_model).encode())
    assert job == {
        "Label": "venom.venom-echo",
        "ProgramArguments": [
            "/bin/sh",
            "-c",
            'exec "$HOME/.local/bin/venom-echo" serve 2>>"$HOME/Library/Logs/venom-echo.log"',
        ],
        "RunAtLoad": True,
        "KeepAlive": {"SuccessfulExit": False},
        "ProcessType": "Background",
    }
    quoted = plistlib.loads(render_launchd_plist(echo_product_model, "/a b/it's").encode())
    assert quoted["ProgramArguments"][2].startswith("exec '/a b/it'\"'\"'s' serve")


def test_the_plist_command_runs_under_sh(home: Path, echo_product_model: Model) -> None:
    """What launchd would run: ``/bin/sh -c`` the plist's line starts ``serve``."""
    _install_binary(home, "venom-echo")
    (home / "Library" / "Logs").mkdir(parents=True)
    argv = plistlib.loads(render_launchd_plist(echo_product_model).encode())["ProgramArguments"]
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "XDG_RUNTIME_DIR": str(home / "run")}
    proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL)
    sock = home / "run" / "venom" / "venom-echo.sock"
    try:
        deadline = time.monotonic() + TIMEOUT
        while not sock.exists():
            assert proc.poll() is None, (home / "Library/Logs/venom-echo.log").read_text()
            assert time.monotonic() < deadline
            time.sleep(0.02)
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(TIMEOUT) == 0
    assert "listening on" in (home / "Library" / "Logs" / "venom-echo.log").read_text()


@pytest.mark.skipif(ACTIVATE is None, reason="systemd-socket-activate is not installed")
def test_the_units_socket_and_command_work_under_socket_activation(
    home: Path, echo_product_model: Model
) -> None:
    """The pair as systemd would run it: ListenStream (with %t), SocketMode and ExecStart (with
    %h) handed to systemd-socket-activate; the first CLI call starts the daemon."""
    assert ACTIVATE is not None
    binary = _install_binary(home, "venom-echo")
    socket_unit = settings(render_systemd_socket(echo_product_model))
    service = settings(render_systemd_service(echo_product_model))
    listen = socket_unit["ListenStream"].replace("%t", str(home / "run"))
    Path(listen).parent.mkdir(mode=int(socket_unit["DirectoryMode"], 8))
    argv = service["ExecStart"].replace("%h", str(home)).split()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "XDG_RUNTIME_DIR": str(home / "run")}
    setenv = [f"--setenv={k}={v}" for k, v in env.items()]
    proc = subprocess.Popen([ACTIVATE, "-l", listen, *setenv, *argv], env=env)
    try:
        deadline = time.monotonic() + TIMEOUT
        while not os.path.exists(listen):
            assert time.monotonic() < deadline
            time.sleep(0.01)
        os.chmod(listen, int(socket_unit["SocketMode"], 8))
        call = subprocess.run(
            [str(binary), "echo", "--text", "activated"],
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
        assert (call.returncode, call.stdout) == (0, "text: activated\n"), call.stderr
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(TIMEOUT)


#: Directory names ``service install`` met in the wild or from an attacker (issue 27).
_HOSTILE_DIRS = ["o'brien", "100%h", 'say "hi"', "back\\slash", "$HOME", "a;b", "tab\tbed"]


@given(
    dirs=st.lists(
        st.one_of(
            st.sampled_from(_HOSTILE_DIRS[:-1]),
            st.text(
                st.characters(
                    min_codepoint=0x20, max_codepoint=0x2FF, blacklist_characters="/\x7f"
                ).filter(lambda c: not 0x80 <= ord(c) <= 0x9F),
                min_size=1,
                max_size=8,
            ).filter(lambda name: name not in (".", "..")),
        ),
        min_size=1,
        max_size=2,
    )
)
@hypothesis_settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_systemd_runs_exactly_the_binary_path_it_was_given(
    dirs: list[str], home: Path, echo_product_model: Model
) -> None:
    """The real reader: ``systemd-analyze verify`` resolves ``ExecStart=``'s first word and
    reports it "not executable" unless it reads back exactly the path of the binary made
    there; a parse that split or expanded it names another path."""
    reason = _verifier_runs(home)
    if reason is not None:
        pytest.skip(reason)
    place = home / "p"
    shutil.rmtree(place, ignore_errors=True)
    binary = place.joinpath(*dirs) / "venom-echo"
    binary.parent.mkdir(parents=True)
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    units = home / "units"
    shutil.rmtree(units, ignore_errors=True)
    units.mkdir()
    (units / "venom-echo.service").write_text(
        render_systemd_service(echo_product_model, [str(binary)])
    )
    (units / "venom-echo.socket").write_text(render_systemd_socket(echo_product_model))
    done = _verify(home, sorted(units.iterdir()))
    problems = [line for line in done.stderr.splitlines() if "Command 'man " not in line]
    assert problems == [], done.stderr
