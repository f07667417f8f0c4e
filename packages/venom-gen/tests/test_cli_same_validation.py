"""RFC-0004 §3: input validation is identical at CLI, MCP and daemon boundaries.

For each numeric spelling the CLI accepts, the params it sends must be exactly the value the
daemon would decode from the same JSON text (orjson, its wire decoder), and the CLI's verdict
(accepted, or the error code) must be the daemon's verdict. The one class where they part is
an integer literal beyond 64 bits in a ``number`` param, which the wire decoder turns into a
rounded float (an RFC-0002 §4.1 violation reported against that decoder): the CLI refuses it
with ``invalid_params.range``, as the MCP adapter does.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_cli_kit import FakeDaemon, Script, _field, _verb

from venom_gen.cli import main
from venom_proto import VenomError
from venom_schema.runtime import compile_verb

SAFE = 2**53 - 1
NUMBER, INTEGER = {"kind": "number"}, {"kind": "integer"}
VERB = _verb(
    "calc",
    params=[
        _field("x", NUMBER),
        _field("n", INTEGER),
        _field("xs", {"kind": "array", "items": NUMBER}),
        _field("ns", {"kind": "array", "items": INTEGER}),
        _field("o", {"kind": "object", "fields": [_field("x", NUMBER), _field("n", INTEGER)]}),
    ],
)
MODEL = {"format": 1, "tool": "venom-echo", "summary": "Numbers", "verbs": [VERB]}
VALIDATE = compile_verb(VERB).params


def _daemon_verdict(params_json: bytes) -> tuple[str, Any]:
    """What the daemon makes of a request whose params are ``params_json``: the decoded
    params when they validate, else the error code."""
    try:
        params = orjson.loads(params_json)
    except orjson.JSONDecodeError:
        return ("error", "protocol.parse")
    try:
        VALIDATE(params)
    except VenomError as exc:
        return ("error", exc.code)
    return ("ok", params)


def _cli_verdict(tmp_path: Path, flag: str, text: str) -> tuple[str, Any]:
    """What the CLI makes of `--flag=text`: the params it sent, else the error code."""
    model = tmp_path / "model.json"
    if not model.exists():
        model.write_text(json.dumps(MODEL), encoding="utf-8")
    daemon = FakeDaemon(lambda verb, params: Script(result={}))
    out = io.BytesIO()
    code = main(
        model,
        argv=["calc", f"--{flag}={text}", "--json"],
        connect=daemon,
        environ={"VENOM_ECHO_SOCKET": str(tmp_path / "x.sock")},
        stdout=out,
        stderr=io.StringIO(),
    )
    if code == 0:
        (sent,) = daemon.requests
        return ("ok", sent[1])
    return ("error", json.loads(out.getvalue())["error"]["code"])


def _same(cli: tuple[str, Any], daemon: tuple[str, Any]) -> None:
    if daemon == ("error", "protocol.parse"):
        # No JSON parser reads it, so the daemon can never receive it; the CLI must refuse it.
        assert cli[0] == "error", (cli, daemon)
        return
    assert cli[0] == daemon[0], (cli, daemon)
    if cli[0] == "ok":
        # The same JSON value on the wire, types included (1 and 1.0 are different bytes).
        assert orjson.dumps(cli[1]) == orjson.dumps(daemon[1]), (cli, daemon)
    else:
        assert cli[1] == daemon[1], (cli, daemon)


BEYOND_53 = [str(SAFE + 1), str(SAFE + 2), str(-SAFE - 2), str(2**63), str(2**64 - 1)]
BEYOND_64 = [str(2**64), str(-(2**63) - 1), "1" + "0" * 30, "9" * 400, "9" * 5000]
SPELLINGS = [
    "0", "-0", "-0.0", "0.0", "1", "-1", str(SAFE), str(-SAFE), "1.5", "-1.5e3", "1E5", "1e-5",
    "1e308", "1.7976931348623157e308", "4.9e-324", "1e-400", "9007199254740993.0",
    "9007199254740993e0", "1e400", "-1e400", "0." + "0" * 5000 + "1", "1" + "0" * 400 + ".5",
    *BEYOND_53,
]  # fmt: skip


@pytest.mark.parametrize("text", SPELLINGS)
@pytest.mark.parametrize("flag", ["x", "n"])
def test_top_level_numbers_validate_as_the_daemon(tmp_path: Path, flag: str, text: str) -> None:
    """`--x TEXT` ends as `{"x": TEXT}` would at the daemon: same value, type and error code.

    The integer kind keeps RFC-0004 §4's stricter CLI spelling (decimal digits only), so its
    fraction and exponent forms are a CLI type error the daemon would not raise.
    """
    cli = _cli_verdict(tmp_path, flag, text)
    daemon = _daemon_verdict(b'{"' + flag.encode() + b'":' + text.encode() + b"}")
    if flag == "n" and not text.lstrip("-").isdigit():
        assert cli == ("error", "invalid_params.type")
        return
    _same(cli, daemon)


@pytest.mark.parametrize("text", BEYOND_53 + BEYOND_64)
@pytest.mark.parametrize("flag", ["x", "n"])
def test_integers_beyond_the_safe_range_are_never_rounded(
    tmp_path: Path, flag: str, text: str
) -> None:
    """RFC-0002 §4.1: an integer beyond ±(2^53-1) is `invalid_params.range`, in number params
    too (the reported bug: 9007199254740993 was sent as 9007199254740992.0 and succeeded)."""
    assert _cli_verdict(tmp_path, flag, text) == ("error", "invalid_params.range")


NESTED = [
    *(f"[{t}]" for t in SPELLINGS),
    *(f'{{"x": {t}}}' for t in SPELLINGS),
    *(f'{{"n": {t}}}' for t in SPELLINGS),
    "[1, [2]]",
    '{"x": [1]}',
    '{"x": 1, "x": 2}',
    '{"x": 1, "z": 2}',
    "[" * 2000 + "]" * 2000,
    '{"x": NaN}',
    "[Infinity]",
    '["\\ud800"]',
]


@pytest.mark.parametrize("text", NESTED)
@pytest.mark.parametrize("flag", ["xs", "ns", "o"])
def test_nested_json_values_validate_as_the_daemon(tmp_path: Path, flag: str, text: str) -> None:
    """Array and object flags: one JSON document, decoded and validated as the daemon would."""
    cli = _cli_verdict(tmp_path, flag, text)
    daemon = _daemon_verdict(b'{"' + flag.encode() + b'":' + text.encode() + b"}")
    _same(cli, daemon)


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.integers(min_value=-(2**70), max_value=2**70).map(str),
        st.floats(allow_nan=False, allow_infinity=False).map(repr),
        st.from_regex(
            r"-?(0|[1-9][0-9]{0,30})(\.[0-9]{1,20})?([eE][+-]?[0-9]{1,4})?", fullmatch=True
        ),
    )
)
def test_any_json_number_validates_as_the_daemon(text: str) -> None:
    """Hypothesis over JSON number literals in a `number` param (and inside an array)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        for flag, body in (("x", text), ("xs", f"[{text}]")):
            cli = _cli_verdict(Path(tmp), flag, body)
            daemon = _daemon_verdict(b'{"' + flag.encode() + b'":' + body.encode() + b"}")
            whole = text.lstrip("-").isdigit()
            if flag == "x" and whole and not -(2**63) <= int(text) <= 2**64 - 1:
                # The wire decoder rounds such a literal to a float (see the module docstring).
                assert cli == ("error", "invalid_params.range")
                continue
            _same(cli, daemon)
