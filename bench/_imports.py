"""``python -X importtime`` figures: what a process imports beyond a bare interpreter."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass

from bench._util import PYTHON, median

__all__ = ("ImportProfile", "import_profile")

_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \| (\s*)(\S+)")


def top_level_imports(argv: Sequence[str], env: dict[str, str], timeout: float) -> dict[str, int]:
    """Cumulative microseconds of each top-level import of ``python -X importtime ARGV``."""
    out = subprocess.run(
        [PYTHON, "-X", "importtime", *argv],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=True,
    )
    top: dict[str, int] = {}
    for match in _LINE.finditer(out.stderr):
        if not match.group(3):  # no indent: imported by the program itself, not a module
            top[match.group(4)] = top.get(match.group(4), 0) + int(match.group(2))
    return top


@dataclass(frozen=True)
class ImportProfile:
    """Median total of the imports beyond ``python -c pass``, and the heaviest of them."""

    total_us: float
    heaviest: list[tuple[str, float]]

    def describe(self, count: int = 4) -> str:
        return ", ".join(f"{name} {us:,.0f} us" for name, us in self.heaviest[:count])


def import_profile(
    argv: Sequence[str], env: dict[str, str], *, runs: int, timeout: float
) -> ImportProfile:
    """Profile ``argv`` (python arguments) ``runs`` times against a bare interpreter."""
    bare = top_level_imports(["-c", "pass"], env, timeout)
    samples = []
    for _ in range(runs):
        top = top_level_imports(argv, env, timeout)
        samples.append({k: v for k, v in top.items() if k not in bare and k != "__main__"})
    names = {name for sample in samples for name in sample}
    per_module = {name: median([s.get(name, 0) for s in samples]) for name in names}
    heaviest = sorted(per_module.items(), key=lambda item: -item[1])
    return ImportProfile(median([sum(s.values()) for s in samples]), heaviest)
