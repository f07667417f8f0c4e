"""Fuzz the ZON reader ``parse_zon`` with grammar-built documents, their mutations and raw bytes.

A generator writes a valid document together with the Python value it must parse to (numbers in
every base, escapes, chars, enums, multiline strings, comments, nesting), so unmutated documents
check the result too. Mutated documents and raw bytes may only raise ``ZonError``; every input
is bounded in CPU time, and a sample is bounded in memory with tracemalloc.
"""

from __future__ import annotations

import math
import random
import tracemalloc
from typing import Any

from fuzz_kit import Fuzz, mutate, rand_text
from hypothesis import given, seed
from hypothesis import strategies as st

from venom_schema.zon import MAX_DEPTH, ZON_EMPTY, ZonChar, ZonEmpty, ZonEnum, ZonError, parse_zon

TARGET = "zon"
PER_EXAMPLE = 40
TOKENS = (
    b".{", b"}", b".", b",", b"=", b"//", b"\\\\", b'"', b"'", b"@\"", b"\\u{", b"\\x", b"0x",
    b"0b", b"0o", b"_", b"e", b"p", b"-", b"inf", b"nan", b"null", b"\n", b"\r", b"\t", b"\x00",
    b"\xff", b"\xc3", b"\xf0\x9f", b".{" * 300, b"9" * 40, b"///", b"//!", b"fn", b".@\"\"",
)  # fmt: skip
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'"}


def _ws(rng: random.Random) -> str:
    return rng.choice(("", " ", "\n", "  ", " // note\n", "\t"))


def _string_body(rng: random.Random, quote: str) -> tuple[str, str]:
    text, value = [], []
    for _ in range(rng.randint(0, 6)):
        pick = rng.random()
        if pick < 0.5:
            ch = chr(rng.randint(32, 126))
            if ch in ("\\", quote):
                continue
            text.append(ch)
            value.append(ch)
        elif pick < 0.65:
            key = rng.choice(list(_SIMPLE_ESCAPES))
            text.append("\\" + key)
            value.append(_SIMPLE_ESCAPES[key])
        elif pick < 0.8:
            code = rng.randint(0, 0x7F)
            text.append(f"\\x{code:02x}")
            value.append(chr(code))
        elif pick < 0.9:
            code = rng.choice((rng.randint(0, 0xD7FF), rng.randint(0xE000, 0x10FFFF)))
            text.append(f"\\u{{{code:x}}}")
            value.append(chr(code))
        else:
            ch = chr(rng.randint(0xA0, 0x2FFF))
            text.append(ch)
            value.append(ch)
    return "".join(text), "".join(value)


def _number(rng: random.Random) -> tuple[str, Any]:
    n = rng.randint(0, 10 ** rng.randint(1, 25))
    sign = rng.choice(("", "-")) if n else ""
    value: Any = -n if sign else n
    pick = rng.randrange(5)
    if pick == 0:
        return f"{sign}0x{n:x}", value
    if pick == 1:
        return f"{sign}0o{n:o}", value
    if pick == 2:
        return f"{sign}0b{n:b}", value
    if pick == 3:
        frac = rng.randint(0, 999)
        exp = rng.randint(-30, 30)
        text = f"{sign}{n % 10**6}.{frac}e{exp}"
        return text, float(text)
    digits = str(n)
    if len(digits) > 3 and rng.random() < 0.5:  # digit separators between digits only
        digits = digits[:1] + "_" + digits[1:]
    return sign + digits, value


def gen_value(rng: random.Random, depth: int) -> tuple[str, Any]:
    """A valid ZON value's text and the value ``parse_zon`` must return for it."""
    pick = rng.randrange(12 if depth > 0 else 9)
    if pick == 0:
        word = rng.choice(("true", "false", "null", "inf", "-inf"))
        return word, {
            "true": True,
            "false": False,
            "null": None,
            "inf": math.inf,
            "-inf": -math.inf,
        }[word]
    if pick in (1, 2):
        return _number(rng)
    if pick in (3, 4):
        text, value = _string_body(rng, '"')
        return f'"{text}"', value
    if pick == 5:
        code = rng.choice((rng.randint(32, 126), rng.randint(0xA0, 0xFFFF)))
        ch = chr(code)
        if ch in ("\\", "'") or 0xD800 <= code <= 0xDFFF:
            return f"'\\u{{{code:x}}}'" if code < 0xD800 else "'a'", ZonChar(
                code if code < 0xD800 else 97
            )
        return f"'{ch}'", ZonChar(code)
    if pick == 6:
        name = rng.choice(("read", "a_b", "x1", "_"))
        if rng.random() < 0.3:
            text, value = _string_body(rng, '"')
            if "\x00" not in value:  # a quoted name may hold anything but NUL
                return f'.@"x{text}"', ZonEnum("x" + value)
        return "." + name, ZonEnum(name)
    if pick == 7:
        lines = [rand_text(rng).replace("\n", "") for _ in range(rng.randint(1, 3))]
        lines = ["".join(c for c in line if c >= " " and c != "\x7f") for line in lines]
        text = "\n".join(rng.choice(("", "  ")) + "\\\\" + line for line in lines) + "\n"
        return text, "\n".join(lines)
    if pick == 8:
        return ".{}", ZON_EMPTY
    count = rng.randint(1, 4)
    if pick in (9, 10):
        names = list(dict.fromkeys(f"f{rng.randint(0, 9)}" for _ in range(count)))
        parts, struct = [], {}
        for name in names:
            text, value = gen_value(rng, depth - 1)
            parts.append(f"{_ws(rng)}.{name} = {text}")
            struct[name] = value
        return ".{" + ",".join(parts) + rng.choice(("", ",")) + _ws(rng) + "}", struct
    items = [gen_value(rng, depth - 1) for _ in range(count)]
    body = ",".join(_ws(rng) + t for t, _ in items)
    return ".{" + body + rng.choice(("", ",")) + _ws(rng) + "}", [v for _, v in items]


def same(got: Any, want: Any) -> bool:
    """Structural equality where NaN equals NaN and types must match exactly."""
    if type(got) is not type(want):
        return False
    if isinstance(want, float):
        return got == want or (math.isnan(got) and math.isnan(want))
    if isinstance(want, dict):
        return list(got) == list(want) and all(same(got[k], want[k]) for k in want)
    if isinstance(want, list):
        return len(got) == len(want) and all(same(g, w) for g, w in zip(got, want, strict=True))
    return bool(got == want)


_LEAVES = (bool, int, float, str, ZonChar, ZonEnum, ZonEmpty, type(None))


def well_typed(value: Any, depth: int = 0) -> None:
    assert depth <= MAX_DEPTH + 1
    if isinstance(value, dict):
        for key, item in value.items():
            assert type(key) is str
            well_typed(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            well_typed(item, depth + 1)
    else:
        assert isinstance(value, _LEAVES), type(value)


def parse_or_error(data: bytes | str) -> Any:
    """The parsed value, or None after a well-formed ``ZonError``; nothing else may escape."""
    try:
        value = parse_zon(data, "fuzz.zon")
    except ZonError as exc:
        error = exc
    else:
        well_typed(value)
        return value
    assert error.filename == "fuzz.zon"
    assert error.line >= 1
    assert error.col >= 1
    assert str(error).startswith(f"fuzz.zon:{error.line}:{error.col}: ")
    return None


def check_valid(text: str, want: Any) -> None:
    got = parse_zon(text, "fuzz.zon")
    assert same(got, want), (text, got, want)


def one_example(fuzz: Fuzz, rng: random.Random, raw: bytes) -> None:
    text, want = gen_value(rng, rng.randint(0, 4))
    text = _ws(rng) + text + _ws(rng)
    fuzz.run(check_valid, text, want)
    fuzz.run(parse_or_error, raw)
    data = text.encode()
    for _ in range(PER_EXAMPLE - 3):
        mutated = mutate(data, rng, TOKENS)
        fuzz.run(parse_or_error, mutated if rng.random() < 0.5 else mutated.decode("latin-1"))
    fuzz.run(parse_or_error, ".{" * rng.randint(MAX_DEPTH - 2, MAX_DEPTH + 2) + "}" * 300)


def test_zon_reader_gives_a_value_or_zon_error(fuzz: Fuzz) -> None:
    """RFC-0004 §2: valid documents parse to their value; anything else is a ZonError."""

    @fuzz.settings(PER_EXAMPLE)
    @seed(fuzz.seed)
    @given(rng_seed=st.integers(0, 2**64 - 1), raw=st.binary(max_size=200))
    def run(rng_seed: int, raw: bytes) -> None:
        one_example(fuzz, random.Random(rng_seed), raw)

    run()


def test_zon_reader_memory_is_bounded_by_input() -> None:
    """Hostile documents up to 64 KiB peak at most 512 bytes per input byte plus 1 MiB.

    Measured: a long token costs 120-400 bytes of peak memory per character (the regex lexer's
    backtracking state), linear in the input; docs/reliability.md records it.
    """
    rng = random.Random(8)
    docs = [
        ".{" * 5000,
        ".{" * MAX_DEPTH + "}" * MAX_DEPTH,
        '"' + "\\x41" * 16000 + '"',
        ".{" + "1," * 30000 + "}",
        "9" * 65536,
        "\\\\" + "a" * 65530,
    ]
    docs += [
        mutate(gen_value(rng, 4)[0].encode(), rng, TOKENS).decode("latin-1") for _ in range(20)
    ]
    for doc in docs:
        tracemalloc.start()
        try:
            parse_or_error(doc)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert peak < 512 * len(doc) + 2**20, (doc[:40], len(doc), peak)
