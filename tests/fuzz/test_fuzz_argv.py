"""Fuzz the generated CLI's argv parser and the runtime param validators on venom-echo's model.

argv lists are drawn from the real command tokens, flag names and values of every verb (plus
hostile tokens); ``parse_argv`` may only return an ``Invocation`` or raise ``ArgvError`` with an
``invalid_params.*`` code, and a parsed verb call's params go through the compiled validator,
which may only return params or raise ``VenomError`` ``invalid_params.*``. The validators are also
fuzzed directly with random JSON params.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from fuzz_kit import Fuzz, rand_int, rand_json, rand_text
from hypothesis import given, seed
from hypothesis import strategies as st

from venom_gen.cli import ArgvError, Invocation, build_tree, parse_argv
from venom_proto import VenomError
from venom_schema.model import Model, Verb
from venom_schema.names import flag_name as flag_for
from venom_schema.runtime import CompiledVerb, compile_verb
from venom_schema.surfaces import verbs_on

TARGET = "argv"
PER_EXAMPLE = 40
MODEL_PATH = (
    Path(__file__).parents[2]
    / "packages"
    / "venom-echo"
    / "src"
    / "venom_echo"
    / "verbs.model.json"
)
MODEL: Model = json.loads(MODEL_PATH.read_text())
TREE = build_tree(MODEL)
VERBS = verbs_on(MODEL, "cli")
COMPILED: dict[str, CompiledVerb] = {v["name"]: compile_verb(v) for v in MODEL["verbs"]}
COMMANDS = sorted({tok for v in VERBS for tok in v["name"].replace("_", "-").split(".")})
FLAGS = sorted({flag_for(p["name"]) for v in MODEL["verbs"] for p in v["params"]})
SPECIAL = ("--", "-", "--json", "--help", "--socket", "--socket=", "-x", "--=", "---", "--json=1",
           "--help=x", "echo.repeat", "config.set", "--Text", "--text_",
           "--interval_ms")  # fmt: skip
VALUES = ("true", "false", "True", "1", "0", "-1", "1.5", "1e3", "nan", "inf", "-inf", "0x10",
          "[1,2]", "[]", "{}", '{"name":"a"}', '{"level":9}', "null", "", " ", "plain", "upper",
          "fast", "9" * 30, "1_000", "\x00", "é", "--", "-5", "[1,", "[true]")  # fmt: skip
INVALID_PARAMS = "invalid_params."


def rand_value(rng: random.Random) -> str:
    return rng.choice(VALUES) if rng.random() < 0.7 else rand_text(rng)


def rand_argv(rng: random.Random) -> list[str]:
    """A plausible command line: command tokens, then options in every spelling, some noise."""
    verb = rng.choice(VERBS)
    argv: list[str] = []
    if rng.random() < 0.2:
        argv.append(verb["name"])
    else:
        argv += verb["name"].replace("_", "-").split(".")
    params = [flag_for(p["name"]) for p in verb["params"]]
    for _ in range(rng.randint(0, 4)):
        flag = rng.choice(params) if params and rng.random() < 0.7 else rng.choice(FLAGS)
        pick = rng.random()
        if pick < 0.45:
            argv.append(f"{flag}={rand_value(rng)}")
        elif pick < 0.85:
            argv += [flag, rand_value(rng)]
        else:
            argv.append(flag)
    for _ in range(rng.randint(0, 2) if rng.random() < 0.4 else 0):
        noise = rng.choice((rng.choice(SPECIAL), rng.choice(COMMANDS), rand_value(rng)))
        argv.insert(rng.randint(0, len(argv)), noise)
    return argv


def usage_error(exc: VenomError, *keys: str) -> None:
    """An allowed failure: an ``invalid_params.*`` code with a data object holding ``keys``."""
    assert exc.code.startswith(INVALID_PARAMS), exc.code
    assert isinstance(exc.data, dict)
    assert all(key in exc.data for key in keys), exc.data


def check_argv(argv: list[str]) -> None:
    try:
        inv = parse_argv(argv, TREE)
    except ArgvError as exc:
        usage_error(exc)
        return
    assert isinstance(inv, Invocation)
    if inv.help or inv.command.verb is None:
        return
    check_params(COMPILED[str(inv.command.verb["name"])], inv.params)


def check_params(verb: CompiledVerb, params: Any) -> None:
    """The validator returns a new dict with defaults, or an invalid_params.* VenomError."""
    before = json.dumps(params, sort_keys=True, default=repr)
    try:
        out = verb.params(params)
    except VenomError as exc:
        usage_error(exc, "param")
        return
    finally:
        assert json.dumps(params, sort_keys=True, default=repr) == before, "input mutated"
    assert type(out) is dict
    for field in verb.verb["params"]:
        name = field["name"]
        assert name in out or not ("default" in field or field["required"]), name


def rand_params(rng: random.Random, verb: Verb) -> Any:
    """Params for ``verb``: real names with random or edge values, extra names, or no object."""
    if rng.random() < 0.05:
        return rand_json(rng)
    out: dict[str, Any] = {}
    for field in verb["params"]:
        if rng.random() < 0.7:
            kind = field["type"]["kind"]
            pick = rng.random()
            if pick < 0.5 and kind == "integer":
                out[field["name"]] = rand_int(rng)
            elif pick < 0.5 and kind == "string" and "choices" in field["type"]:
                out[field["name"]] = rng.choice([*field["type"]["choices"], "PLAIN"])
            else:
                out[field["name"]] = rand_json(rng)
    if rng.random() < 0.1:
        out[rand_text(rng)] = rand_json(rng)
    return out


def one_example(fuzz: Fuzz, rng: random.Random, params_fuzz: Fuzz) -> None:
    for _ in range(PER_EXAMPLE):
        fuzz.run(check_argv, rand_argv(rng))
    # The validators' own share of the budget rides on the argv examples.
    for _ in range(-(-params_fuzz.examples(1) // fuzz.examples(PER_EXAMPLE))):
        verb = rng.choice(MODEL["verbs"])
        params_fuzz.run(check_params, COMPILED[verb["name"]], rand_params(rng, verb))


def test_argv_parser_and_param_validators_only_raise_usage_errors(fuzz: Fuzz) -> None:
    """RFC-0004 §4, RFC-0002 §7.2: misuse is an invalid_params.* error (exit 2), not a crash."""
    params_fuzz = Fuzz("params")

    @fuzz.settings(PER_EXAMPLE)
    @seed(fuzz.seed)
    @given(rng_seed=st.integers(0, 2**64 - 1))
    def run(rng_seed: int) -> None:
        one_example(fuzz, random.Random(rng_seed), params_fuzz)

    run()


def test_a_real_command_line_parses() -> None:
    """The generator's plainest output is accepted, so the fuzz starts from valid ground."""
    inv = parse_argv(["echo", "repeat", "--text", "hi", "--count=2"], TREE)
    assert inv.params == {"text": "hi", "count": 2}
    assert COMPILED["echo.repeat"].params(inv.params) == {
        "text": "hi",
        "count": 2,
        "interval_ms": 0,
    }
