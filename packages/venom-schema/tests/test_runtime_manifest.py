"""Integration with the ZON -> normalized pipeline: venom-echo's real model compiles."""

from __future__ import annotations

from pathlib import Path

import pytest

from venom_schema.runtime import compile_verb
from venom_schema.surfaces import verbs_on

ECHO_ZON = Path(__file__).parents[2] / "venom-echo" / "src" / "venom_echo" / "verbs.zon"


def test_every_echo_verb_compiles_and_its_examples_validate() -> None:
    """RFC-0004 §2: examples validate after default insertion; example results validate."""
    manifest = pytest.importorskip("venom_schema.manifest")
    if not ECHO_ZON.exists():
        pytest.skip("venom-echo has no verbs.zon yet")
    model = manifest.load_manifest(str(ECHO_ZON))
    examples = 0
    for verb in model["verbs"]:
        compiled = compile_verb(verb)
        for example in verb["examples"]:
            compiled.params(example["params"])
            compiled.result(example["result"])
            examples += 1
    assert examples > 0
    names = {verb["name"] for verb in verbs_on(model, "daemon")}
    assert "echo" in names
    assert names.isdisjoint({"hello", "cancel", "ping", "serve", "mcp"})
