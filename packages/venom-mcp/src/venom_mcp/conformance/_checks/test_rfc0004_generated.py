"""RFC-0004 §6: the generated docs, man pages, completions and skill the tool ships.

Given ``--generated DIR`` (the directory holding ``docs/``, ``man/``, ``completions/`` and
``SKILL.md``), each verb of the model must appear in each artifact. Without it, the man pages
and completions are read from the tool itself where its model has the commands that print them
(``man --page NAME``, ``completion SHELL``: the agent bundle's); the Markdown and the shipped
SKILL.md have no such command, so their checks are then not applicable.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from venom_mcp.conformance._kit import Daemon, exchange, not_applicable
from venom_mcp.conformance._model import TargetModel, cli_words, current, flag, mcp_name


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "doc_verb" in metafunc.fixturenames:
        verbs = current().cli_verbs()
        metafunc.parametrize("doc_verb", verbs, ids=[v["name"] for v in verbs])


NO_GENERATED = "the tool's generated files, which only --generated names"


@pytest.fixture(scope="module")
def shipped(pytestconfig: pytest.Config) -> Path | None:
    where = pytestconfig.getoption("--generated")
    return None if where is None else Path(where)


@pytest.fixture(scope="module")
def generated(shipped: Path | None) -> Path:
    if shipped is None:
        not_applicable(f"{NO_GENERATED} (the Markdown reference, SKILL.md)")
        raise AssertionError("unreachable")
    return shipped


@pytest.fixture(scope="module")
def completions(daemon: Daemon, model: TargetModel, shipped: Path | None) -> dict[str, str]:
    """Each shell's completion script: shipped, else printed by `completion SHELL`."""
    if shipped is not None:
        return _texts(shipped, "completions", "*")
    found = {}
    for shell in ("bash", "zsh", "fish"):
        if f"completion.{shell}" in model.verbs:
            r = daemon.cli("completion", shell)
            assert r.returncode == 0, (shell, r.stdout, r.stderr)
            found[shell] = r.stdout
    if not found:
        not_applicable(f"{NO_GENERATED}, and the model declares no completion command")
    return found


def _man_page(daemon: Daemon, model: TargetModel, shipped: Path | None, name: str) -> str:
    """The man page ``name``: shipped, else printed by `man --page NAME`."""
    if shipped is not None:
        pages = _texts(shipped, "man", "*.1")
        assert name in pages, sorted(pages)
        return pages[name]
    if "man" not in model.verbs:
        not_applicable(f"{NO_GENERATED}, and the model declares no man command")
    r = daemon.cli("man", "--page", name.removesuffix(".1"))
    assert r.returncode == 0, (name, r.stdout, r.stderr)
    return r.stdout


def _texts(root: Path, sub: str, pattern: str) -> dict[str, str]:
    found = {p.name: p.read_text(encoding="utf-8") for p in sorted((root / sub).glob(pattern))}
    if not found:
        not_applicable(f"the tool ships no {sub}/{pattern}")
    return found


def _roff(text: str) -> str:
    return text.replace("\\-", "-").replace("\\(em", "-")


@pytest.mark.rfc("RFC-0004 §6")
def test_docs_name_every_verb_and_flag(generated: Path, doc_verb: dict[str, Any]) -> None:
    """RFC-0004 §6: the Markdown gives each verb's CLI spelling, wire and MCP name and params."""
    text = "\n".join(_texts(generated, "docs", "*.md").values())
    wire = doc_verb["name"]
    assert " ".join(cli_words(wire)) in text
    assert wire in text
    if doc_verb.get("dispatch") not in ("local", "transport"):
        assert mcp_name(wire) in text.replace("\\_", "_")
    for p in doc_verb.get("params", []):
        assert flag(p["name"]) in text


@pytest.mark.rfc("RFC-0004 §6")
def test_man_page_per_verb_by_hyphenated_path(
    daemon: Daemon, model: TargetModel, shipped: Path | None, doc_verb: dict[str, Any]
) -> None:
    """RFC-0004 §6: man-page command paths use hyphens; each page names the verb's flags."""
    name = f"{model.tool}-{'-'.join(cli_words(doc_verb['name']))}.1"
    page = _roff(_man_page(daemon, model, shipped, name))
    for p in doc_verb.get("params", []):
        assert flag(p["name"]) in page


@pytest.mark.rfc("RFC-0004 §6")
def test_completions_derive_the_same_tree(
    completions: dict[str, str], doc_verb: dict[str, Any]
) -> None:
    """RFC-0004 §6: every shell's completion has each command word, the dotted alias, each flag."""
    for shell, text in completions.items():
        for word in cli_words(doc_verb["name"]):
            assert word in text, shell
        if "." in doc_verb["name"]:
            assert doc_verb["name"] in text, shell
        for p in doc_verb.get("params", []):
            assert p["name"].replace("_", "-") in text, shell


@pytest.mark.rfc("RFC-0004 §6")
def test_shipped_skill_is_what_the_daemon_serves(
    daemon: Daemon, model: TargetModel, generated: Path
) -> None:
    """RFC-0004 §6: `skill --json` returns the complete SKILL.md, front matter naming the tool."""
    shipped = generated / "SKILL.md"
    if "skill" not in model.verbs or not shipped.exists():
        not_applicable("the tool ships no SKILL.md, or declares no skill verb")
    reply = json.loads(exchange(daemon, b'{"id":1,"verb":"skill"}')[0])
    content = reply["ok"]["content"]
    assert content == shipped.read_text(encoding="utf-8")
    assert content.startswith("---\n")
    assert f"\nname: {model.tool}\n" in content.split("\n---", 1)[0] + "\n"
