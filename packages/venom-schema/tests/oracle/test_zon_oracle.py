"""The ZON reader against the Zig compiler (std.zig.Ast + std.zig.ZonGen) as the oracle.

Every document is parsed by both; verdicts and values (tagged JSON) must agree, except:
- Zig strings are bytes and Zig does not check that the source is UTF-8, so a document that
  is not UTF-8 (or whose strings or names are not, after escape decoding) is valid Zig but a
  ZonError for us (RFC-0004 §2: strings MUST be valid UTF-8);
- on a hex float without digits (``0x.p1``) ZonGen itself crashes; the oracle reports that
  and we must reject.
Error positions are compared and counted but need not agree: we point at the offending
character inside a bad token, and for non-ZON syntax Zig first parses a whole Zig
expression and reports the error elsewhere.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from venom_schema.zon import ZonError, parse_zon, zon_to_json

# Building zon_dump.zig (a session fixture) takes 5-30 s the first time.
pytestmark = pytest.mark.timeout(300)

CORPUS = Path(__file__).with_name("corpus")
GENERATED_VALID = 1500
GENERATED_MUTANTS = 2000
GENERATED_LITERALS = 1500
SEED = 20261130
_QUOTED_NAMES = ("if", "enum", "a b", "a", "é", "\\x41", "struct", "int")
# fmt: off
_STRING_PIECES = ("a", "Z", " ", "é", "😀", "中", "\\n", "\\t", "\\\\", '\\"', "\\x41",
                  "\\xc3\\xa9", "\\u{e9}", "\\u{1F600}", "'", "//", "\\r", "\\x00", "\\u{0}")
# fmt: on
_MLINE_FIRST = ("", "plain", ' é "q" \\n', "// not a comment")

#: The ``zon_oracle`` fixture (conftest.py): Zig's verdict for each document.
Oracle = Callable[[Sequence[bytes]], list[dict[str, Any]]]


def _same(ours: Any, theirs: Any) -> bool:
    """Equality that tells 1 from 1.0 from True, -0.0 from 0.0, and keeps key order."""
    if type(ours) is not type(theirs):
        return False
    if isinstance(ours, float):
        if math.isnan(ours) or math.isnan(theirs):
            return math.isnan(ours) and math.isnan(theirs)
        return ours == theirs and math.copysign(1, ours) == math.copysign(1, theirs)
    if isinstance(ours, list):
        return len(ours) == len(theirs) and all(map(_same, ours, theirs))
    if isinstance(ours, dict):
        return list(ours) == list(theirs) and all(_same(ours[k], theirs[k]) for k in ours)
    return bool(ours == theirs)


def _has_bytes(value: Any) -> bool:
    if isinstance(value, dict):
        return "invalid_utf8" in value or any(
            _has_bytes(k) or _has_bytes(v) for k, v in value.items()
        )
    if isinstance(value, list):
        return any(map(_has_bytes, value))
    return False


def _is_utf8(document: bytes) -> bool:
    try:
        document.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _zig_position(document: bytes, offset: int) -> tuple[int, int]:
    text = document[:offset].decode("utf-8", "replace").removeprefix("\ufeff")
    line_start = text.rfind("\n") + 1
    return text.count("\n") + 1, len(text) - line_start + 1


def _compare(documents: list[bytes], oracle: Oracle) -> Counter[str]:
    """Compare every document; return tallies, raising on the first disagreement."""
    tally: Counter[str] = Counter()
    for document, verdict in zip(documents, oracle(documents), strict=True):
        try:
            ours: Any = zon_to_json(parse_zon(document, "doc.zon"))
            error: ZonError | None = None
        except ZonError as exc:
            error = exc
        shown = document.decode("utf-8", "backslashreplace")
        if "zig_bug" in verdict:
            assert error is not None, (
                f"ZonGen would crash ({verdict['zig_bug']}), we accept:\n{shown}"
            )
            tally["Zig crashes (ZonGen bug), we reject"] += 1
        elif "ok" in verdict and (_has_bytes(verdict["ok"]) or not _is_utf8(document)):
            assert error is not None, shown
            assert "UTF-8" in error.message, shown
            tally["non-UTF-8 strings (rejected by design)"] += 1
        elif "ok" in verdict:
            assert error is None, f"Zig accepts, we reject with {error}:\n{shown}"
            assert _same(ours, verdict["ok"]), f"{ours!r} != {verdict['ok']!r}:\n{shown}"
            tally["valid, same value"] += 1
        else:
            assert error is not None, f"Zig rejects ({verdict['err']}), we accept:\n{shown}"
            tally["invalid, both reject"] += 1
            places = {_zig_position(document, at) for at in verdict["at"]}
            tally["  same error position"] += (error.line, error.col) in places
    return tally


def test_corpus_verdicts_and_values(zon_oracle: Oracle) -> None:
    """RFC-0004 §2: the hand-written corpus; file names say what Zig must answer."""
    files = sorted(CORPUS.glob("*.zon"))
    assert len(files) >= 80
    documents = [path.read_bytes() for path in files]
    for path, document, verdict in zip(files, documents, zon_oracle(documents), strict=True):
        zig_accepts = "ok" in verdict and not _has_bytes(verdict["ok"]) and _is_utf8(document)
        assert zig_accepts == path.name.startswith("ok_"), (path.name, verdict)
    print("corpus:", dict(_compare(documents, zon_oracle)))


def test_generated_documents(zon_oracle: Oracle) -> None:
    """RFC-0004 §2: thousands of seeded random documents and one- or two-edit mutants of them."""
    rng = random.Random(SEED)
    valid = [_Generator(rng).document() for _ in range(GENERATED_VALID)]
    mutants = [_mutate(rng, rng.choice(valid)) for _ in range(GENERATED_MUTANTS)]
    tally = _compare([doc.encode() for doc in [*valid, *mutants]], zon_oracle)
    print("generated:", dict(tally))
    assert tally["valid, same value"] >= GENERATED_VALID


def test_generated_literals(zon_oracle: Oracle) -> None:
    """RFC-0004 §2: random number, string and char tokens probe digits, separators, escapes."""
    rng = random.Random(SEED + 1)
    literals = [_literal(rng) for _ in range(GENERATED_LITERALS)]
    tally = _compare([text.encode() for text in literals], zon_oracle)
    print("literals:", dict(tally))
    assert tally["valid, same value"] > GENERATED_LITERALS // 10


def _literal(rng: random.Random) -> str:
    sign = rng.choice(("", "", "-", "- "))
    if rng.random() < 0.5:
        head = rng.choice(("0", "1", "9", "0x", "0o", "0b", "0X", "00"))
        tail = "".join(
            rng.choice("0123456789abcdefABCDEFxopP_.+-e") for _ in range(rng.randrange(8))
        )
        return sign + head + tail
    quote = rng.choice(('"', "'", '.@"'))
    body = "".join(rng.choice(_ESCAPE_PIECES) for _ in range(rng.randrange(4)))
    return quote + body + quote[-1]


_ESCAPE_PIECES = ("a", "é", "\\", "\\x", "\\u{", "}", "0", "F", "d8", "10ffff", "110000", "n", "q",
                  "'", '"', "c3", "a9", "\\xff", "\\x00")  # fmt: skip
_MUTATION_CHARS = [*",.{}=-0_xe\"'\\/@ \n\t\r\x00é+(19pPfz;", "//", "\\\\", ".{", "-0"]


def _mutate(rng: random.Random, doc: str) -> str:
    for _ in range(rng.choice((1, 1, 2))):
        at = rng.randrange(len(doc) + 1)
        op = rng.randrange(4)
        if op == 0:
            doc = doc[:at] + doc[at + 1 :]
        elif op == 1:
            doc = doc[:at] + rng.choice(_MUTATION_CHARS) + doc[at:]
        elif op == 2:
            doc = doc[:at] + doc[at : at + rng.randrange(1, 6)] + doc[at:]
        else:
            doc = doc[:at] + rng.choice(_MUTATION_CHARS) + doc[at + 1 :]
    return doc


class _Generator:
    """Random valid ZON text covering every literal form, layout and comment placement."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def document(self) -> str:
        bom = "\ufeff" if self.rng.random() < 0.02 else ""
        return bom + self._space() + self._value(0) + self._space()

    def _space(self) -> str:
        return self.rng.choice(("", "", " ", "\n", "  ", "\r\n", "\t", " // note\n", "//ü\n\n"))

    def _value(self, depth: int) -> str:
        scalars = (self._int, self._float, self._char, self._string, self._multiline, self._word)
        kind = self.rng.randrange(9 if depth < 4 else 6)
        if kind < 6:
            return scalars[kind]()
        if kind == 6:
            return self._struct(depth)
        if kind == 7:
            return self._tuple(depth)
        return self.rng.choice((".{}", ". { }", ".{ // empty\n}"))

    def _int(self) -> str:
        r = self.rng
        n = r.choice((0, 1, 7, 255, 2**31, 2**53 - 1, 2**53, 2**64, 2**70 + 3, r.randrange(10**6)))
        spelled = r.choice((f"{n}", f"0x{n:x}", f"0x{n:X}", f"0o{n:o}", f"0b{n:b}"))
        if r.random() < 0.2 and len(spelled) > 3:
            cut = r.randrange(3, len(spelled))
            spelled = spelled[:cut] + "_" + spelled[cut:]
        return ("-" if n and r.random() < 0.3 else "") + spelled

    def _float(self) -> str:
        r = self.rng
        return r.choice(
            (
                repr(r.uniform(-1e6, 1e6)),
                f"{r.random()}e{r.randrange(-330, 330)}",
                f"{r.randrange(100)}.{r.randrange(1000)}e{r.choice('+-')}{r.randrange(40)}",
                f"0x{r.randrange(1, 256):x}.{r.randrange(4096):x}p{r.randrange(-60, 60)}",
                "inf",
                "-inf",
                "nan",
                "-0.0",
                "1e400",
                "1_000.000_1",
            )
        )

    def _char(self) -> str:
        return self.rng.choice(("'a'", "'\\n'", "'\\x41'", "'\\u{1F600}'", "'é'", "'\\''", "'\"'"))

    def _text(self) -> str:
        return "".join(self.rng.choice(_STRING_PIECES) for _ in range(self.rng.randrange(6)))

    def _string(self) -> str:
        return f'"{self._text()}"'

    def _multiline(self) -> str:
        lines = ["\\\\" + self.rng.choice(_MLINE_FIRST)]
        for _ in range(self.rng.randrange(3)):
            lines.append(self.rng.choice(("", "    ", "// between\n")) + "\\\\" + "line")
        return "\n".join(lines) + "\n"

    def _name(self) -> str:
        r = self.rng
        if r.random() < 0.8:
            return r.choice(("a", "b", "name", "_", "x1", "true", "null", "u8", "kind", "grant"))
        return '@"' + r.choice(_QUOTED_NAMES) + '"'

    def _word(self) -> str:
        r = self.rng
        return r.choice(("true", "false", "null", "." + self._name(), ". " + self._name()))

    def _struct(self, depth: int) -> str:
        fields = [f".{self._name()} ={self._space()}{self._value(depth + 1)}" for _ in range(3)]
        fields = fields[: self.rng.randrange(1, 4)]
        return self._braces(fields)

    def _tuple(self, depth: int) -> str:
        return self._braces([self._value(depth + 1) for _ in range(self.rng.randrange(1, 4))])

    def _braces(self, items: list[str]) -> str:
        separator = "," + self._space()
        trailing = self.rng.choice(("", ",", ", // end\n"))
        return ".{" + self._space() + separator.join(items) + trailing + self._space() + "}"
