"""README.md on a fresh machine: its set-up commands and its session, run as a new user would.

For each Python (Debian's own, externally managed per PEP 668, and one where pip may install),
in a fresh copy of the checkout with a fresh HOME and that Python first on PATH as ``python3``:

- the README's first command, verbatim, starts venom-echo (making ``.uv/`` and ``.venv/`` first);
- the session's ``console`` block, run line by line in one bash shell, prints exactly what the
  README shows (stdout and stderr together; the format of tests/console_kit.py);
- the second command is the same set-up followed by ``uv run --locked nox``: its set-up and its
  uv start nox (``nox --list`` here; CI runs the whole of it through ``.ci/run``).

Nothing outside the copy and the temporary directories is written except uv's and pip's
download caches, which are shared so that a run downloads nothing twice.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from console_kit import CommandStep, output_matches, parse_console
from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
#: .ci/run installs Debian's python3 and python3-venv and sets this: then Debian's may not skip.
REQUIRED = os.environ.get("VENOM_README_PYTHONS_REQUIRED") == "1"
START_TIMEOUT = 300.0  # the first command makes two environments; downloads when caches are cold
#: Variables a fresh shell may still need to reach the package index.
PASSED_ON = frozenset(
    [
        "http_proxy",
        "https_proxy",
        "no_proxy",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "NO_PROXY",
        "SSL_CERT_FILE",
        "UV_INDEX_URL",
        "UV_DEFAULT_INDEX",
        "PIP_INDEX_URL",
        "TMPDIR",
    ]
)


def _blocks(info: str) -> list[tuple[int, str]]:
    tokens = MarkdownIt().parse(README.read_text(encoding="utf-8"))
    return [
        (t.map[0] + 2, t.content)
        for t in tokens
        if t.type == "fence" and t.info.split()[:1] == [info] and t.map is not None
    ]


def setup_commands() -> tuple[str, str]:
    """The README's two commands: the first ``sh`` block, one command a line."""
    first, second = _blocks("sh")[0][1].splitlines()
    return first, second


def session() -> list[CommandStep]:
    """The first ``console`` block: the session with venom-echo."""
    line, content = _blocks("console")[0]
    return parse_console(content, line)


def _externally_managed(python: str) -> bool:
    code = "import os, sysconfig; print(os.path.isfile(os.path.join("
    code += "sysconfig.get_path('stdlib'), 'EXTERNALLY-MANAGED')))"
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.strip() == "True"


def _has_venv(python: str) -> bool:
    probe = [python, "-c", "import venv, ensurepip"]
    return subprocess.run(probe, capture_output=True, check=False).returncode == 0


def _python(kind: str) -> str:
    """The interpreter for ``kind``, or skip (fail under .ci/run) when this machine has none."""
    if kind == "debian":
        python = "/usr/bin/python3"
        usable = Path(python).is_file() and _externally_managed(python) and _has_venv(python)
        why = "no externally managed /usr/bin/python3 with venv (apt install python3-venv)"
    else:
        python = getattr(sys, "_base_executable", sys.executable)
        usable = not _externally_managed(python) and _has_venv(python)
        why = f"{python} is externally managed or lacks venv"
    if not usable:
        if REQUIRED and kind == "debian":
            pytest.fail(why)
        pytest.skip(why)
    return python


def _copy_checkout(dest: Path) -> None:
    """The checkout as a clone would have it: tracked and new files, nothing ignored."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source, target = ROOT / name, dest / name
        if not source.is_symlink() and not source.exists():
            continue  # deleted in the working tree
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            target.symlink_to(os.readlink(source))
        else:
            target.write_bytes(source.read_bytes())
            target.chmod(source.stat().st_mode)


def _caches() -> dict[str, str]:
    uv = subprocess.run(["uv", "cache", "dir"], capture_output=True, text=True, check=True)
    cache_home = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    pip = os.environ.get("PIP_CACHE_DIR", str(cache_home / "pip"))
    return {"UV_CACHE_DIR": uv.stdout.strip(), "PIP_CACHE_DIR": pip}


class FreshMachine:
    """A copy of the checkout, a fresh HOME and runtime dir, and ``python3`` as chosen."""

    def __init__(self, root: Path, python: str) -> None:
        self.checkout = root / "venom"
        _copy_checkout(self.checkout)
        bin_dir = root / "bin"
        bin_dir.mkdir()
        (bin_dir / "python3").symlink_to(python)
        runtime = root / "run"
        runtime.mkdir(mode=0o700)
        self.socket = runtime / "venom" / "venom-echo.sock"
        self.env = {k: v for k, v in os.environ.items() if k in PASSED_ON}
        self.env.update(
            _caches(),
            PATH=f"{bin_dir}:/usr/local/bin:/usr/bin:/bin",
            HOME=str(root / "home"),
            LANG="C.UTF-8",
            XDG_RUNTIME_DIR=str(runtime),
        )
        (root / "home").mkdir()
        self.log = root / "first-command.log"
        self.daemon: subprocess.Popen[bytes] | None = None

    def run(self, script: str, timeout: float = 120.0) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["bash", "-c", script],
            cwd=self.checkout,
            env=self.env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def start(self, command: str) -> None:
        with self.log.open("wb") as log:
            self.daemon = subprocess.Popen(
                ["bash", "-c", command],
                cwd=self.checkout,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: bash, uv and the daemon
            )
        deadline = time.monotonic() + START_TIMEOUT
        while not self._listening():
            assert self.daemon.poll() is None, self.log.read_text(errors="replace")[-3000:]
            assert time.monotonic() < deadline, "venom-echo did not start"
            time.sleep(0.1)

    def _listening(self) -> bool:
        try:
            with socket.socket(socket.AF_UNIX) as s:
                s.connect(str(self.socket))
        except OSError:
            return False
        return True

    def stop(self) -> int | None:
        """SIGTERM to the daemon (its pid is in its lock file), as the docs stop it; then wait
        for the first command, which ends with the daemon's status. Kill what is left."""
        if self.daemon is None:
            return None
        lock = self.socket.with_suffix(".lock")
        if self.daemon.poll() is None and lock.is_file():
            os.kill(int(lock.read_text().split()[0]), signal.SIGTERM)
        try:
            return self.daemon.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(self.daemon.pid, signal.SIGKILL)
            self.daemon.wait(30)
            return None


@pytest.fixture(params=["debian", "pip-allowed"])
def machine(request: pytest.FixtureRequest) -> Iterator[FreshMachine]:
    python = _python(request.param)
    # /tmp, not pytest's tmp_path: the daemon's socket path must fit in sun_path.
    root = Path(tempfile.mkdtemp(prefix="vr", dir="/tmp"))
    fresh = FreshMachine(root, python)
    try:
        yield fresh
    finally:
        fresh.stop()
        subprocess.run(["rm", "-rf", str(root)], check=False)


def _session_script(steps: list[CommandStep]) -> str:
    """One bash script for the session: a separator before each command, failures shown."""
    lines = ["exec 2>&1"]
    for i, step in enumerate(steps):
        lines += [f"printf '\\036%d\\n' {i}", step.command]
        lines.append(
            f"s=$?; [ $s -eq 0 ] || printf 'README line {step.line}: exit status %d\\n' $s"
        )
    return "\n".join(lines) + "\n"


def _run_steps(
    machine: FreshMachine, steps: list[CommandStep], doc: str, timeout: float = 120.0
) -> None:
    """``steps`` in one bash shell in the checkout, each output compared with the doc's."""
    done = machine.run(_session_script(steps), timeout=timeout)
    outputs = done.stdout.split("\x1e")[1:]
    assert len(outputs) == len(steps), done.stdout
    for step, output in zip(steps, outputs, strict=True):
        output = output.partition("\n")[2]  # after the separator's own line
        shown = "\n".join(step.expected)
        report = f"{doc} line {step.line}: $ {step.command}\n--- expected\n{shown}\n--- got\n"
        assert output_matches(step.expected, output), report + output


def service_install() -> list[CommandStep]:
    """docs/service.md's first console block: install venom-echo from the checkout."""
    tokens = MarkdownIt().parse((ROOT / "docs" / "service.md").read_text(encoding="utf-8"))
    block = next(t for t in tokens if t.type == "fence" and t.info.split()[:1] == ["console"])
    assert block.map is not None
    return parse_console(block.content, block.map[0] + 2)


def test_the_readme_on_a_fresh_machine(machine: FreshMachine) -> None:
    first, second = setup_commands()
    setup, _, run = first.rpartition(" && ")
    assert run.endswith("uv run --locked venom-echo serve")
    assert second == f"{setup} && {run.removesuffix('venom-echo serve')}nox"

    machine.start(first)
    _run_steps(machine, session(), "README")

    quiet = machine.run(".uv/bin/uv run venom-echo echo --text hi")
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "text: hi\n", "")

    # After the same set-up, docs/service.md installs venom-echo from the checkout as a tool
    # (nox -s dist, then uv tool install): its ~/.local/bin/venom-echo answers too.
    _run_steps(machine, service_install(), "docs/service.md", timeout=START_TIMEOUT)
    assert (Path(machine.env["HOME"]) / ".local/share/man/man1/venom-echo-echo.1").is_file()

    listed = machine.run(f"{setup} && {run.removesuffix('venom-echo serve')}nox --list")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert "* release-check" in listed.stdout

    assert machine.stop() == 0
    log = machine.log.read_text(errors="replace")
    assert "listening on" in log
    assert "Bytecode compiled" not in log


def test_debian_python_refuses_the_old_pip_command(tmp_path: Path) -> None:
    """Why the commands make their own venv: `python3 -m pip install` is refused there."""
    python = _python("debian")
    proc = subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "uv"],
        capture_output=True,
        text=True,
        check=False,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},  # no socket here: tmp_path fits
    )
    assert proc.returncode != 0
    assert "externally-managed-environment" in proc.stderr or "No module named pip" in proc.stderr


def test_ci_runs_exactly_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    commands = [line for line in ci.splitlines() if line and not line.lstrip().startswith("#")]
    assert commands[-1] == setup_commands()[1]
    assert "python3-venv" in ci
