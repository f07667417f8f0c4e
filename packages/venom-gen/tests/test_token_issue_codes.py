"""``token.issue`` answers the codes rfcs/0005 §7.1 names, on every surface (issue 27).

The class: a schema constraint (``choices``, ``min``/``max``) answers first with the generic
``invalid_params.enum``/``.range``, so a code the RFC names for the verb's own policy could
never be seen. The bundle leaves those checks to the handler, the one authority on token
policy, and declares the codes it raises; the CLI and the MCP adapter validate with the same
model, so they pass the values on and the daemon answers alike.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from venom_gen.daemon.tokens import TokenVerbs
from venom_proto import VenomError
from venom_schema.manifest import validate_manifest
from venom_schema.model import Verb
from venom_schema.runtime import compile_verb

NO_CALL: Any = None

CASES = [
    ({"name": "a", "grants": ["admin"]}, "invalid_params.grant"),
    ({"name": "a", "grants": ["read", "root"]}, "invalid_params.grant"),
    ({"name": "a", "grants": ["none", "admin"]}, "invalid_params.grant"),
    ({"name": "a", "grants": ["read"], "expires_in": 0}, "invalid_params.expires_in"),
    ({"name": "a", "grants": ["read"], "expires_in": -1}, "invalid_params.expires_in"),
    ({"name": "a", "grants": ["read"], "expires_in": 315_360_001}, "invalid_params.expires_in"),
    ({"name": "A b", "grants": ["read"]}, "invalid_params.name"),
]


def _token_issue() -> Verb:
    model = validate_manifest(
        {"format": 1, "tool": "t", "summary": "S", "verbs": []}, bundles=("core", "agent")
    )
    (verb,) = [v for v in model["verbs"] if v["name"] == "token.issue"]
    return verb


@pytest.mark.parametrize(("params", "code"), CASES)
def test_the_handler_answers_the_code_the_rfc_names(
    params: dict[str, Any], code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    verb = _token_issue()
    checked = compile_verb(verb).params(params)  # the schema lets the policy decide
    with pytest.raises(VenomError) as info:
        asyncio.run(TokenVerbs("t").issue(NO_CALL, checked))
    assert info.value.code == code
    assert code in [e["code"] for e in verb["errors"]]  # declared, so documented


def test_the_schema_still_answers_what_is_not_policy() -> None:
    params = compile_verb(_token_issue()).params
    for bad, code in [
        ({"name": "a", "grants": "write"}, "invalid_params.type"),
        ({"name": "a", "grants": [1]}, "invalid_params.type"),
        ({"name": "a", "grants": ["read"], "expires_in": 1.5}, "invalid_params.type"),
        ({"name": "a"}, "invalid_params.missing"),
    ]:
        with pytest.raises(VenomError) as info:
            params(bad)
        assert info.value.code == code
