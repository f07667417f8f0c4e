"""`venom-echo mcp` driven by an independent client: the MCP Inspector's CLI mode (RFC-0004 §5).

The inspector is the npm package ``@modelcontextprotocol/inspector``, pinned to
:data:`INSPECTOR_VERSION`, the newest release that runs on Node 20 (later ones need Node >= 22).
It is found, in order, at ``$VENOM_MCP_INSPECTOR`` (its ``mcp-inspector`` bin) or in
:func:`cache_dir`; failing both, it is installed once into :func:`cache_dir` with npm.
Without node/npm or the registry the tests skip, unless ``VENOM_MCP_INSPECTOR_REQUIRED=1``
(for CI) turns that into a failure.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path
from typing import Any, NoReturn

import pytest
from integration_kit import Daemon

INSPECTOR_VERSION = "0.15.0"
PACKAGE = "@modelcontextprotocol/inspector"
INSTALL_TIMEOUT = 120.0
#: Per inspector run; one takes about 1.2 s (node start, MCP handshake, one request).
RUN_TIMEOUT = 30.0

# The first test may pay for the npm install on top of its own run.
pytestmark = pytest.mark.timeout(INSTALL_TIMEOUT + 60)

#: RFC-0004 §5, the generated catalog entry for the echo manifest, copied verbatim.
RFC_ECHO_ENTRY = """
{
  "name": "echo",
  "description": "Return the supplied text",
  "inputSchema": {
    "type": "object",
    "properties": {
      "text": {"type":"string","description":"Text to return"},
      "style": {"type":"string","enum":["plain","upper"],"description":"Output casing","default":"plain"}
    },
    "required": ["text"],
    "additionalProperties": false
  },
  "outputSchema": {
    "type": "object",
    "properties": {
      "result": {
        "type":"object",
        "properties":{"text":{"type":"string","description":"Returned text"}},
        "required":["text"],
        "additionalProperties":false
      }
    },
    "required":["result"],
    "additionalProperties":false
  }
}
"""  # noqa: E501 (the RFC's lines, kept verbatim)


def cache_dir() -> Path:
    """Where the tests keep their own inspector install, one directory per pinned version."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "venom-tests" / f"inspector-{INSPECTOR_VERSION}"


def _bin_in(prefix: Path) -> Path:
    return prefix / "node_modules" / ".bin" / "mcp-inspector"


def _unavailable(reason: str) -> NoReturn:
    if os.environ.get("VENOM_MCP_INSPECTOR_REQUIRED") == "1":
        pytest.fail(f"MCP Inspector required but unavailable: {reason}")
    pytest.skip(f"MCP Inspector unavailable: {reason}")


def _install(target: Path, npm: str) -> None:
    """npm-install the pinned inspector into a scratch directory, then move it into place.

    The rename makes the install all-or-nothing: an interrupted one never leaves a half-filled
    cache that later runs would trust.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".inspector-", dir=target.parent))
    try:
        # A package.json of its own keeps npm from climbing to some enclosing project.
        (scratch / "package.json").write_text('{"private": true}\n', encoding="utf-8")
        command = [npm, "install", "--prefix", str(scratch), "--no-audit", "--no-fund"]
        command += ["--loglevel=error", f"{PACKAGE}@{INSPECTOR_VERSION}"]
        try:
            done = _run_bounded(command, env=dict(os.environ), timeout=INSTALL_TIMEOUT)
        except subprocess.TimeoutExpired:
            _unavailable(f"`npm install {PACKAGE}` took over {INSTALL_TIMEOUT:.0f} s")
        if done.returncode != 0 or not _bin_in(scratch).exists():
            head = " | ".join(done.stderr.strip().splitlines()[:2])  # npm's code and summary
            _unavailable(f"`npm install {PACKAGE}` failed ({done.returncode}): {head}")
        try:
            scratch.rename(target)
        except OSError:
            if not _bin_in(target).exists():  # else a concurrent run won the race: use its
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


@pytest.fixture(scope="module")
def inspector() -> Path:
    """The inspector's ``mcp-inspector`` bin, installed on first use (or the test skips)."""
    configured = os.environ.get("VENOM_MCP_INSPECTOR")
    if configured:
        if not Path(configured).is_file():
            pytest.fail(f"VENOM_MCP_INSPECTOR={configured} is not a file")
        return Path(configured)
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        _unavailable("node and npm are needed on PATH")
    found = _bin_in(cache_dir())
    if not found.exists():
        _install(cache_dir(), npm)
    return found


def _run_bounded(
    command: list[str], *, env: dict[str, str], timeout: float
) -> subprocess.CompletedProcess[str]:
    """Run ``command`` in a process group of its own and leave nothing of it running.

    The inspector's launcher spawns a second node which spawns the MCP server; killing the
    whole group reaps all three, on a timeout as after a normal exit.
    """
    proc = subprocess.Popen(
        command,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        if proc.returncode is None:
            proc.communicate(timeout=timeout)
    return subprocess.CompletedProcess(command, proc.returncode, out, err)


def run_inspector(
    inspector: Path, daemon: Daemon, *method: str
) -> subprocess.CompletedProcess[str]:
    """``mcp-inspector --cli venom-echo mcp --method ...`` in the daemon's environment."""
    command = [str(inspector), "--cli", daemon.command[0], "mcp", "--method", *method]
    return _run_bounded(command, env=daemon.env, timeout=RUN_TIMEOUT)


def printed_json(done: subprocess.CompletedProcess[str]) -> Any:
    """The one JSON document the inspector prints (indented), skipping any lines before it."""
    assert done.returncode == 0, done.stderr
    text = done.stdout
    start = 0 if text.startswith("{") else text.find("\n{") + 1
    assert text.startswith("{", start), f"no JSON object in: {text!r}"
    value, end = json.JSONDecoder().raw_decode(text, start)
    assert not text[end:].strip(), f"trailing output: {text[end:]!r}"
    return value


def test_tools_list_echo_entry_matches_rfc(inspector: Path, daemon: Daemon) -> None:
    """RFC-0004 §5: another client sees the echo catalog entry exactly as the RFC gives it."""
    tools = printed_json(run_inspector(inspector, daemon, "tools/list"))["tools"]
    (echo,) = [t for t in tools if t["name"] == "echo"]
    rfc = json.loads(RFC_ECHO_ENTRY)
    # Every member the RFC lists, exactly; the rest are rfcs/0004 D-S36's title and annotations.
    assert {member: echo[member] for member in rfc} == rfc
    assert set(echo) - set(rfc) == {"title", "annotations"}
    assert echo["annotations"] == {"title": "venom-echo echo", "readOnlyHint": True}
    assert {"echo_drepeat", "config_dget"} <= {t["name"] for t in tools}


@pytest.mark.covers("mcp", "echo")
def test_echo_call_matches_rfc_example(inspector: Path, daemon: Daemon) -> None:
    """RFC-0004 §5: text block {"result":{"text":"hi"}} and the same structuredContent."""
    done = run_inspector(
        inspector, daemon, "tools/call", "--tool-name", "echo", "--tool-arg", "text=hi"
    )
    got = printed_json(done)
    assert got["isError"] is False
    assert got["structuredContent"] == {"result": {"text": "hi"}}
    (block,) = got["content"]
    assert block["type"] == "text"
    assert json.loads(block["text"]) == {"result": {"text": "hi"}}


@pytest.mark.covers("mcp", "echo")
def test_echo_call_with_enum_arg(inspector: Path, daemon: Daemon) -> None:
    """RFC-0004 §5: a second argument (the style enum) reaches the verb."""
    args = ("--tool-name", "echo", "--tool-arg", "text=hi", "style=upper")
    done = run_inspector(inspector, daemon, "tools/call", *args)
    assert printed_json(done)["structuredContent"] == {"result": {"text": "HI"}}


def test_unknown_tool_is_an_error(inspector: Path, daemon: Daemon) -> None:
    """RFC-0004 §5: an unknown tool is JSON-RPC error -32602, which the inspector reports."""
    done = run_inspector(inspector, daemon, "tools/call", "--tool-name", "no_such_tool")
    assert done.returncode != 0
    assert "-32602" in done.stderr, done.stderr
    assert "no_such_tool" in done.stderr
    assert not done.stdout.strip()


@pytest.mark.covers("mcp", "echo")
def test_missing_param_is_error_result(inspector: Path, daemon: Daemon) -> None:
    """RFC-0004 §5: a known tool's invalid params are an isError result with the error wrapper."""
    got = printed_json(run_inspector(inspector, daemon, "tools/call", "--tool-name", "echo"))
    assert got["isError"] is True
    assert "structuredContent" not in got
    (block,) = got["content"]
    assert json.loads(block["text"]) == {
        "error": {
            "code": "invalid_params.missing",
            "message": "missing required param 'text'",
            "data": {"param": "text"},
        }
    }
