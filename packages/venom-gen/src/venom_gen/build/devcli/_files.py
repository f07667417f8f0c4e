"""Writing generated files and detecting drift (``--check``) with short unified diffs."""

from __future__ import annotations

import difflib
import os
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from venom_proto.files import write_atomic

__all__ = ("DIFF_LINES", "Drift", "WriteReport", "find_drift", "find_extras", "write_files")

#: Diff lines shown per stale file; enough to see what changed without flooding CI logs.
DIFF_LINES: Final = 20


@dataclass(frozen=True, slots=True)
class Drift:
    """One file that differs from what would be generated."""

    path: Path
    kind: Literal["stale", "missing", "extra"]
    diff: tuple[str, ...] = ()

    def render(self) -> str:
        """``kind: path`` followed by the (truncated) diff lines."""
        head = {
            "stale": f"stale: {_show(self.path)}",
            "missing": f"missing: {_show(self.path)}",
            "extra": f"extra: {_show(self.path)} (not generated; delete it or use --prune)",
        }[self.kind]
        return "\n".join((head, *self.diff))


@dataclass(frozen=True, slots=True)
class WriteReport:
    """What ``write_files`` did."""

    written: tuple[Path, ...]
    unchanged: int
    removed: tuple[Path, ...]

    def summary(self) -> str:
        text = f"wrote {len(self.written)} file(s), {self.unchanged} unchanged"
        return text + (f", removed {len(self.removed)}" if self.removed else "")


def _show(path: Path) -> str:
    """``path`` relative to the working directory when it lies below it."""
    try:
        return os.fspath(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return os.fspath(path)


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _short_diff(path: Path, old: bytes, new: str) -> tuple[str, ...]:
    lines = list(
        difflib.unified_diff(
            old.decode("utf-8", errors="replace").splitlines(),
            new.splitlines(),
            fromfile=f"{_show(path)} (on disk)",
            tofile=f"{_show(path)} (generated)",
            lineterm="",
            n=1,
        )
    )
    if not lines:  # same lines, so only line endings or the final newline differ
        return ("  (line endings or trailing newline differ)",)
    if len(lines) > DIFF_LINES:
        lines = [*lines[:DIFF_LINES], f"  ... {len(lines) - DIFF_LINES} more diff lines"]
    return tuple("  " + line for line in lines)


def find_drift(files: Mapping[Path, str]) -> list[Drift]:
    """Files whose bytes on disk are not exactly the UTF-8 of the generated text."""
    drifts: list[Drift] = []
    for path, text in sorted(files.items()):
        current = _read(path)
        if current is None:
            drifts.append(Drift(path, "missing"))
        elif current != text.encode("utf-8"):
            drifts.append(Drift(path, "stale", _short_diff(path, current, text)))
    return drifts


def find_extras(root: Path, subdirs: Iterable[str], files: Iterable[Path]) -> list[Drift]:
    """Files directly in ``root/<subdir>`` that are not generated (hidden files ignored).

    Only the layout's own subdirectories count: ``--out .`` must never flag (or, with
    ``--prune``, delete) a project's other files.
    """
    expected = {path.resolve() for path in files}
    extras: list[Drift] = []
    for subdir in subdirs:
        directory = root / subdir
        if not directory.is_dir():
            continue
        for path in sorted(directory.iterdir()):
            hidden = path.name.startswith(".")
            if path.is_file() and not hidden and path.resolve() not in expected:
                extras.append(Drift(path, "extra"))
    return extras


def _mode(path: Path) -> int:
    """A replaced file keeps its mode; a new one is 0644, as a checkout gives it."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return 0o644


def write_files(files: Mapping[Path, str], *, remove: Iterable[Path] = ()) -> WriteReport:
    """Write the files whose bytes differ (so unchanged files keep their mtime), each with the
    one atomic writer (`venom_proto.files.write_atomic`); remove others."""
    written: list[Path] = []
    unchanged = 0
    for path, text in sorted(files.items()):
        data = text.encode("utf-8")
        if _read(path) == data:
            unchanged += 1
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, data, _mode(path))
        written.append(path)
    removed = tuple(remove)
    for path in removed:
        path.unlink()
    return WriteReport(tuple(written), unchanged, removed)
