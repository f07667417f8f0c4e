"""The official MCP conformance suite against ``venom-echo mcp`` (issue 26; docs/testing.md).

``@modelcontextprotocol/conformance`` (pinned: :data:`SUITE_VERSION`) tests servers over
Streamable HTTP, so the adapter runs behind `http_bridge`. Only the scenarios that apply to a
tools-only adapter of a daemon run (:data:`SCENARIOS`); the rest need fixture tools, resources,
prompts, logging, sampling, elicitation or an HTTP server of the product's own
(:data:`NOT_APPLICABLE`, each with why). The suite is installed from npm on first use, so this
runs in its own nox session (``nox -s mcp-conformance``), outside the default set.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from http_bridge import serve_bridge
from integration_kit import Daemon

from tools.node_clients import Node, find_node, install, run

SUITE = "@modelcontextprotocol/conformance"
SUITE_VERSION = "0.1.16"
RUN_TIMEOUT = 120.0

#: The server scenarios that apply to a tools-only adapter.
SCENARIOS = ("server-initialize", "ping", "tools-list")

FIXTURE_TOOLS = (
    "tools-call-simple-text", "tools-call-image", "tools-call-audio",
    "tools-call-embedded-resource", "tools-call-mixed-content", "tools-call-with-logging",
    "tools-call-error", "tools-call-with-progress", "tools-call-sampling",
    "tools-call-elicitation", "json-schema-2020-12", "elicitation-sep1034-defaults",
    "elicitation-sep1330-enums",
)  # fmt: skip
NO_RESOURCES_OR_PROMPTS = (
    "resources-list", "resources-read-text", "resources-read-binary", "resources-templates-read",
    "resources-subscribe", "resources-unsubscribe", "prompts-list", "prompts-get-simple",
    "prompts-get-with-args", "prompts-get-embedded-resource", "prompts-get-with-image",
)  # fmt: skip
HTTP_SERVER = ("server-sse-polling", "server-sse-multiple-streams", "dns-rebinding-protection")

#: Every other server scenario of the pinned suite, and why it does not apply.
NOT_APPLICABLE = {
    "logging-set-level": "the adapter declares no logging capability (rfcs/0004 D-S73)",
    "completion-complete": "no prompts or resources, so nothing to complete",
    **dict.fromkeys(FIXTURE_TOOLS, "calls a fixture tool (test_*) every server must define"),
    **dict.fromkeys(NO_RESOURCES_OR_PROMPTS, "the adapter offers tools only"),
    **dict.fromkeys(HTTP_SERVER, "tests an HTTP server's own streams or Host checks: the"
                    " adapter is stdio only, and the HTTP side here is the test bridge's"),
}  # fmt: skip

pytestmark = pytest.mark.timeout(RUN_TIMEOUT * 2)


@pytest.fixture(scope="module")
def node() -> Node:
    return find_node()


@pytest.fixture(scope="module")
def suite(node: Node) -> Path:
    return install(node, SUITE, SUITE_VERSION, "conformance", timeout=RUN_TIMEOUT)


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    """``venom-echo mcp`` on a running daemon, behind the bridge."""
    with Daemon() as daemon, serve_bridge([daemon.command[0], "mcp"], daemon.env) as address:
        yield address


def test_every_scenario_is_run_or_listed(node: Node, suite: Path) -> None:
    """The pinned suite's server scenarios are exactly those run plus those not applicable."""
    done = run([str(suite), "list", "--server"], env=node.env({}), timeout=RUN_TIMEOUT)
    assert done.returncode == 0, done.stderr
    listed = {line.split()[1] for line in done.stdout.splitlines() if line.startswith("  - ")}
    assert listed == set(SCENARIOS) | set(NOT_APPLICABLE)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_scenario(node: Node, suite: Path, url: str, scenario: str, tmp_path: Path) -> None:
    command = [str(suite), "server", "--url", url, "--scenario", scenario]
    command += ["--output-dir", str(tmp_path)]
    done = run(command, env=node.env({}), timeout=RUN_TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    checks = [json.loads(p.read_text()) for p in tmp_path.rglob("checks.json")]
    statuses = {c["id"]: c["status"] for found in checks for c in found}
    assert statuses, done.stdout
    assert set(statuses.values()) == {"SUCCESS"}, statuses
