"""``venom call`` one-shot against a plain python socket client (issue 25: at most 1.3x).

Each figure is a whole process started with the venv's python (the ``venom`` console script)
against one ``venom-echo serve``: start, connect, hello, one ``echo``, print, exit. The plain
client is bench_process's `BASELINE_SCRIPT` (``json`` + ``socket``, hello then the call). The
``venom`` rows are with the daemon's model cached by digest (every call after the first) and,
for orientation, with an empty cache (the ``manifest`` round trip, hashing and the cache
write); the product's own CLI is shown beside them. Runs alternate between the programs;
rows report medians of wall time, CPU time (user+sys) alongside.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass

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
from bench.bench_process import BASELINE_SCRIPT, _run_once

__all__ = ("FLOOR", "Sizes", "run")

FLOOR = 1.3


@dataclass(frozen=True)
class Sizes:
    """How much work a run does; the smoke test shrinks it."""

    runs: int = 30
    import_runs: int = 5


def run(sizes: Sizes | None = None) -> list[Row]:
    """The ``venom call`` rows."""
    sz = sizes or Sizes()
    with short_tmpdir() as tmp:
        env = isolated_env(tmp)
        cache = tmp / "cache"
        env["XDG_CACHE_HOME"] = str(cache)
        sock = str(tmp / "venom-echo.sock")
        base = tmp / "baseline_client.py"
        base.write_text(BASELINE_SCRIPT)
        venom = [str(VENV_BIN / "venom"), "call", sock, "echo", '{"text":"hi"}']
        programs = {
            "baseline": [PYTHON, str(base), sock],
            "venom": venom,
            "cli": [str(VENV_BIN / "venom-echo"), "echo", "--text", "hi", "--socket", sock],
        }
        wall: dict[str, list[float]] = {name: [] for name in [*programs, "cold"]}
        cpu: dict[str, list[float]] = {name: [] for name in wall}
        with run_daemon("venom-echo", echo_argv(sock), sock, env):
            for argv in programs.values():  # warm the page cache, the .pyc files, the model
                _run_once(argv, env)
            for _ in range(sz.runs):
                for name, argv in programs.items():
                    w, c = _run_once(argv, env)
                    wall[name].append(w)
                    cpu[name].append(c)
                shutil.rmtree(cache, ignore_errors=True)
                w, c = _run_once(venom, env)
                wall["cold"].append(w)
                cpu["cold"].append(c)
            _run_once(venom, env)  # the model cached again, for the import profile
            profiles = {
                name: import_profile(programs[name][1:] if name == "baseline" else programs[name],
                                     env, runs=sz.import_runs, timeout=20.0)
                for name in programs
            }  # fmt: skip
    return _rows(wall, cpu, profiles)


def _rows(
    wall: dict[str, list[float]], cpu: dict[str, list[float]], profiles: dict[str, ImportProfile]
) -> list[Row]:
    ms = {name: round(median(samples) * 1000, 2) for name, samples in wall.items()}
    cpu_ms = {name: round(median(samples) * 1000, 2) for name, samples in cpu.items()}
    base, base_cpu = ms["baseline"], cpu_ms["baseline"]
    return [
        Row("venom call echo, model cached (start..exit)", ms["venom"], base, "ms", "max",
            FLOOR, note="baseline = a plain python socket client (json + socket)"),
        Row("venom call CPU time", cpu_ms["venom"], base_cpu, "ms", "info"),
        Row("venom call echo, empty model cache", ms["cold"], base, "ms", "info",
            note=f"manifest + sha256 + cache write; CPU {cpu_ms['cold']} ms"),
        Row("venom-echo echo (the product CLI, orientation)", ms["cli"], base, "ms", "info",
            note=f"CPU {cpu_ms['cli']} ms"),
        Row("importtime: venom call imports", profiles["venom"].total_us,
            profiles["baseline"].total_us, "us", "info", note=profiles["venom"].describe()),
        Row("importtime: venom-echo echo imports", profiles["cli"].total_us,
            profiles["baseline"].total_us, "us", "info", note=profiles["cli"].describe()),
    ]  # fmt: skip


if __name__ == "__main__":
    from bench._util import format_table

    print(format_table(run()))
