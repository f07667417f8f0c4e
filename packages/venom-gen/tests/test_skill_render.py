"""SKILL.md generation (RFC-0004 §6) and its YAML front matter."""

from __future__ import annotations

import copy
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from venom_gen.render._escape import sh_quote, yaml_double_quoted
from venom_gen.render.skill import render_skill
from venom_schema.model import Model

FIXTURES = Path(__file__).parent / "fixtures"


_ESCAPES = {"\\": "\\", '"': '"', "n": "\n", "t": "\t", "r": "\r", "0": "\0", "/": "/"}
_HEX = {"x": 2, "u": 4, "U": 8}


def _parse_double_quoted(raw: str) -> str:
    """A strict reader for YAML 1.2 double-quoted scalars on one line (no deps)."""
    assert len(raw) >= 2, raw
    assert raw[0] == raw[-1] == '"', raw
    body, out, i = raw[1:-1], [], 0
    while i < len(body):
        ch = body[i]
        assert ch != '"', f"unescaped quote in {raw!r}"
        if ch != "\\":
            assert ord(ch) >= 0x20, f"raw {ch!r}"
            assert ch not in "\u2028\u2029\ufeff", f"raw {ch!r}"
            out.append(ch)
            i += 1
            continue
        esc = body[i + 1]
        if esc in _HEX:
            width = _HEX[esc]
            out.append(chr(int(body[i + 2 : i + 2 + width], 16)))
            i += 2 + width
        else:
            out.append(_ESCAPES[esc])
            i += 2
    return "".join(out)


def _front_matter(text: str) -> dict[str, str]:
    match = re.match(r"---\n((?:.*\n)*?)---\n", text)
    assert match, "no front matter"
    result: dict[str, str] = {}
    for line in match.group(1).splitlines():
        key, _, value = line.partition(": ")
        result[key] = _parse_double_quoted(value) if value.startswith('"') else value
    return result


def test_front_matter(echo_model: Model) -> None:
    """RFC-0004 §6: `name: <tool>` and a quoted description from the root summary."""
    assert render_skill(echo_model).startswith(
        '---\nname: venom-echo\ndescription: "A toy daemon for protocol conformance"\n---\n'
    )


def test_hostile_description_round_trips(hostile_model: Model) -> None:
    """RFC-0004 §6: the description is safely quoted YAML."""
    front = _front_matter(render_skill(hostile_model))
    assert front == {"name": "hostile-tool", "description": hostile_model["summary"]}


@pytest.mark.parametrize(
    "text", ["", "a\nb", "tab\there", "\x7f\x85", "\ufeff\u2028", '"\\', "😀", "\x00", "x: y # z"]
)
def test_yaml_scalar_round_trip(text: str) -> None:
    """Every string round-trips through the double-quoted YAML scalar."""
    assert _parse_double_quoted(yaml_double_quoted(text)) == text


def test_body_sections(echo_model: Model) -> None:
    """RFC-0004 §6: conventions, read-only default, verb/grant table, per-verb details,
    streaming limits, examples."""
    skill = render_skill(echo_model)
    for needle in (
        "## Invocation",
        "`--json`",
        "`$VENOM_ECHO_SOCKET`",
        "| 4 | denied |",
        "## Permissions",
        "only the `none` and `read` grants",
        "| `venom-echo skill install` | `files` | Install SKILL.md for an agent |",
        "| `venom-echo events` | `read` | Subscribe to daemon events (streams) |",
        "at most 1024 items and 1 MiB",
        "unsupported.stream_limit",
        '- `--style` (string (one of: plain, upper), optional, default "plain"): Output casing',
        "- Error `conflict.exists` (exit 5): The file exists and force is false",
        "- Result: object with `text` string",
        '$ venom-echo echo --text hi --style upper --json\n{"text":"HI"}',
        '$ venom-echo events --limit 1\n# final result: {"count":1}',
    ):
        assert needle in skill, needle
    assert "venom-echo hello" not in skill
    assert "venom-echo cancel" not in skill
    assert skill.endswith(" is false\n")


def test_order_and_determinism(echo_model: Model) -> None:
    """RFC-0004 §6: wire-name order, deterministic bytes."""
    model = copy.deepcopy(echo_model)
    model["verbs"].reverse()
    skill = render_skill(model)
    assert skill == render_skill(echo_model)
    headings = re.findall(r"^### `venom-echo (.*)`$", skill, flags=re.M)
    assert headings == sorted(headings, key=lambda h: h.replace(" ", "."))
    assert skill.encode("utf-8").decode("utf-8") == skill


def test_example_commands_are_posix_quoted(hostile_model: Model) -> None:
    """RFC-0004 §6: example params become flags with POSIX shell quoting (checked by sh)."""
    if shutil.which("sh") is None:
        pytest.skip("sh is not installed")
    skill = render_skill(hostile_model)
    block = skill.split("### `hostile-tool pane set-title`", 1)[1].split("```console\n", 1)[1]
    command = block.split("\n{", 1)[0].removeprefix("$ ")
    proc = subprocess.run(
        ["sh", "-c", "f() { printf '%s\\0' \"$@\"; }; f " + command.split(" ", 3)[3]],
        capture_output=True,
        timeout=10,
        check=True,
    )
    title = hostile_model["verbs"][1]["examples"][0]["params"]["title"]
    assert proc.stdout.decode("utf-8").split("\0")[:-1] == ["--title", title, "--json"]


@pytest.mark.parametrize("word", ["", "plain", "it's", '$(x) `y` \\ "q" *', "a\nb", "-x", "é😀"])
def test_sh_quote_round_trip(word: str) -> None:
    """POSIX single quoting survives a real shell unchanged and unexpanded."""
    if shutil.which("sh") is None:
        pytest.skip("sh is not installed")
    proc = subprocess.run(
        ["sh", "-c", "printf '%s' " + sh_quote(word)], capture_output=True, timeout=10, check=True
    )
    assert proc.stdout.decode("utf-8") == word
