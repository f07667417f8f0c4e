"""'Did you mean': the edit distance and the choice of suggestions (cli/_suggest)."""

from __future__ import annotations

import pytest

from venom_gen.cli._suggest import did_you_mean, distance, suggestions


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("", "", 0),
        ("echo", "echo", 0),
        ("ech", "echo", 1),
        ("ehco", "echo", 1),  # one swap, not two substitutions
        ("get", "set", 1),
        ("", "abc", 3),
        ("kitten", "sitting", 3),
    ],
)
def test_distance(a: str, b: str, expected: int) -> None:
    assert distance(a, b) == expected
    assert distance(b, a) == expected


def test_only_the_nearest_are_suggested() -> None:
    assert suggestions("gett", ["get", "set"]) == ["get"]
    assert suggestions("xet", ["get", "set"]) == ["get", "set"]
    assert suggestions("zzzz", ["get", "set"]) == []
    assert suggestions("get", ["get"]) == []


def test_short_words_need_to_be_close() -> None:
    """Two letters off a three-letter word is another word, not a typo."""
    assert suggestions("ab", ["xy"]) == []
    assert suggestions("ab", ["abc"]) == ["abc"]


def test_a_truncated_word_counts_as_one_edit() -> None:
    assert suggestions("conf", ["config", "cancel"]) == ["config"]


def test_message_shapes() -> None:
    assert did_you_mean("ech", ["echo"], prefix="") == "; did you mean 'echo'?"
    assert did_you_mean("xet", ["get", "set"], prefix="--") == "; did you mean '--get' or '--set'?"
    assert did_you_mean("q", ["echo"], prefix="") == ""
