"""`venom-echo mcp` driven by an independent client: the MCP Inspector's CLI mode (RFC-0004 §5).

The inspector is the npm package ``@modelcontextprotocol/inspector``, pinned to
:data:`INSPECTOR_VERSION` (2.x: it needs Node >= 22.19, which the lock pins as a wheel,
``tools.node_clients``). It is found at ``$VENOM_MCP_INSPECTOR`` (its ``mcp-inspector`` bin), or
installed once into ``tools.node_clients.cache_dir``. Without Node or the registry the tests
skip, unless ``VENOM_MCP_INSPECTOR_REQUIRED=1`` (for CI) turns that into a failure.

Each test runs at both protocol eras the inspector speaks (``--protocol-era``): ``legacy``
negotiates 2025-11-25 with ``initialize``, ``modern`` is stateless 2026-07-28. Like a host, the
inspector gives the server only the environment it is told (``-e``): the pinned socket.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any, NoReturn

import pytest
from integration_kit import Daemon

from tools.node_clients import Node, NodeUnavailable, find_node, install, run

INSPECTOR_VERSION = "2.12.0"
PACKAGE = "@modelcontextprotocol/inspector"
INSTALL_TIMEOUT = 120.0
#: Per inspector run; one takes about 2 s (node start, MCP handshake, one request).
RUN_TIMEOUT = 30.0
#: ``--protocol-era`` -> the revision it reaches.
ERAS = {"legacy": "2025-11-25", "modern": "2026-07-28"}

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


def _unavailable(reason: str) -> NoReturn:
    if os.environ.get("VENOM_MCP_INSPECTOR_REQUIRED") == "1":
        pytest.fail(f"MCP Inspector required but unavailable: {reason}")
    pytest.skip(f"MCP Inspector unavailable: {reason}")


def _node() -> Node:
    try:
        return find_node()
    except NodeUnavailable as exc:
        _unavailable(str(exc))


@pytest.fixture(scope="module")
def node() -> Node:
    """The Node the inspector runs on (or the test skips)."""
    return _node()


@pytest.fixture(scope="module")
def inspector() -> Path:
    """The inspector's ``mcp-inspector`` bin, installed on first use (or the test skips)."""
    node = _node()
    configured = os.environ.get("VENOM_MCP_INSPECTOR")
    if configured:
        if not Path(configured).is_file():
            pytest.fail(f"VENOM_MCP_INSPECTOR={configured} is not a file")
        return Path(configured)
    try:
        return install(node, PACKAGE, INSPECTOR_VERSION, "mcp-inspector", timeout=INSTALL_TIMEOUT)
    except NodeUnavailable as exc:
        _unavailable(str(exc))


@pytest.fixture(params=ERAS)
def era(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


def run_inspector(
    inspector: Path, node: Node, daemon: Daemon, era: str, *method: str
) -> subprocess.CompletedProcess[str]:
    """``mcp-inspector --cli --protocol-era ERA -e SOCKET venom-echo mcp --method ...``."""
    command = [str(inspector), "--cli", "--protocol-era", era, "--format", "json"]
    command += ["-e", f"VENOM_ECHO_SOCKET={daemon.socket}", daemon.command[0], "mcp"]
    return run([*command, "--method", *method], env=node.env(daemon.env), timeout=RUN_TIMEOUT)


def _run_bounded(
    command: list[str], *, env: dict[str, str], timeout: float
) -> subprocess.CompletedProcess[str]:
    """`tools.node_clients.run` with the tests' Node first on PATH (test_integ_mcp_hosts)."""
    return run(command, env=_node().env(env), timeout=timeout)


def printed_json(done: subprocess.CompletedProcess[str]) -> Any:
    """The one JSON document the inspector prints (indented), skipping any lines before it."""
    assert done.returncode == 0, done.stderr
    text = done.stdout
    start = 0 if text.startswith("{") else text.find("\n{") + 1
    assert text.startswith("{", start), f"no JSON object in: {text!r}"
    value, end = json.JSONDecoder().raw_decode(text, start)
    assert not text[end:].strip(), f"trailing output: {text[end:]!r}"
    return value


def printed_result(done: subprocess.CompletedProcess[str], status: int = 0) -> Any:
    """The ``result`` of the one JSON object the inspector prints (``--format json``)."""
    assert done.returncode == status, done.stderr
    printed = json.loads(done.stdout)
    assert list(printed) == ["result"], printed
    return printed["result"]


def test_initialize_reaches_the_era(inspector: Path, node: Node, daemon: Daemon, era: str) -> None:
    """The inspector negotiates 2025-11-25 (legacy) or discovers 2026-07-28 (modern)."""
    got = printed_result(run_inspector(inspector, node, daemon, era, "initialize"))
    assert got["protocolVersion"] == ERAS[era]
    assert got["serverInfo"]["name"] == "venom-echo"
    assert got["capabilities"] == {"tools": {"listChanged": False}}


def test_tools_list_echo_entry_matches_rfc(
    inspector: Path, node: Node, daemon: Daemon, era: str
) -> None:
    """RFC-0004 §5: another client sees the echo catalog entry exactly as the RFC gives it,
    and its --strict schema-portability check finds nothing to report."""
    done = run_inspector(inspector, node, daemon, era, "tools/list", "--strict")
    tools = printed_result(done)["tools"]
    (echo,) = [t for t in tools if t["name"] == "echo"]
    rfc = json.loads(RFC_ECHO_ENTRY)
    # Every member the RFC lists, exactly; the rest are rfcs/0004 D-S36's title and annotations.
    assert {member: echo[member] for member in rfc} == rfc
    assert set(echo) - set(rfc) == {"title", "annotations"}
    assert echo["annotations"] == {"title": "venom-echo echo", "readOnlyHint": True}
    assert {"echo_drepeat", "config_dget"} <= {t["name"] for t in tools}


@pytest.mark.covers("mcp", "echo")
def test_echo_call_matches_rfc_example(
    inspector: Path, node: Node, daemon: Daemon, era: str
) -> None:
    """RFC-0004 §5: text block {"result":{"text":"hi"}} and the same structuredContent."""
    args = ("tools/call", "--tool-name", "echo", "--tool-arg", "text=hi")
    got = printed_result(run_inspector(inspector, node, daemon, era, *args))
    assert got["isError"] is False
    assert got["structuredContent"] == {"result": {"text": "hi"}}
    (block,) = got["content"]
    assert block == {"type": "text", "text": '{"result":{"text":"hi"}}'}


@pytest.mark.covers("mcp", "echo")
def test_echo_call_with_enum_arg(inspector: Path, node: Node, daemon: Daemon, era: str) -> None:
    """RFC-0004 §5: a second argument (the style enum) reaches the verb."""
    args = ("tools/call", "--tool-name", "echo", "--tool-arg", "text=hi", "style=upper")
    got = printed_result(run_inspector(inspector, node, daemon, era, *args))
    assert got["structuredContent"] == {"result": {"text": "HI"}}


@pytest.mark.covers("mcp", "echo.repeat")
def test_streaming_call_returns_every_item(
    inspector: Path, node: Node, daemon: Daemon, era: str
) -> None:
    """RFC-0004 §5: a stream's items and final ok, buffered into one result."""
    args = ("tools/call", "--tool-name", "echo_drepeat", "--tool-arg", "text=a", "count=2")
    got = printed_result(run_inspector(inspector, node, daemon, era, *args))
    assert got["structuredContent"] == {
        "items": [{"index": 0, "text": "a"}, {"index": 1, "text": "a"}],
        "result": {"count": 2},
    }


def test_unknown_tool_is_an_error(inspector: Path, node: Node, daemon: Daemon, era: str) -> None:
    """An unknown tool fails naming it. Inspector 2.x checks the listing before it calls, so
    the adapter's -32602 itself is held by the SDK and raw tests (test_integ_mcp)."""
    done = run_inspector(inspector, node, daemon, era, "tools/call", "--tool-name", "no_such")
    assert done.returncode != 0
    assert "no_such" in done.stderr, done.stderr
    assert not done.stdout.strip()


@pytest.mark.covers("mcp", "echo")
def test_missing_param_is_error_result(
    inspector: Path, node: Node, daemon: Daemon, era: str
) -> None:
    """RFC-0004 §5: a known tool's invalid params are an isError result with the error wrapper
    (the inspector exits 5 for an isError result)."""
    done = run_inspector(inspector, node, daemon, era, "tools/call", "--tool-name", "echo")
    got = printed_result(done, status=5)
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
