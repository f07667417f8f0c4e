"""Whole-process wall time: the sync client and the CLI vs a plain socket + json script.

Every figure is a process started with the venv's python (never ``uv run``, which adds its own
start-up) against one ``venom-echo serve`` daemon: start, connect, hello, one echo, print,
exit. Runs alternate between the programs and rows report medians of wall time, with each
run's CPU time (user+sys, steadier on a busy machine) alongside. Orientation figures:
``python -c pass``, the CPU cost of importing the client and the CLI path, and
``-X importtime`` totals (imports beyond a bare interpreter's).
"""

from __future__ import annotations

import resource
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench._imports import ImportProfile, import_profile
from bench._util import (
    PYTHON,
    VENV_BIN,
    Row,
    echo_argv,
    isolated_env,
    median,
    run_daemon,
    short_tmpdir,
)
from venom_gen.startup import ENV as IMAGE_SWITCH

__all__ = ("BASELINE_SCRIPT", "CLI_MODULES", "SYNC_SCRIPT", "Sizes", "run")

FLOOR = 1.3
#: Issue 22: a verb call at most 1.5x a bare interpreter's start and exit.
BARE_FLOOR = 1.5
TIMEOUT = 20.0
#: The modules a CLI verb call imports (console script, generated CLI, client, validators).
CLI_MODULES = (
    "venom_echo.__main__",
    "venom_gen.binary",
    "venom_gen.cli",
    "venom_proto.conventions",
    "venom_proto.sync_client",
    "venom_schema.runtime",
)

SYNC_SCRIPT = """\
import sys
from venom_proto.sync_client import SyncClient
with SyncClient(sys.argv[1], client_name="bench", client_version="0") as c:
    print(c.call("echo", {"text": "hi"})["text"])
"""

#: What a hand-written client does with the stdlib alone (RFC-0002 6: hello, then the call).
BASELINE_SCRIPT = """\
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
f = s.makefile("rb")
hello = {"proto": [1], "client": {"name": "bench", "version": "0"}, "caps": ["cancel"]}
s.sendall(json.dumps({"id": 0, "verb": "hello", "params": hello}).encode() + b"\\n")
json.loads(f.readline())
s.sendall(json.dumps({"id": 1, "verb": "echo", "params": {"text": "hi"}}).encode() + b"\\n")
print(json.loads(f.readline())["ok"]["text"])
"""


@dataclass(frozen=True)
class Sizes:
    """How much work a run does; the smoke test shrinks these."""

    runs: int = 30
    import_runs: int = 5


def _run_once(argv: Sequence[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU (user+sys) seconds of one process run to completion."""
    cpu0 = _children_cpu()
    t0 = time.perf_counter()
    out = subprocess.run(
        list(argv), env=env, capture_output=True, timeout=TIMEOUT, check=False, text=True
    )
    elapsed = time.perf_counter() - t0
    if out.returncode != 0 or (argv[1] != "-c" and "hi" not in out.stdout):
        raise RuntimeError(f"{argv} failed ({out.returncode}): {out.stdout}{out.stderr}")
    return elapsed, _children_cpu() - cpu0


def _children_cpu() -> float:
    # Only reaped children count, so the still-running daemon does not leak into the figure.
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _programs(tmp: Path, sock: str) -> dict[str, list[str]]:
    sync, base = tmp / "sync_client.py", tmp / "baseline_client.py"
    sync.write_text(SYNC_SCRIPT)
    base.write_text(BASELINE_SCRIPT)
    cli = [str(VENV_BIN / "venom-echo"), "echo", "--text", "hi", "--socket", sock]
    return {
        "baseline": [PYTHON, str(base), sock],
        "sync": [PYTHON, str(sync), sock],
        "cli": cli,
        "cli_json": [*cli, "--json"],  # human text's renderer stays off this path (issue 25)
        # The same call with the start-up image and the quick exit off (rfcs/0004 D-S76, D-S77):
        # the import system finds every module, the interpreter tears them down at exit.
        "cli_plain": list(cli),  # run with PLAIN_ENV
        "bare": [PYTHON, "-c", "pass"],
        "import_base": [PYTHON, "-c", "import json, socket"],
        "import_sync": [PYTHON, "-c", "import venom_proto.sync_client"],
        "import_cli": [PYTHON, "-c", "import " + ", ".join(CLI_MODULES)],
    }


def run(sizes: Sizes | None = None) -> list[Row]:
    """Rows 5 and 6 plus the orientation rows."""
    sz = sizes or Sizes()
    with short_tmpdir() as tmp:
        env = isolated_env(tmp)
        # Every program here is a console script or a standalone script, as a user runs it:
        # the checkout on PYTHONPATH (which the bench's own helpers need) would make each of
        # their imports search it first, a cost no installed CLI pays.
        env.pop("PYTHONPATH", None)
        sock = str(tmp / "echo.sock")
        programs = _programs(tmp, sock)
        wall: dict[str, list[float]] = {name: [] for name in programs}
        cpu: dict[str, list[float]] = {name: [] for name in programs}
        with run_daemon("venom-echo", echo_argv(sock), sock, env):
            envs = dict.fromkeys(programs, env)
            envs["cli_plain"] = {**env, IMAGE_SWITCH: "0"}
            # Warm the page cache and the .pyc files; the CLI's first successful call writes
            # its start-up image, as it does after an install.
            for name, argv in programs.items():
                _run_once(argv, envs[name])
            for _ in range(sz.runs):
                for name, argv in programs.items():
                    w, c = _run_once(argv, envs[name])
                    wall[name].append(w)
                    cpu[name].append(c)
            profiles = {
                name: import_profile(programs[name][1:], env, runs=sz.import_runs, timeout=TIMEOUT)
                for name in ("baseline", "sync")
            }
            profiles["cli"] = import_profile(
                programs["cli"], env, runs=sz.import_runs, timeout=TIMEOUT
            )
    return _rows(wall, cpu, profiles)


def _rows(
    wall: dict[str, list[float]], cpu: dict[str, list[float]], profiles: dict[str, ImportProfile]
) -> list[Row]:
    ms = {name: round(median(samples) * 1000, 2) for name, samples in wall.items()}
    cpu_ms = {name: round(median(samples) * 1000, 2) for name, samples in cpu.items()}

    base_ms, base_imports = ms["baseline"], profiles["baseline"].total_us
    base_cpu = cpu_ms["baseline"]
    return [
        Row("sync client process (start..exit)", ms["sync"], base_ms, "ms", "max", FLOOR),
        Row("CLI venom-echo echo (start..exit)", ms["cli"], base_ms, "ms", "max", FLOOR),
        Row("CLI venom-echo echo vs python -c pass", ms["cli"], ms["bare"], "ms", "max",
            BARE_FLOOR, note="issue 22's floor: with the start-up image (venom_gen.startup)"),
        Row("CLI without the start-up image vs python -c pass", ms["cli_plain"], ms["bare"],
            "ms", "info", note=f"{IMAGE_SWITCH}=0: ordinary imports and interpreter exit"),
        Row("sync client process CPU time", cpu_ms["sync"], base_cpu, "ms", "info",
            note="user+sys of the process; steadier than wall time on a busy machine"),
        Row("CLI process CPU time", cpu_ms["cli"], base_cpu, "ms", "info",
            note="human mode: `text: hi` through venom_gen.cli.human"),
        Row("CLI process CPU time with --json", cpu_ms["cli_json"], base_cpu, "ms", "info"),
        Row("CLI process CPU time vs python -c pass", cpu_ms["cli"], cpu_ms["bare"], "ms",
            "info"),
        Row("CLI process CPU time without the image vs python -c pass", cpu_ms["cli_plain"],
            cpu_ms["bare"], "ms", "info"),
        Row("python -c pass (orientation)", ms["bare"], base_ms, "ms", "info",
            note=f"CPU {cpu_ms['bare']} ms"),
        Row("CPU of python -c 'import venom_proto.sync_client'", cpu_ms["import_sync"],
            cpu_ms["import_base"], "ms", "info", note="baseline: python -c 'import json, socket'"),
        Row("CPU of python -c 'import <CLI path modules>'", cpu_ms["import_cli"],
            cpu_ms["import_base"], "ms", "info", note="baseline: python -c 'import json, socket'"),
        Row("importtime: sync client script imports", profiles["sync"].total_us, base_imports,
            "us", "info", note=profiles["sync"].describe()),
        Row("importtime: CLI imports", profiles["cli"].total_us, base_imports, "us", "info",
            note=profiles["cli"].describe()),
    ]  # fmt: skip
