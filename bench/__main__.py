"""``python -m bench [--strict] [GROUP ...]``: run the benchmarks, print a table, save JSON.

Groups: ndjson (rows 1-3), frames (row 4), process (rows 5-6 and start-up orientation),
validation (row 7), mcp (row 8), compat (row 9, ``venom-gen compat``), family (row 10,
``venom call``, issue 25); none named means these seven. ``peers`` (opt-in) runs
bench/bench_peers.py. Results go to ``bench/results.json``.
Exit status: 0, or 1 with ``--strict`` when a floor is missed, 2 when a group failed to run.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

from bench import (
    bench_compat,
    bench_family,
    bench_frames,
    bench_mcp_product,
    bench_ndjson,
    bench_process,
)
from bench._util import ROOT, Row, format_table

RESULTS = ROOT / "bench" / "results.json"
MCP_ADDED_MS = 2.0
VALIDATION_FLOOR = 0.5


def validation_rows() -> list[Row]:
    """Row 7 from bench_validation.run()."""
    from bench import bench_validation

    r = bench_validation.run()
    return [
        Row(
            str(r["name"]),
            float(r["ours_per_s"]),
            float(r["pydantic_core_per_s"]),
            "calls/s",
            "min",
            float(r.get("floor", VALIDATION_FLOOR)),
            note="baseline = pydantic-core; closure validators (CLI, MCP adapter)",
        ),
        Row(
            "params validation, generated checks (the daemon's)",
            float(r["generated_per_s"]),
            float(r["pydantic_core_per_s"]),
            "calls/s",
            "min",
            float(r.get("floor", VALIDATION_FLOOR)),
            note="baseline = pydantic-core; compile_params(..., generate=True)",
        ),
    ]


def mcp_rows(product_starts: int = 5) -> list[Row]:
    """Row 8 from bench_mcp.run() (venom-mcp's bench), plus ``venom-echo mcp`` start-up."""
    from bench import bench_mcp

    r = bench_mcp.run()
    return [
        Row(
            "MCP tools/call round trip (added vs direct)",
            r["mcp_call_ms"],
            r["direct_call_ms"],
            "ms",
            "added",
            MCP_ADDED_MS,
            note=f"fresh connect+hello+call {r['direct_connect_call_ms']} ms",
        ),
        *(
            Row(f"MCP tools/call at {revision} (added vs direct)", ms, r["direct_call_ms"],
                "ms", "added", MCP_ADDED_MS)
            for revision, ms in r["revisions"].items()
        ),
        Row("MCP adapter start-up to initialize reply", r["startup_ms"], 0.0, "ms", "info",
            note="python -m venom_mcp on the demo daemon (bench_mcp.py)"),
        *bench_mcp_product.run(product_starts),
    ]  # fmt: skip


def peer_rows() -> list[Row]:
    """bench/bench_peers.py (gRPC, varlink, JSON-RPC, socat; needs the `peers` group)."""
    from bench import bench_peers

    return bench_peers.run()


GROUPS: dict[str, Callable[[], list[Row]]] = {
    "ndjson": bench_ndjson.run,
    "frames": bench_frames.run,
    "process": bench_process.run,
    "family": bench_family.run,
    "validation": validation_rows,
    "mcp": mcp_rows,
    "peers": peer_rows,
    "compat": bench_compat.run,
}
#: What runs when no group is named; `peers` needs extra packages and socat, so it is opt-in.
DEFAULT = ("ndjson", "frames", "process", "family", "validation", "mcp", "compat")


def main(argv: list[str]) -> int:
    strict = "--strict" in argv
    names = [a for a in argv if a != "--strict"] or list(DEFAULT)
    unknown = [n for n in names if n not in GROUPS]
    if unknown:
        print(f"unknown group(s) {unknown}; choose from {list(GROUPS)}", file=sys.stderr)
        return 2
    os.chdir(ROOT)
    rows: list[Row] = []
    failed: list[str] = []
    started = time.monotonic()
    for name in names:
        t0 = time.monotonic()
        print(f"[bench] {name} ...", file=sys.stderr, flush=True)
        try:
            rows += GROUPS[name]()
        except Exception:  # one broken group must not hide the others' figures
            traceback.print_exc()
            failed.append(name)
        print(f"[bench] {name} took {time.monotonic() - t0:.1f} s", file=sys.stderr, flush=True)
    print(format_table(rows))
    for r in rows:
        if r.note:
            print(f"  {r.name}: {r.note}")
    report: dict[str, Any] = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "python": platform.python_version(),
        "machine": f"{platform.machine()}, {os.cpu_count()} cpus",
        "groups": names,
        "failed": failed,
        "seconds": round(time.monotonic() - started, 1),
        "rows": [r.to_json() for r in rows],
    }
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")
    if failed:
        print(f"groups that failed to run: {failed}", file=sys.stderr)
        return 2
    return 1 if strict and any(r.verdict == "MISS" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
