"""`venom-gen export-zon MODULE:ATTRIBUTE`: a pydantic declaration as its data-only verbs.zon.

Round trip: export -> parse -> validate gives the declaration's model byte for byte, and every
other command reads the declaration (`--python`) as it reads the exported file.
"""

from __future__ import annotations

import importlib
import sys
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from venom_gen.build.devcli.app import app

DECLARATION = """\
from typing import Literal

from pydantic import BaseModel, Field

from venom_schema.declare import MISSING, Declaration, Error, Example


class Params(BaseModel):
    key: str = Field(description="The key, \\"quoted\\", \\\\ and café")
    ttl_s: int = Field(default=60, ge=1, le=86400, description="Seconds to keep it")
    mode: Literal["fast", "safe"] | MISSING = Field(default=MISSING, description="How")


class Result(BaseModel):
    value: str | None = Field(description="The value, or null")
    next: int | MISSING = Field(default=MISSING, ge=1, description="Where to resume")


class Gone(BaseModel):
    key: str = Field(description="The key asked for")


DECLARATION = Declaration("pykv", "A key-value store declared in Python")
DECLARATION.verb(
    "kv.get", "Read one key", grant="{grant}", params=Params, result=Result,
    errors=[Error("not_found.key", "No such key", Gone)],
    examples=[Example(Params(key="a\\tb"), Result(value="1"))],
)
DECLARATION.verb("kv.watch", "Stream changes", grant="read", result=None, item=Result)


class Bad(BaseModel):
    either: int | str = Field(description="A union")


UNSAYABLE = Declaration("pykv", "S")
UNSAYABLE.verb("kv.bad", "Bad", grant="read", params=Bad, result=None)
"""


def invoke(*args: str) -> Result:
    result = CliRunner().invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


@pytest.fixture
def module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A fresh declaration module importable from the working directory (as from a shell)."""
    name = f"decl_{uuid.uuid4().hex}"
    (tmp_path / f"{name}.py").write_text(DECLARATION.replace("{grant}", "read"), "utf-8")
    monkeypatch.setattr(sys, "path", list(sys.path))  # the devcli adds the cwd; undo it
    monkeypatch.chdir(tmp_path)
    importlib.invalidate_caches()
    return name


def test_export_then_parse_gives_the_same_model(tmp_path: Path, module: str) -> None:
    out = tmp_path / "verbs.zon"
    exported = invoke("export-zon", f"{module}:DECLARATION", "--out", str(out))
    assert exported.exit_code == 0, exported.stderr
    text = out.read_text("utf-8")
    assert text.startswith(f"// Exported by `venom-gen export-zon {module}:DECLARATION`")
    assert '"The key, \\"quoted\\", \\\\ and café"' in text
    assert '.key = "a\\tb"' in text  # escaped as ZON
    from_file = invoke("normalize", str(out))
    from_python = invoke("normalize", "--python", f"{module}:DECLARATION")
    assert from_file.exit_code == from_python.exit_code == 0
    assert from_file.stdout == from_python.stdout
    assert '"nullable":true' in from_file.stdout
    assert '"name":"next","required":false,"summary"' in from_file.stdout  # absent, no default


def test_export_to_stdout_and_check(tmp_path: Path, module: str) -> None:
    printed = invoke("export-zon", f"{module}:DECLARATION")
    assert printed.exit_code == 0
    out = tmp_path / "verbs.zon"
    out.write_text(printed.stdout, "utf-8")
    fresh = invoke("export-zon", f"{module}:DECLARATION", "--out", str(out), "--check")
    assert fresh.exit_code == 0, fresh.stderr
    out.write_text(printed.stdout.replace("Read one key", "Read a key"), "utf-8")
    stale = invoke("export-zon", f"{module}:DECLARATION", "--out", str(out), "--check")
    assert stale.exit_code == 1
    assert "out of date" in stale.stderr


def test_what_format_1_cannot_say_is_one_line_naming_the_field(module: str) -> None:
    result = invoke("export-zon", f"{module}:UNSAYABLE")
    assert result.exit_code == 1
    assert result.stderr == (
        f"venom-gen: --python {module}:UNSAYABLE: Bad.either: format 1 has no unions"
        " (only T | None and T | MISSING)\n"
    )


def test_the_validator_refuses_before_anything_is_written(tmp_path: Path, module: str) -> None:
    bad = f"{module}_bad"
    (tmp_path / f"{bad}.py").write_text(DECLARATION.replace("{grant}", "root"), "utf-8")
    importlib.invalidate_caches()
    out = tmp_path / "verbs.zon"
    result = invoke("export-zon", f"{bad}:DECLARATION", "--out", str(out))
    assert result.exit_code == 1
    assert "verbs[kv.get].grant: unknown .root" in result.stderr
    assert not out.exists()
