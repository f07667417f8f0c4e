"""Fuzz the manifest validator with mutated real manifests, as ZON values and as text.

The seed corpus is venom-echo's own ``verbs.zon``: subsets of its verbs, then random tree edits
(members dropped, retyped or renamed, enums turned into strings, unknown members, duplicated
verbs, random ZON values anywhere). ``validate_manifest`` may only return a JSON-compatible model
or raise ``ManifestError``; from text, ``ZonError`` is allowed as well.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from fuzz_kit import Fuzz, mutate, rand_int, rand_text
from hypothesis import given, seed
from hypothesis import strategies as st

from venom_schema.manifest import ManifestError, validate_manifest
from venom_schema.zon import ZON_EMPTY, ZonChar, ZonEnum, ZonError, ZonValue, parse_zon

TARGET = "manifest"
PER_EXAMPLE = 10
ECHO_ZON = (
    Path(__file__).parents[2] / "packages" / "venom-echo" / "src" / "venom_echo" / "verbs.zon"
)
TEXT = ECHO_ZON.read_bytes()
BASE: dict[str, Any] = parse_zon(TEXT)  # type: ignore[assignment]
ENUMS = ("string", "integer", "number", "boolean", "null", "array", "object", "read", "write",
         "admin", "result", "standard", "bogus")  # fmt: skip
KEYS = ("name", "summary", "type", "kind", "params", "result", "errors", "grant", "streams",
        "item", "exit", "examples", "required", "default", "choices", "min", "max", "fields",
        "items", "nullable", "code", "data", "field", "format", "tool", "verbs", "x")  # fmt: skip
TOKENS = (b".{", b"}", b",", b".name", b"= .string", b'"a.b"', b"= 2", b".kind = .object")


def rand_zon(rng: random.Random, depth: int = 2) -> ZonValue:
    """A random ZON value, biased to what manifests hold."""
    pick = rng.randrange(11 if depth > 0 else 8)
    if pick == 0:
        return rng.choice((True, False, None))
    if pick == 1:
        return rand_int(rng)
    if pick == 2:
        return rng.choice((0.5, float("inf"), float("nan"), -1.5))
    if pick in (3, 4):
        return rng.choice(("echo", "a.b", "Echo", "", "x" * 70, "a..b", rand_text(rng)))
    if pick == 5:
        return ZonEnum(rng.choice(ENUMS))
    if pick == 6:
        return ZonChar(rng.randrange(0x110000))
    if pick == 7:
        return ZON_EMPTY
    if pick in (8, 9):
        return {rng.choice(KEYS): rand_zon(rng, depth - 1) for _ in range(rng.randint(1, 4))}
    return [rand_zon(rng, depth - 1) for _ in range(rng.randint(1, 3))]


def clone(value: Any) -> Any:
    """A deep copy of dicts and lists; the other ZON values are immutable and shared."""
    if isinstance(value, dict):
        return {k: clone(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clone(v) for v in value]
    return value


def _containers(value: Any, out: list[Any]) -> list[Any]:
    if isinstance(value, (dict, list)):
        out.append(value)
        for child in value.values() if isinstance(value, dict) else value:
            _containers(child, out)
    return out


def edit(doc: dict[str, Any], rng: random.Random) -> None:
    """One random edit somewhere in ``doc``, in place."""
    node = rng.choice(_containers(doc, []))
    if isinstance(node, dict):
        key = rng.choice([*node, rng.choice(KEYS)])
        op = rng.randrange(5)
        if op == 0:
            node.pop(key, None)
        elif op == 1:
            node[key] = rand_zon(rng)
        elif op == 2 and isinstance(node.get(key), ZonEnum):
            node[key] = node[key].name  # an enum written as a string
        elif op == 3 and key in node:
            node[rng.choice(KEYS)] = clone(node[key])
        else:
            node[key] = rand_zon(rng, 3)
    elif node:
        op = rng.randrange(3)
        index = rng.randrange(len(node))
        if op == 0:
            del node[index]
        elif op == 1:
            node.append(clone(node[index]))
        else:
            node[index] = rand_zon(rng)


def variant(rng: random.Random) -> dict[str, Any]:
    """A copy of the echo manifest with a random subset of its verbs and 0-4 edits."""
    doc = {k: v for k, v in BASE.items() if k != "verbs"}
    doc["verbs"] = clone(rng.sample(BASE["verbs"], rng.randint(1, 3)))
    for _ in range(rng.randint(0, 4)):
        edit(doc, rng)
    return doc


def check(raw: ZonValue, bundles: tuple[str, ...]) -> None:
    """A JSON-compatible model with the format-1 shape, or ManifestError; nothing else."""
    try:
        model = validate_manifest(raw, source="fuzz.zon", bundles=bundles)
    except ManifestError as exc:
        problems = exc.problems
    else:
        assert model["format"] == 1
        assert json.loads(json.dumps(model, allow_nan=False)) == model
        return
    assert problems
    assert all(isinstance(p, str) for p in problems)


def check_text(data: bytes) -> None:
    try:
        raw = parse_zon(data, "fuzz.zon")
    except ZonError:
        return
    check(raw, ())


def one_example(fuzz: Fuzz, rng: random.Random) -> None:
    fuzz.run(check_text, mutate(TEXT, rng, TOKENS))
    for _ in range(PER_EXAMPLE - 1):
        bundles: tuple[str, ...] = ("core",) if rng.random() < 0.1 else ()
        fuzz.run(check, variant(rng) if rng.random() < 0.95 else rand_zon(rng, 3), bundles)


def test_manifest_validator_gives_a_model_or_manifest_error(fuzz: Fuzz) -> None:
    """RFC-0004 §2, §3, §7: any ZON value gives a normalized model or a ManifestError."""

    @fuzz.settings(PER_EXAMPLE)
    @seed(fuzz.seed)
    @given(rng_seed=st.integers(0, 2**64 - 1))
    def run(rng_seed: int) -> None:
        one_example(fuzz, random.Random(rng_seed))

    run()


def test_unmutated_echo_manifest_is_valid() -> None:
    """The seed corpus itself validates (so edits start from a valid document)."""
    model = validate_manifest(clone(BASE), source=str(ECHO_ZON))
    assert model["tool"] == "venom-echo"
