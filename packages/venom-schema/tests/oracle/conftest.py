"""Builds tests/oracle/zon_dump.zig with the `ziglang` compiler and runs it on batches of files."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

ZIG_SOURCE = Path(__file__).with_name("zon_dump.zig")
SUPPORTED_ZIG = "0.17."
_BATCH = 500

#: Runs the oracle on documents; one parsed JSON object per document (see zon_dump.zig).
Oracle = Callable[[Sequence[bytes]], list[dict[str, Any]]]


def _zig(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ziglang", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="session")
def zon_oracle(tmp_path_factory: pytest.TempPathFactory) -> Oracle:
    pytest.importorskip("ziglang", reason="the oracle dependency group is not installed")
    work = tmp_path_factory.mktemp("zon-oracle")
    version = _zig("version", cwd=work).stdout.strip()
    if not version.startswith(SUPPORTED_ZIG):
        pytest.skip(f"zon_dump.zig is written for Zig {SUPPORTED_ZIG}x, ziglang ships {version}")
    exe = work / "zon_dump"
    build = _zig(
        "build-exe",
        str(ZIG_SOURCE),
        f"-femit-bin={exe}",
        "--cache-dir",
        str(work / "cache"),
        "--global-cache-dir",
        str(work / "global-cache"),
        cwd=work,
    )
    assert build.returncode == 0, f"building zon_dump.zig failed:\n{build.stderr}"
    counter = iter(range(10**9))

    def run(documents: Sequence[bytes]) -> list[dict[str, Any]]:
        batch_dir = work / f"batch{next(counter)}"
        batch_dir.mkdir()
        paths = []
        for index, document in enumerate(documents):
            path = batch_dir / f"{index:06d}.zon"
            path.write_bytes(document)
            paths.append(str(path))
        results: list[dict[str, Any]] = []
        for start in range(0, len(paths), _BATCH):
            done = subprocess.run(
                [str(exe), *paths[start : start + _BATCH]],
                capture_output=True,
                timeout=120,
                check=True,
            )
            # not splitlines(): strings may hold U+2028 and U+0085, which it also splits on
            lines = done.stdout.decode().split("\n")[:-1]
            results.extend(json.loads(line) for line in lines)
        assert len(results) == len(documents)
        return results

    return run
