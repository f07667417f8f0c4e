"""Turning the peer samples into table rows: venom-echo's median against each peer's median.

A sample list holds one dict per measurement; ``values`` keeps the round order, so the i-th
value of two peers comes from the same round and per-round ratios are meaningful. Rows against
a Python peer are judged with floor 1.0 (PASS = venom-echo ahead); rows against socat, the C
floor, are orientation (``info``) and their ratio is venom-echo's distance to the floor.
"""

from __future__ import annotations

from bench._util import Check, Row, median

__all__ = ("library_rows", "mcp_rows", "socket_rows", "values")

Samples = dict[str, list[dict[str, float]]]

PYTHON_PEERS = {
    "grpc": "gRPC grpcio aio",
    "varlink": "python-varlink",
    "jsonrpc": "JSON-RPC asyncio",
}
FLOOR_PEER = ("socat", "socat C floor")

#: (row title, sample key, scale to the unit, unit, how the ratio is judged)
SOCKET_METRICS: tuple[tuple[str, str, float, str, Check], ...] = (
    ("sequential round trip median", "sequential_median_s", 1e6, "us", "max"),
    ("sequential round trip p99", "sequential_p99_s", 1e6, "us", "max"),
    ("pipelined echo, 1 connection", "pipeline_rate", 1.0, "req/s", "min"),
    ("100 clients pipelining", "many_rate", 1.0, "req/s", "min"),
    ("one-shot CLI call, process wall", "oneshot_s", 1e3, "ms", "max"),
)
MCP_METRICS: tuple[tuple[str, str, float, str, Check], ...] = (
    ("MCP tools/call median", "median_s", 1e3, "ms", "max"),
    ("MCP tools/call p99", "p99_s", 1e3, "ms", "max"),
    ("MCP concurrent tools/call", "rate", 1.0, "calls/s", "min"),
    ("MCP one-shot spawn+init+call", "oneshot_s", 1e3, "ms", "max"),
    ("MCP spawn to initialized", "connect_s", 1e3, "ms", "info"),
)


def values(samples: list[dict[str, float]], key: str) -> list[float]:
    return [s[key] for s in samples if key in s]


def _spread(ours: list[float], theirs: list[float]) -> str:
    ratios = [o / t for o, t in zip(ours, theirs, strict=False) if t]
    if not ratios:
        return ""
    return f"per-round ratio {min(ratios):.3g}..{max(ratios):.3g} over {len(ratios)} rounds"


def _row(
    title: str, label: str, ours: list[float], theirs: list[float], scale: float, unit: str,
    check: Check, judged: bool,
) -> Row:  # fmt: skip
    return Row(
        f"{title} (vs {label})",
        round(median(ours) * scale, 2),
        round(median(theirs) * scale, 2),
        unit,
        check if judged else "info",
        1.0 if judged else None,
        note=_spread(ours, theirs),
    )


def socket_rows(samples: Samples) -> list[Row]:
    """One row per metric and peer present, the C floor last within each metric."""
    ours = samples["venom"]
    peers = [(p, label, True) for p, label in PYTHON_PEERS.items() if p in samples]
    if FLOOR_PEER[0] in samples:
        peers.append((*FLOOR_PEER, False))
    rows = []
    for title, key, scale, unit, check in SOCKET_METRICS:
        for peer, label, judged in peers:
            theirs = values(samples[peer], key)
            rows.append(_row(title, label, values(ours, key), theirs, scale, unit, check, judged))
    rows += library_rows(samples)
    bare = samples.get("python -c pass")
    if bare:
        rows.append(
            Row(
                "python -c \"print('hi')\" (orientation)",
                round(median(values(bare, "oneshot_s")) * 1e3, 2),
                0.0,
                "ms",
                "info",
                note="the interpreter start-up every Python one-shot client pays",
            )
        )
    return rows


def library_rows(samples: Samples) -> list[Row]:
    """Orientation: venom-echo's SyncClient against the gRPC stub and varlink.Client."""
    ours = samples["venom"]
    theirs = {"grpc": "sequential", "varlink": "library"}
    rows = []
    for stat in ("median", "p99"):
        for peer, mode in theirs.items():
            if peer in samples and values(ours, f"library_{stat}_s"):
                rows.append(
                    _row(
                        f"sequential {stat}, own client library",
                        f"{PYTHON_PEERS[peer]} client",
                        values(ours, f"library_{stat}_s"),
                        values(samples[peer], f"{mode}_{stat}_s"),
                        1e6,
                        "us",
                        "max",
                        judged=False,
                    )
                )
    return rows


def mcp_rows(samples: Samples) -> list[Row]:
    """venom-echo mcp vs the SDK's MCPServer, both through the SDK client over stdio."""
    ours, theirs = samples["venom"], samples["mcp"]
    return [
        _row(
            title, "MCP SDK server", values(ours, key), values(theirs, key), scale, unit, check,
            check != "info",
        )
        for title, key, scale, unit, check in MCP_METRICS
    ]  # fmt: skip
