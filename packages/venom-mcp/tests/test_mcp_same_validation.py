"""RFC-0004 §3: the adapter validates tool arguments exactly as the daemon validates params.

Each numeric literal goes through the adapter's own path (the stdin line parser, then
``Tools.validate``) and through the daemon's (its wire decoder, orjson, then the same
validator): accepted with the same value and JSON type, or refused with the same code. An
integer literal beyond 64 bits is the one documented difference: the adapter keeps it exact
and refuses it with ``invalid_params.range``, where the wire decoder rounds it to a float.
"""

from __future__ import annotations

import json
from typing import Any

import mcp.types as mt
import orjson
import pytest

from venom_mcp._lines import parse_line
from venom_mcp.adapter import Tools
from venom_proto import VenomError
from venom_schema.model import Descriptor, Field, Verb
from venom_schema.runtime import compile_verb

SAFE = 2**53 - 1
NUMBER: Descriptor = {"kind": "number"}
INTEGER: Descriptor = {"kind": "integer"}


def _field(name: str, type_: Descriptor) -> Field:
    return {"name": name, "summary": name, "type": type_, "required": False}


VERB: Verb = {
    "name": "calc",
    "summary": "Numbers",
    "params": [
        _field("x", NUMBER),
        _field("n", INTEGER),
        _field("xs", {"kind": "array", "items": NUMBER}),
        _field("o", {"kind": "object", "fields": [_field("x", NUMBER), _field("n", INTEGER)]}),
    ],
    "result": {"kind": "null"},
    "errors": [],
    "grant": "read",
    "streams": False,
    "exit": {"kind": "standard"},
    "examples": [],
}
TOOLS = Tools({"format": 1, "tool": "venom-echo", "summary": "Numbers", "verbs": [VERB]})
VALIDATE = compile_verb(VERB).params

LITERALS = [
    "0", "-0", "-0.0", "1", "-1", str(SAFE), str(-SAFE), str(SAFE + 1), str(-SAFE - 1),
    str(2**63), str(2**64 - 1), "1.5", "-1.5e3", "1E5", "1e-5", "1e308", "1e-400",
    "9007199254740993.0", "9007199254740993e0", "1e400", "0." + "0" * 3000 + "1",
]  # fmt: skip
BEYOND_64 = [str(2**64), str(-(2**63) - 1), "1" + "0" * 30, "9" * 400]


def _verdict(check: Any, params_json: bytes, decode: Any) -> tuple[str, Any]:
    try:
        params = decode(params_json)
    except Exception:
        return ("error", "parse")
    try:
        return ("ok", check(params))
    except VenomError as exc:
        return ("error", exc.code)


def _adapter(params_json: bytes) -> tuple[str, Any]:
    line = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"calc","arguments":'
    item = parse_line(line + params_json + b"}}")
    if isinstance(item, Exception):
        return ("error", "parse")
    request = item.message
    assert isinstance(request, mt.JSONRPCRequest)
    assert request.params is not None
    try:
        return ("ok", TOOLS.validate("calc", request.params["arguments"]))
    except VenomError as exc:
        return ("error", exc.code)


def _daemon(params_json: bytes) -> tuple[str, Any]:
    return _verdict(VALIDATE, params_json, orjson.loads)


def _cases() -> list[bytes]:
    cases = []
    for text in LITERALS:
        cases += [b'{"x":%s}' % text.encode(), b'{"n":%s}' % text.encode()]
        cases += [b'{"xs":[%s]}' % text.encode(), b'{"o":{"x":%s,"n":%s}}' % ((text.encode(),) * 2)]
    return cases


@pytest.mark.parametrize("params_json", _cases())
def test_numbers_validate_as_the_daemon(params_json: bytes) -> None:
    adapter, daemon = _adapter(params_json), _daemon(params_json)
    if "parse" in (adapter[1], daemon[1]):
        # A literal no JSON parser reads (1e400) cannot reach either validator as a number.
        assert adapter[0] == daemon[0] == "error"
        return
    assert adapter[0] == daemon[0], (adapter, daemon)
    if adapter[0] == "ok":
        assert orjson.dumps(adapter[1]) == orjson.dumps(daemon[1])
    else:
        assert adapter[1] == daemon[1]


@pytest.mark.parametrize("text", BEYOND_64)
@pytest.mark.parametrize("member", ["x", "n", "xs"])
def test_integers_beyond_64_bits_are_refused(text: str, member: str) -> None:
    value = f"[{text}]" if member == "xs" else text
    verdict = _adapter(json.dumps({member: 0}).replace("0", value).encode())
    assert verdict == ("error", "invalid_params.range")
