"""Tool title, annotations and server instructions seen by the official MCP SDK client.

The 2025-06-18 additions beside RFC-0004 §5's catalog members (rfcs/0004 D-S36).
"""

from __future__ import annotations

from integration_kit import Daemon, exposed_verbs, load_model
from integration_kit import mcp_tool_name as tool_name
from integration_mcp import Mcp


def test_annotations_follow_grants(mcp_session: Mcp) -> None:
    """readOnlyHint is true exactly for none/read verbs; title is the CLI command."""
    model = load_model()
    exposed = exposed_verbs(model)["mcp"]
    verbs = {tool_name(v["name"]): v for v in model["verbs"] if v["name"] in exposed}
    tools = mcp_session.list_tools()
    assert {t.name for t in tools} == set(verbs)
    for tool in tools:
        verb = verbs[tool.name]
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint is (verb["grant"] in ("none", "read")), tool.name
        assert tool.annotations.destructive_hint is None  # venom-echo declares none
        assert tool.title == "venom-echo " + verb["name"].replace(".", " ")
        assert tool.annotations.title == tool.title
    by_name = {t.name: t for t in tools}
    assert by_name["config_dset"].annotations is not None
    assert by_name["config_dset"].annotations.read_only_hint is False


def test_instructions_reach_the_client(mcp_session: Mcp) -> None:
    """initialize carries instructions: the root summary, grants, the stream limits."""
    text = mcp_session.instructions
    assert text.startswith("venom-echo: "), text
    assert load_model()["summary"].rstrip(".") in text.splitlines()[0]
    assert "readOnlyHint" in text
    assert "1024 items" in text
    assert "1 MiB" in text


def test_instructions_state_max_grant(daemon: Daemon) -> None:
    """With --max-grant read the instructions say stronger tools are not listed."""
    session = Mcp(daemon, "--max-grant", "read")
    try:
        assert "--max-grant read" in (session.init.instructions or "")
        assert all(t.annotations and t.annotations.read_only_hint for t in session.list_tools())
    finally:
        session.close()
