"""The fuzz suite's budget, seed, input counter and per-input CPU guard (see conftest.py)."""

from __future__ import annotations

import os
import random
import signal
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

from hypothesis import HealthCheck, settings

__all__ = (
    "SEED",
    "TOTAL",
    "WEIGHTS",
    "Fuzz",
    "FuzzHang",
    "chunks",
    "closing_violation",
    "counts",
    "cpu_guard",
    "mutate",
    "rand_int",
    "rand_json",
    "rand_text",
)

#: Total inputs per run: 100,000 in CI, more in the nox ``fuzz`` session.
TOTAL = int(os.environ.get("FUZZ_EXAMPLES", "100000"))
SEED = int(os.environ.get("FUZZ_SEED") or random.SystemRandom().randrange(2**32))
#: Share of TOTAL per target (sums to 1).
WEIGHTS = {
    "ndjson": 0.22,
    "frames": 0.22,
    "zon": 0.2,
    "manifest": 0.08,
    "argv": 0.18,
    "params": 0.1,
}
#: CPU seconds one input may take before it counts as a hang.
HANG_CPU_SECONDS = 2.0

counts: Counter[str] = Counter()


class FuzzHang(BaseException):
    """Raised in the middle of an input that ran past HANG_CPU_SECONDS of CPU time.

    A BaseException, so that no ``except Exception`` in the code under test swallows it.
    """


def _on_vtalrm(signum: int, frame: FrameType | None) -> None:
    raise FuzzHang("one input ran past its CPU-time limit")


@contextmanager
def cpu_guard() -> Iterator[None]:
    # ITIMER_VIRTUAL (SIGVTALRM) counts CPU time only and leaves SIGALRM to pytest-timeout.
    old = signal.signal(signal.SIGVTALRM, _on_vtalrm)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, old)


class Fuzz:
    """Per-target helper handed to the tests by the ``fuzz`` fixture."""

    def __init__(self, target: str) -> None:
        self.target = target
        self.seed = SEED
        self.cpu_limit = HANG_CPU_SECONDS

    def examples(self, inputs_per_example: int) -> int:
        """Hypothesis examples needed for this target's share of TOTAL inputs."""
        share = TOTAL * WEIGHTS[self.target]
        return max(1, -(-int(share) // inputs_per_example))

    def settings(self, inputs_per_example: int) -> settings:
        """Hypothesis settings for this target: its budget, no deadline, no database."""
        return settings(
            max_examples=self.examples(inputs_per_example),
            deadline=None,
            database=None,
            derandomize=False,
            suppress_health_check=[
                HealthCheck.too_slow,
                HealthCheck.data_too_large,
                HealthCheck.filter_too_much,
            ],
        )

    def run(self, func: Callable[..., Any], *args: Any) -> Any:
        """Call ``func(*args)`` as one input: counted, and bounded in CPU time."""
        counts[self.target] += 1
        signal.setitimer(signal.ITIMER_VIRTUAL, self.cpu_limit)
        try:
            return func(*args)
        finally:
            signal.setitimer(signal.ITIMER_VIRTUAL, 0)


def closing_violation(exc: Any, *codes: str) -> None:
    """An allowed failure: a ``ProtocolViolation`` with one of ``codes`` that closes."""
    assert exc.code in codes, exc.code
    assert exc.close


_WORDS = ("", "a", "text", "id", "verb", "params", "é", "\u2028", "\x00", "\ud7ff", "x" * 70, "0")


def rand_text(rng: random.Random) -> str:
    """A short string: a known word, random printable ASCII, or random code points."""
    pick = rng.random()
    if pick < 0.4:
        return rng.choice(_WORDS)
    if pick < 0.8:
        return "".join(chr(rng.randint(32, 126)) for _ in range(rng.randint(0, 12)))
    return "".join(chr(rng.choice((rng.randint(0, 0x7FF), rng.randint(0xE000, 0x10FFFF))))
                   for _ in range(rng.randint(0, 6)))  # fmt: skip


def rand_int(rng: random.Random) -> int:
    """An integer biased to boundaries (0, ±1, 2^31, 2^53, 2^63)."""
    if rng.random() < 0.5:
        edge = rng.choice((0, 1, 2**31, 2**32, 2**53 - 1, 2**53, 2**63 - 1, 65535, 255, 4096))
        return rng.choice((1, -1)) * edge + rng.randint(-1, 1) if edge else edge
    return rng.randint(-(2**40), 2**40)


def rand_json(rng: random.Random, depth: int = 3) -> Any:
    """A random JSON-compatible value (ints kept within 64 bits), at most ``depth`` deep."""
    kind = rng.randrange(9 if depth > 0 else 7)
    if kind == 0:
        return None
    if kind == 1:
        return rng.random() < 0.5
    if kind in (2, 3):
        return max(-(2**63), min(2**63 - 1, rand_int(rng)))
    if kind == 4:
        return rng.choice((0.5, -0.0, 1e308, 5e-324, rng.uniform(-1e6, 1e6)))
    if kind in (5, 6):
        return rand_text(rng)
    if kind == 7:
        return [rand_json(rng, depth - 1) for _ in range(rng.randint(0, 3))]
    return {rand_text(rng): rand_json(rng, depth - 1) for _ in range(rng.randint(0, 3))}


def chunks(data: bytes, rng: random.Random) -> list[bytes]:
    """``data`` cut at random places (1-byte chunks included)."""
    cuts = sorted(rng.randint(0, len(data)) for _ in range(rng.randint(0, 6)))
    return [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]


def mutate(data: bytes, rng: random.Random, tokens: tuple[bytes, ...]) -> bytes:
    """1-3 byte-level edits: flip, delete, insert a hostile token, duplicate a run or truncate."""
    buf = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(5)
        pos = rng.randint(0, len(buf))
        if op == 0 and buf:
            buf[min(pos, len(buf) - 1)] = rng.randrange(256)
        elif op == 1:
            del buf[pos : pos + rng.randint(1, 4)]
        elif op == 2:
            buf[pos:pos] = rng.choice(tokens)
        elif op == 3:
            buf[pos:pos] = buf[rng.randint(0, len(buf)) :][: rng.randint(1, 16)]
        else:
            del buf[pos:]
    return bytes(buf)
