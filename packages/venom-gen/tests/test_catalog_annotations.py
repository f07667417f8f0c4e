"""MCP 2025-06-18 additions to the catalog: title, annotations, instructions (rfcs/0004 D-S36)."""

from __future__ import annotations

import copy
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from venom_gen.render.catalog import (
    HOST_NAME_MAX_BYTES,
    STREAM_LIMIT_SENTENCE,
    GenerationError,
    build_catalog,
    long_tool_names,
    server_instructions,
)
from venom_schema.model import Model


def _tools(model: Model) -> dict[str, dict[str, Any]]:
    return {tool["name"]: tool for tool in build_catalog(model)}


def test_read_only_hint_follows_the_grant(echo_model: Model) -> None:
    """none/read verbs are read-only; anything stronger is not (rfcs/0005 §2)."""
    grants = {verb["name"]: verb["grant"] for verb in echo_model["verbs"]}
    tools = _tools(echo_model)
    hints = {name: tool["annotations"]["readOnlyHint"] for name, tool in tools.items()}
    assert hints == {
        "config_dget": True,
        "config_dset": False,
        "echo": True,
        "events": True,
        "ping": True,
        "skill": True,
        "skill_dinstall": False,
    }
    assert grants["config.set"] == "admin"
    assert grants["skill.install"] == "files"


def test_destructive_hint_only_when_declared(echo_model: Model) -> None:
    """The catalog never guesses destructiveHint: it is the author's declaration or absent."""
    assert all("destructiveHint" not in t["annotations"] for t in build_catalog(echo_model))
    model = copy.deepcopy(echo_model)
    for verb in model["verbs"]:
        if verb["name"] == "config.set":
            verb["destructive"] = True
        if verb["name"] == "skill.install":
            verb["destructive"] = False
    tools = _tools(model)
    assert tools["config_dset"]["annotations"]["destructiveHint"] is True
    assert tools["skill_dinstall"]["annotations"]["destructiveHint"] is False
    assert "destructiveHint" not in tools["echo"]["annotations"]


def test_title_is_the_cli_spelling(echo_model: Model) -> None:
    """Top-level title and annotations.title (for 2025-03-26 hosts) are the CLI command."""
    tools = _tools(echo_model)
    assert tools["config_dget"]["title"] == "venom-echo config get"
    assert tools["skill_dinstall"]["annotations"]["title"] == "venom-echo skill install"


def test_instructions_name_the_tool_grants_and_limits(echo_model: Model) -> None:
    text = server_instructions(echo_model)
    first = text.splitlines()[0]
    assert first == "venom-echo: A toy daemon for protocol conformance."
    assert "readOnlyHint" in text
    assert "owner's token" in text
    assert "1024 items" in text
    assert "1 MiB" in text
    assert "--max-grant" not in text
    assert "--max-grant read" in server_instructions(echo_model, max_grant="read")


def test_instructions_without_streams_omit_the_limits(echo_model: Model) -> None:
    model = copy.deepcopy(echo_model)
    model["verbs"] = [v for v in model["verbs"] if not v["streams"]]
    assert STREAM_LIMIT_SENTENCE.split(":")[1][:20] not in server_instructions(model)


def _long_verb(model: Model, size: int) -> Model:
    """``model`` plus a verb whose MCP name is ``size`` bytes."""
    model = copy.deepcopy(model)
    clone = copy.deepcopy(next(v for v in model["verbs"] if v["name"] == "echo"))
    clone["name"] = "x" * size
    model["verbs"].append(clone)
    return model


def test_long_names_are_listed_past_64_bytes(echo_model: Model) -> None:
    """64 bytes is fine; 65 is listed (and still in the catalog: the hard limit is 128)."""
    assert long_tool_names(_long_verb(echo_model, HOST_NAME_MAX_BYTES)) == []
    model = _long_verb(echo_model, HOST_NAME_MAX_BYTES + 1)
    assert long_tool_names(model) == [("x" * 65, "x" * 65, 65)]
    assert "x" * 65 in _tools(model)


def test_generation_warns_on_a_long_tool_name(tmp_path: Path) -> None:
    """`venom-gen catalog` warns on stderr about a 65-byte tool name and still succeeds."""
    name = "a" * 30 + "." + "b" * 32  # encoded: 30 + "_d" + 32 = 64 bytes, no warning
    long_name = name + "c"
    manifest = tmp_path / "verbs.zon"
    verbs = "".join(
        f'.{{ .name = "{n}", .summary = "S", .result = .{{ .kind = .null }}, .grant = .read }},\n'
        for n in (name, long_name)
    )
    manifest.write_text(
        f'.{{ .format = 1, .tool = "t", .summary = "S", .verbs = .{{\n{verbs}}} }}\n', "utf-8"
    )
    exe = shutil.which("venom-gen", path=str(Path(sys.executable).parent))
    assert exe is not None
    done = subprocess.run(
        [exe, "catalog", str(manifest)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    encoded = "a" * 30 + "_d" + "b" * 32 + "c"
    assert done.stderr.splitlines() == [
        f"venom-gen: warning: verb {long_name!r}: MCP tool name {encoded!r} is 65 bytes;"
        " common MCP hosts refuse names over 64 bytes (RFC-0004's limit is 128)"
    ]
    assert encoded in done.stdout


def test_hard_limit_stays_128(echo_model: Model) -> None:
    assert "x" * 128 in _tools(_long_verb(echo_model, 128))
    with pytest.raises(GenerationError):
        build_catalog(_long_verb(echo_model, 129))
