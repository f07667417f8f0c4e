"""The CLI is a short-lived process: a verb call imports nothing heavy."""

from __future__ import annotations

import json
import subprocess
import sys

from venom_gen.testing import PrivateDirs

HEAVY = (
    "pydantic",
    "typer",
    "click",
    "mcp",
    "anyio",
    "asyncio",
    "orjson",
    "venom_schema.zon",
    "venom_schema.manifest",
    "venom_schema.registry",
    "venom_schema.runtime._generated",  # generated checks are for the daemon
    "venom_gen.render",  # the MCP catalog, SKILL.md, units; CLI help takes its helpers
    "venom_gen.build",  # the generators, the developer CLI and the scaffold: build time only
    "venom_gen.daemon",
    "venom_echo.handlers",  # the daemon side, named by the product but loaded by `serve` only
    "venom_mcp",
)

#: Typing machinery, a few ms of start-up together. `enum` is not listed: stdlib `re` imports it.
TYPING_MACHINERY = ("typing", "dataclasses", "inspect")

PROBE = """
import json, sys
from venom_echo.__main__ import main
code = main()
sys.stderr.write("\\nMODULES " + json.dumps(sorted(sys.modules)) + "\\n")
sys.exit(code)
"""


def _modules_after(*argv: str) -> tuple[int, list[str]]:
    dirs = PrivateDirs()  # no daemon there: the call fails fast, on the light path
    try:
        proc = subprocess.run(
            [sys.executable, "-c", PROBE, *argv],
            env=dirs.env("venom-echo"),
            capture_output=True,
            text=True,
            timeout=30,
        )
    finally:
        dirs.remove()
    line = proc.stderr.rsplit("MODULES ", 1)[1]
    return proc.returncode, json.loads(line)


def test_a_verb_call_imports_nothing_heavy() -> None:
    """A normal verb call (here failing fast: no daemon) stays on the light path."""
    code, modules = _modules_after("echo", "--text", "hi", "--json")
    assert code == 6  # unavailable.not_running: the call went all the way to connect()
    heavy = [m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY)]
    assert heavy == []
    # The local verbs' table is on the path; each verb's module loads only when it runs.
    assert [m for m in modules if m.startswith("venom_gen.local.")] == []


def test_a_verb_call_imports_no_typing_machinery() -> None:
    """Annotation-only imports sit under TYPE_CHECKING on the whole verb-call path.

    json, re, socket and os do not import typing themselves, so any hit here is ours.
    """
    code, modules = _modules_after("echo", "--text", "hi")
    assert code == 6  # went all the way to connect(), through argv, validation and the client
    assert "venom_proto.sync_client" in modules  # the probe really walked the client path
    assert "venom_schema.runtime" in modules
    assert [m for m in TYPING_MACHINERY if m in modules] == []


def test_the_lazy_validator_alias_still_resolves() -> None:
    """`venom_schema.runtime.Validator` is built on first use (PEP 562), not at import."""
    import venom_schema.runtime as runtime

    alias = runtime.Validator
    assert "Callable" in repr(alias)
    assert runtime.Validator is alias
    from venom_schema.runtime import Validator

    assert Validator is alias


def test_help_imports_nothing_heavy() -> None:
    code, modules = _modules_after("echo", "--help")
    assert code == 0
    assert not [m for m in modules if m in ("pydantic", "typer", "mcp", "anyio", "asyncio")]
