"""Robustness: the reader raises nothing but ZonError, on any text or bytes, quickly."""

from __future__ import annotations

import json
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from venom_schema.zon import ZonError, parse_zon, zon_to_json

# Fragments that steer random text towards the interesting corners of the grammar.
_PIECES = st.sampled_from(
    [".{", "}", ".", ",", "=", "-", " ", "\n", "\r", "\t", "//", "///", "\\\\", '"', "'", "\\",
     "@", '@"', "0", "0x", "1_0", "1e", "e+", "p-", ".a", "inf", "nan", "true", "null", "if",
     "\\x", "\\u{", "ff", "\x00", "é", "😀", "\ufeff", "\ud800", "_"]
)  # fmt: skip
_ZONISH = st.lists(_PIECES | st.text(max_size=3), max_size=40).map("".join)
_SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _parse_or_error(source: str | bytes) -> None:
    error: ZonError | None = None
    try:
        value = parse_zon(source)
    except ZonError as exc:
        error = exc
    if error is None:
        json.dumps(zon_to_json(value), allow_nan=False)
        return
    assert error.line >= 1
    assert error.col >= 1
    assert str(error).startswith(f"<input>:{error.line}:{error.col}: ")


@_SETTINGS
@given(st.text())
def test_random_text_never_crashes(source: str) -> None:
    _parse_or_error(source)


@_SETTINGS
@given(_ZONISH)
def test_zon_like_text_never_crashes(source: str) -> None:
    _parse_or_error(source)


@_SETTINGS
@given(st.binary())
def test_random_bytes_never_crash(source: bytes) -> None:
    _parse_or_error(source)


@_SETTINGS
@given(_ZONISH.map(lambda s: s.encode("utf-8", "surrogatepass")))
def test_zon_like_bytes_never_crash(source: bytes) -> None:
    _parse_or_error(source)


def test_pathological_inputs_are_errors() -> None:
    for source in ("-" * 100_000, ".{" * 100_000, "[" * 100_000, '"' + "\\" * 99_999):
        try:
            parse_zon(source)
        except ZonError:
            continue
        raise AssertionError("accepted a pathological input")


def _manifest(verbs: int) -> str:
    verb = """    .{
        .name = "verb%d",
        .summary = "Does thing number %d",
        .params = .{
            .{ .name = "text", .summary = "Text", .type = .{ .kind = .string }, .required = true },
            .{
                .name = "style",
                .summary = "Casing",
                .type = .{ .kind = .string, .choices = .{ "plain", "upper" } },
                .default = "plain",
            },
        },
        .result = .{ .kind = .object, .fields = .{} },
        .errors = .{},
        .grant = .read, // metadata only
        .streams = false,
        .examples = .{ .{ .params = .{ .text = "hi" }, .result = .{ .n = 0x10 } } },
    },
"""
    body = "".join(verb % (i, i) for i in range(verbs))
    return f'.{{\n    .format = 1,\n    .tool = "t",\n    .verbs = .{{\n{body}    }},\n}}\n'


def test_500_line_manifest_parses_in_a_few_milliseconds() -> None:
    source = _manifest(28)
    assert source.count("\n") >= 500
    parse_zon(source)  # warm up regex caches
    best = min(_timed(source) for _ in range(5))
    assert best < 0.05, f"{best * 1000:.1f} ms"


def _timed(source: str) -> float:
    start = time.perf_counter()
    value = parse_zon(source)
    elapsed = time.perf_counter() - start
    assert isinstance(value, dict)
    verbs = value["verbs"]
    assert isinstance(verbs, list)
    assert len(verbs) == 28
    return elapsed
