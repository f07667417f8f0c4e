"""Registry conformance: every verb each surface exposes is exercised by an integration test.

In the spirit of ict's RegistryConformanceTest ("fails the build for any registered operation
that no specification names"): the verbs come from venom-echo's normalized model (shared
bundles included) and the claims from ``@pytest.mark.covers(surface, verb, ...)``.

The claims are read from the test files' source with ``ast`` rather than from collected items,
so the check gives the same answer whichever subset of the suite runs (``-k``, one file, xdist).
Every ``covers`` mark must be a literal ``pytest.mark.covers("surface", "verb", ...)``: anything
the scan cannot read fails the test instead of being silently skipped.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

import pytest
from integration_kit import SURFACES, exposed_verbs, load_model

HERE = Path(__file__).parent

Claim = tuple[str, str, str]  # (surface, verb, where)


def _is_covers(node: ast.expr) -> bool:
    """``pytest.mark.covers`` (the only spelling the suite uses)."""
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "covers"
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "mark"
        and isinstance(node.value.value, ast.Name)
        and node.value.value.id == "pytest"
    )


def scan_claims(source: str, filename: str) -> tuple[list[Claim], list[str]]:
    """The (surface, verb) claims of one test file, and the problems that stop reading them."""
    nodes = list(ast.walk(ast.parse(source, filename)))
    called = {id(n.func) for n in nodes if isinstance(n, ast.Call)}
    claims: list[Claim] = []
    problems: list[str] = []
    for node in nodes:
        where = f"{filename}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Call) and _is_covers(node.func):
            args = [a.value for a in node.args if isinstance(a, ast.Constant)]
            strings = [a for a in args if isinstance(a, str)]
            if len(strings) != len(node.args) or len(strings) < 2 or node.keywords:
                problems.append(f"{where}: covers needs literal strings (surface, verb, ...)")
                continue
            surface, *verbs = strings
            claims += [(surface, verb, where) for verb in verbs]
        elif isinstance(node, ast.expr) and _is_covers(node) and id(node) not in called:
            problems.append(f"{where}: pytest.mark.covers used without a call")
    return claims, problems


def check_claims(exposed: dict[str, set[str]], claims: Iterable[Claim]) -> list[str]:
    """Problems: claims naming an unknown surface or a verb it does not expose, and every
    (surface, verb) the model exposes that no claim names."""
    problems: list[str] = []
    covered: set[tuple[str, str]] = set()
    for surface, verb, where in claims:
        if surface not in exposed:
            problems.append(f"{where}: unknown surface {surface!r} (one of {sorted(exposed)})")
        elif verb not in exposed[surface]:
            problems.append(f"{where}: surface {surface!r} does not expose verb {verb!r}")
        else:
            covered.add((surface, verb))
    for surface in sorted(exposed):
        for verb in sorted(exposed[surface]):
            if (surface, verb) not in covered:
                problems.append(f"verb {verb!r} over surface {surface!r}: no integration test")
    return problems


def test_every_exposed_verb_is_exercised_on_every_surface() -> None:
    """RFC-0004 §7 (one model, every interface): each exposed (surface, verb) has a test."""
    claims: list[Claim] = []
    problems: list[str] = []
    for path in sorted(HERE.glob("test_*.py")):
        found, bad = scan_claims(path.read_text(encoding="utf-8"), path.name)
        claims += found
        problems += bad
    problems += check_claims(exposed_verbs(load_model()), claims)
    assert not problems, "\n".join(problems)


def test_surfaces_follow_dispatch() -> None:
    """RFC-0004 §7: hello/cancel only on the socket; serve/mcp only on the CLI."""
    exposed = exposed_verbs(load_model())
    assert set(exposed) == set(SURFACES)
    assert {"hello", "cancel"} <= exposed["socket"] - exposed["cli"] - exposed["mcp"]
    assert {"serve", "mcp"} <= exposed["cli"] - exposed["socket"] - exposed["mcp"]
    assert exposed["mcp"] == exposed["socket"] - {"hello", "cancel"}
    assert {"echo", "events", "config.reload", "skill.install", "doctor"} <= exposed["mcp"]


def test_check_names_the_uncovered_verb_and_surface() -> None:
    """The checker itself fails loudly, naming what nobody exercises."""
    exposed = {"socket": {"echo", "ping"}, "cli": {"echo"}, "mcp": set[str]()}
    claims = [("socket", "echo", "t.py:1"), ("cli", "echo", "t.py:2")]
    assert check_claims(exposed, claims) == [
        "verb 'ping' over surface 'socket': no integration test"
    ]
    assert check_claims(exposed, [("cli", "ping", "t.py:3"), ("tcp", "echo", "t.py:4")])[:2] == [
        "t.py:3: surface 'cli' does not expose verb 'ping'",
        "t.py:4: unknown surface 'tcp' (one of ['cli', 'mcp', 'socket'])",
    ]


@pytest.mark.parametrize(
    ("source", "claims", "problems"),
    [
        (
            '@pytest.mark.covers("cli", "echo", "ping")\ndef test_x(): ...\n',
            [("cli", "echo", "f.py:1"), ("cli", "ping", "f.py:1")],
            0,
        ),
        (
            'x = pytest.param(1, marks=pytest.mark.covers("mcp", "echo"))\n',
            [("mcp", "echo", "f.py:1")],
            0,
        ),
        ('V = "echo"\n@pytest.mark.covers("cli", V)\ndef test_x(): ...\n', [], 1),
        ("@pytest.mark.covers\ndef test_x(): ...\n", [], 1),
    ],
)
def test_scan_reads_literal_marks_and_refuses_others(
    source: str, claims: list[Claim], problems: int
) -> None:
    """Marks inside pytest.param count; non-literal or uncalled marks are reported."""
    found, bad = scan_claims(source, "f.py")
    assert (found, len(bad)) == (claims, problems)
