"""The shared command tree behind every completion script (RFC-0004 §4, §6)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from venom_gen.build.completions import render_bash, render_fish, render_zsh
from venom_gen.build.completions._tree import Flag, build_tree
from venom_gen.render._views import GenerationError
from venom_schema.model import Model

FIXTURES = Path(__file__).parent / "fixtures"


def test_root_lists_canonical_and_dotted_commands(echo_model: Model) -> None:
    """RFC-0004 §4: dotted wire names are accepted as one token; transport verbs hidden."""
    root = build_tree(echo_model).nodes[0]
    assert list(root.children) == [
        "config",
        "config.get",
        "config.set",
        "echo",
        "events",
        "mcp",
        "ping",
        "serve",
        "skill",
        "skill.install",
    ]
    assert root.verb is None
    assert [f.name for f in root.flags] == ["--json", "--socket", "--help"]


def test_alias_and_canonical_share_flags(echo_model: Model) -> None:
    """RFC-0004 §4: both routes reach the same verb with the same options."""
    tree = build_tree(echo_model)
    root = tree.nodes[0]
    canonical = tree.nodes[tree.nodes[root.children["config"]].children["set"]]
    alias = tree.nodes[root.children["config.set"]]
    assert canonical.verb == alias.verb == "config.set"
    assert canonical.flags == alias.flags
    assert canonical.flags[:3] == (
        Flag("--key", "value"),
        Flag("--value", "value"),
        Flag("--dry-run", "bool"),
    )
    assert alias.children == {}


def test_prefix_verb_has_children_and_flags(echo_model: Model) -> None:
    """RFC-0004 §4: skill is a verb and the parent of skill install."""
    tree = build_tree(echo_model)
    skill = tree.nodes[tree.nodes[0].children["skill"]]
    assert skill.verb == "skill"
    assert list(skill.children) == ["install"]
    install = tree.nodes[skill.children["install"]]
    assert install.flags[0] == Flag("--target", "value", ("claude", "codex"))
    assert [f.kind for f in install.flags] == ["value", "bool", "switch", "path", "switch"]


def test_underscores_become_hyphens(hostile_model: Model) -> None:
    """RFC-0004 §4: pane.set_title -> pane set-title; win_split -> win-split."""
    tree = build_tree(hostile_model)
    root = tree.nodes[0]
    assert list(root.children) == [
        "pane", "pane.set_title", "pane.split", "records", "tail", "win-split"
    ]  # fmt: skip
    assert list(tree.nodes[root.children["pane"]].children) == ["set-title", "split"]


def test_param_named_like_a_global_option_fails(echo_model: Model) -> None:
    """RFC-0004 §4: mapped-name collisions with --json/--socket/--help MUST fail."""
    model = copy.deepcopy(echo_model)
    next(v for v in model["verbs"] if v["name"] == "echo")["params"][0]["name"] = "json"
    with pytest.raises(GenerationError, match="--json"):
        build_tree(model)


def test_two_verbs_on_one_command_path_fail(hostile_model: Model) -> None:
    """A duplicated verb cannot be given one command path twice."""
    model = copy.deepcopy(hostile_model)
    model["verbs"].append(copy.deepcopy(model["verbs"][2]))
    with pytest.raises(GenerationError, match="share a command path"):
        build_tree(model)


@pytest.mark.parametrize("render", [render_bash, render_zsh, render_fish])
def test_scripts_offer_every_tree_word(render: Any, echo_model: Model) -> None:
    """RFC-0004 §6: all three shells are generated from the same tree."""
    script = render(echo_model)
    tree = build_tree(echo_model)
    for node in tree.nodes:
        for token in node.children:
            assert f"'{token}'" in script
        for flag in node.flags:
            assert f"{flag.kind}:{flag.name}" in script
    assert script.endswith("\n")
    assert "hello" not in script
    assert "cancel" not in script
    assert render(echo_model) == render(copy.deepcopy(echo_model))
