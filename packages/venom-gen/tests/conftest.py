"""Fixtures shared by venom-gen's generator tests: the normalized models they render, and one
strict mypy run over generated modules and the files that use them."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TypeAlias

import pytest

from venom_schema.model import Model

FIXTURES = Path(__file__).parent / "fixtures"
ROOT = Path(__file__).resolve().parents[3]

#: ``file name -> [(line, error code), ...]``; ``"<other>"`` collects unparsed output.
MypyErrors: TypeAlias = dict[str, list[tuple[int, str]]]
_ERROR = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+): error: .*\[(?P<code>[a-z-]+)\]$")


def _run_strict_mypy(tmp: Path, files: Mapping[str, str]) -> MypyErrors:
    for name, text in files.items():
        (tmp / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp / name).write_text(text, encoding="utf-8")
    command = [sys.executable, "-m", "mypy", "--strict", "--no-error-summary"]
    command += ["--cache-dir", str(tmp / ".mypy_cache"), *(str(tmp / name) for name in files)]
    # From the workspace root, so its mypy settings apply and venom_proto and the products resolve.
    proc = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=180, check=False
    )
    errors: MypyErrors = {name: [] for name in files}
    for line in proc.stdout.splitlines():
        match = _ERROR.match(line)
        if match is not None:
            path = ROOT / match["file"]  # as mypy printed it: relative to ROOT, or absolute
            name = path.resolve().relative_to(tmp.resolve()).as_posix()
            errors[name].append((int(match["line"]), match["code"]))
        elif ": note:" not in line:
            errors.setdefault("<other>", []).append((0, line))
    return errors


@pytest.fixture(scope="session")
def strict_mypy() -> Callable[[Path, Mapping[str, str]], MypyErrors]:
    """``strict_mypy(dir, {name: source})``: write the files into ``dir``, run ``mypy --strict``
    over them once, and return the errors per file."""
    return _run_strict_mypy


@pytest.fixture
def echo_model() -> Model:
    """RFC-0004 §1 echo plus shared-looking verbs (prefix, streaming, local, transport)."""
    model: Model = json.loads((FIXTURES / "echo_model.json").read_text("utf-8"))
    return model


@pytest.fixture
def hostile_model() -> Model:
    """User strings built to break every output format's escaping."""
    model: Model = json.loads((FIXTURES / "hostile_model.json").read_text("utf-8"))
    return model
