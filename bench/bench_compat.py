"""``venom-gen compat`` wall time (issue 23: "well under a second").

Two comparisons, each a whole ``venom-gen compat OLD NEW --json`` process (the venv's console
script, so typer's start-up is in the figure): venom-echo's release model against its
``verbs.zon`` (nothing changed: both sides validated, every verb walked), and a synthetic
200-verb model against an edited copy of it (a verb removed, one added, a param narrowed, a
result field added, a grant raised, on every tenth verb). The baseline is ``venom-gen
--version``, the same console script's start-up (typer and click), measured in the same
rounds; the floor is the issue's: the comparison adds at most 1000 ms to it. Each run's CPU
time (user+sys of the child, steadier than wall time on a busy machine) is in the notes.
Orientation rows: the whole command's CPU time, and ``compare()`` alone, in this process, on
the 200-verb pair.
"""

from __future__ import annotations

import copy
import json
import resource
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench._util import ROOT, VENV_BIN, Row, median, short_tmpdir

__all__ = ("Sizes", "run", "synthetic_model")

#: At most this many ms on top of a bare interpreter's start (the issue: well under a second).
ADDED_MS = 1000.0
ECHO_RELEASE = ROOT / "packages" / "venom-echo" / "release" / "0.2.0.model.json"
ECHO_MANIFEST = ROOT / "packages" / "venom-echo" / "src" / "venom_echo" / "verbs.zon"


@dataclass(frozen=True)
class Sizes:
    runs: int = 7
    compares: int = 50
    verbs: int = 200


def _field(name: str, kind: dict[str, Any], *, required: bool = False) -> dict[str, Any]:
    return {"name": name, "summary": f"The {name}", "type": kind, "required": required}


def _verb(index: int) -> dict[str, Any]:
    return {
        "name": f"group{index // 20}.verb_{index:03d}",
        "summary": f"Synthetic verb {index}",
        "params": [
            _field("key", {"kind": "string"}, required=True),
            _field("mode", {"kind": "string", "choices": ["a", "b", "c"]}),
            _field("count", {"kind": "integer", "min": 0, "max": 100}),
            _field("tags", {"kind": "array", "items": {"kind": "string"}}),
            _field(
                "opts",
                {"kind": "object", "fields": [_field("ttl", {"kind": "number", "min": 0})]},
            ),
        ],
        "result": {
            "kind": "object",
            "fields": [
                _field("ok", {"kind": "boolean"}, required=True),
                _field("old", {"kind": "string", "nullable": True}),
            ],
        },
        "errors": [
            {"code": "conflict.busy", "summary": "Busy", "data": {"kind": "object", "fields": []}}
        ],
        "grant": "read" if index % 2 else "write",
        "streams": False,
        "exit": {"kind": "standard"},
        "examples": [],
    }


def synthetic_model(verbs: int = 200) -> tuple[dict[str, Any], dict[str, Any]]:
    """A model of ``verbs`` product verbs (no bundles), and an edited copy of it."""
    old: dict[str, Any] = {"format": 1, "tool": "synthetic", "summary": "Synthetic"}
    old["verbs"] = [_verb(i) for i in range(verbs)]
    new = copy.deepcopy(old)
    new["verbs"].pop(0)
    new["verbs"].append({**_verb(verbs), "name": "zz.added"})
    for verb in new["verbs"][::10]:
        verb["params"][2]["type"]["max"] = 50
        verb["result"]["fields"].append(_field("extra", {"kind": "integer"}))
        verb["grant"] = "admin"
    return old, new


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _wall(argv: list[str]) -> tuple[float, float]:
    """Wall and CPU ms of one run of ``argv`` (exit 0 or 1: compatible or breaking)."""
    cpu, start = _cpu(), time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, timeout=120, check=False)
    elapsed = (time.perf_counter() - start) * 1000
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"{argv}: exit {proc.returncode}: {proc.stderr.decode()[-500:]}")
    return elapsed, (_cpu() - cpu) * 1000


def _compare_ms(old: dict[str, Any], new: dict[str, Any], times: int) -> float:
    from venom_schema.compat import compare, read_model

    before, after = read_model(json.dumps(old)), read_model(json.dumps(new))
    samples = []
    for _ in range(times):
        start = time.perf_counter()
        compare(before, after)
        samples.append((time.perf_counter() - start) * 1000)
    return median(samples)


def run(sizes: Sizes | None = None) -> list[Row]:
    """The two wall-time rows and the in-process orientation row."""
    sz = sizes or Sizes()
    compat = [str(VENV_BIN / "venom-gen"), "compat", "--json"]
    with short_tmpdir() as tmp:
        old, new = synthetic_model(sz.verbs)
        old_path, new_path = Path(tmp) / "old.model.json", Path(tmp) / "new.model.json"
        old_path.write_text(json.dumps(old), encoding="utf-8")
        new_path.write_text(json.dumps(new), encoding="utf-8")
        programs = {
            "start": [str(VENV_BIN / "venom-gen"), "--version"],
            "echo": [*compat, str(ECHO_RELEASE), str(ECHO_MANIFEST)],
            "synthetic": [*compat, str(old_path), str(new_path)],
        }
        wall: dict[str, list[float]] = {name: [] for name in programs}
        cpu: dict[str, list[float]] = {name: [] for name in programs}
        for argv in programs.values():  # warm-up: bytecode, page cache
            _wall(argv)
        for _ in range(sz.runs):  # alternating, so load changes hit every program alike
            for name, argv in programs.items():
                took, used = _wall(argv)
                wall[name].append(took)
                cpu[name].append(used)
    base = median(wall["start"])

    def note(name: str) -> str:
        return (
            f"CPU {median(cpu[name]):.0f} ms vs {median(cpu['start']):.0f} ms for"
            f" venom-gen --version; wall median of {sz.runs}"
        )

    return [
        Row("venom-gen compat: venom-echo release vs verbs.zon", median(wall["echo"]), base,
            "ms", "added", ADDED_MS, note=note("echo")),
        Row(f"venom-gen compat: {sz.verbs}-verb model vs an edited copy",
            median(wall["synthetic"]), base, "ms", "added", ADDED_MS, note=note("synthetic")),
        Row("venom-gen compat, CPU: venom-echo release vs verbs.zon", median(cpu["echo"]), 0.0,
            "ms", "info", note="user+sys of the process"),
        Row(f"compare() alone, {sz.verbs} verbs, in process", _compare_ms(old, new, sz.compares),
            0.0, "ms", "info", note=f"median of {sz.compares}"),
    ]  # fmt: skip


if __name__ == "__main__":
    from bench._util import format_table

    print(format_table(run()))
