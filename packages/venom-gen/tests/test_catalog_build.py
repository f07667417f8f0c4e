"""MCP catalog generation (RFC-0004 §5)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from venom_gen.render._views import GenerationError
from venom_gen.render.catalog import build_catalog
from venom_proto.conventions import mcp_decode
from venom_schema.model import Model

FIXTURES = Path(__file__).parent / "fixtures"


RFC_ECHO_ENTRY = json.loads("""
{
  "name": "echo",
  "description": "Return the supplied text",
  "inputSchema": {
    "type": "object",
    "properties": {
      "text": {"type":"string","description":"Text to return"},
      "style": {"type":"string","enum":["plain","upper"],"description":"Output casing",
                "default":"plain"}
    },
    "required": ["text"],
    "additionalProperties": false
  },
  "outputSchema": {
    "type": "object",
    "properties": {
      "result": {
        "type":"object",
        "properties":{"text":{"type":"string","description":"Returned text"}},
        "required":["text"],
        "additionalProperties":false
      }
    },
    "required":["result"],
    "additionalProperties":false
  }
}
""")


def _tool(catalog: list[dict[str, Any]], name: str) -> dict[str, Any]:
    return next(t for t in catalog if t["name"] == name)


def test_echo_entry_is_the_rfc_golden(echo_model: Model) -> None:
    """RFC-0004 §5: the generated echo entry equals the RFC's worked example."""
    entry = _tool(build_catalog(echo_model), "echo")
    assert {member: entry[member] for member in RFC_ECHO_ENTRY} == RFC_ECHO_ENTRY
    # The RFC's members first and unchanged; then only the 2025-06-18 additions (D-S36).
    assert list(entry) == [
        "name", "description", "inputSchema", "outputSchema", "title", "annotations"
    ]  # fmt: skip
    assert entry["title"] == "venom-echo echo"
    assert entry["annotations"] == {"title": "venom-echo echo", "readOnlyHint": True}
    assert list(entry["inputSchema"]["properties"]["style"]) == [
        "type",
        "enum",
        "description",
        "default",
    ]


def test_transport_and_local_verbs_are_not_tools(echo_model: Model) -> None:
    """RFC-0004 §7: hello/cancel (transport) and serve/mcp (local) are never MCP tools."""
    names = [t["name"] for t in build_catalog(echo_model)]
    assert names == [
        "config_dget",
        "config_dset",
        "echo",
        "events",
        "ping",
        "skill",
        "skill_dinstall",
    ]


def test_names_are_reversibly_encoded(hostile_model: Model) -> None:
    """RFC-0004 §5: `_` -> `__`, `.` -> `_d`; pane.split and pane_split stay distinct."""
    model = copy.deepcopy(hostile_model)
    clone = copy.deepcopy(next(v for v in model["verbs"] if v["name"] == "pane.split"))
    clone["name"] = "pane_split"
    model["verbs"].append(clone)
    names = [t["name"] for t in build_catalog(model)]
    assert names == [
        "pane_dset__title", "pane_dsplit", "pane__split", "records", "tail", "win__split"
    ]  # fmt: skip


def test_verbs_sorted_by_wire_name_even_if_input_is_not(echo_model: Model) -> None:
    """RFC-0004 §6: lexicographic wire-name order regardless of input order."""
    model = copy.deepcopy(echo_model)
    model["verbs"].reverse()
    assert build_catalog(model) == build_catalog(echo_model)


def test_required_always_present_and_objects_closed(echo_model: Model) -> None:
    """RFC-0004 §5: required lists an empty array when no field is required."""
    ping = _tool(build_catalog(echo_model), "ping")
    assert ping["inputSchema"] == {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": False,
    }
    assert ping["outputSchema"]["properties"]["result"]["required"] == []


def test_streaming_output_and_description(echo_model: Model) -> None:
    """RFC-0004 §5: {items, result} wrapper; the limits appear in the description."""
    events = _tool(build_catalog(echo_model), "events")
    out = events["outputSchema"]
    assert out["required"] == ["items", "result"]
    assert out["additionalProperties"] is False
    item = out["properties"]["items"]
    assert item["type"] == "array"
    assert item["items"]["required"] == ["seq", "topic", "data"]
    assert item["items"]["properties"]["data"]["additionalProperties"] is False
    assert events["description"].startswith("Subscribe to daemon events. ")
    for needle in ("1024 items", "1 MiB", "unsupported.stream_limit"):
        assert needle in events["description"]
    assert "1024" not in _tool(build_catalog(echo_model), "echo")["description"]


def test_bounds_arrays_and_defaults(echo_model: Model) -> None:
    """RFC-0004 §3 mapping table: minimum/maximum, items, default."""
    props = _tool(build_catalog(echo_model), "events")["inputSchema"]["properties"]
    assert props["limit"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 1000,
        "description": "Stop after this many events",
    }
    assert props["topics"] == {
        "type": "array",
        "items": {"type": "string"},
        "description": "Topics to follow",
        "default": [],
    }


def test_nullable_is_any_of_with_description_outside(echo_model: Model) -> None:
    """RFC-0004 §3: nullable maps to anyOf [<schema>, {type: null}]."""
    result = _tool(build_catalog(echo_model), "config_dget")["outputSchema"]["properties"]
    assert result["result"]["properties"]["value"] == {
        "anyOf": [{"type": "string"}, {"type": "null"}],
        "description": "The value, or null when unset",
    }


def test_scalar_and_nullable_results_are_wrapped(hostile_model: Model) -> None:
    """RFC-0004 §5: scalar results still get an object output schema."""
    catalog = build_catalog(hostile_model)
    win = _tool(catalog, "win__split")["outputSchema"]
    assert win["properties"]["result"] == {"type": "integer", "minimum": 0, "maximum": 255}
    tail = _tool(catalog, "tail")["outputSchema"]["properties"]
    assert tail["items"]["items"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    assert tail["result"] == {"type": "null"}


def test_max_grant_filters(echo_model: Model) -> None:
    """Only verbs whose grant is allowed are listed."""
    names = [t["name"] for t in build_catalog(echo_model, max_grant={"none", "read"})]
    assert names == ["config_dget", "echo", "events", "ping", "skill"]
    assert build_catalog(echo_model, max_grant=set()) == []


def test_name_longer_than_128_bytes_fails(echo_model: Model) -> None:
    """RFC-0004 §5: names longer than 128 bytes after encoding fail generation."""
    model = copy.deepcopy(echo_model)
    model["verbs"][3]["name"] = "a_" * 43  # 86 chars, 129 bytes encoded
    with pytest.raises(GenerationError, match="128"):
        build_catalog(model)


def test_deterministic_and_json_serializable(hostile_model: Model) -> None:
    """Same model, same bytes."""
    first = json.dumps(build_catalog(hostile_model), ensure_ascii=False)
    assert first == json.dumps(build_catalog(copy.deepcopy(hostile_model)), ensure_ascii=False)
    assert "$(touch /tmp/venom-pwned)" in first


def test_product_model_echo_entry_is_the_rfc_golden() -> None:
    """RFC-0004 §5 on the real venom-echo model (with the shared bundles merged)."""
    path = Path(__file__).parents[2] / "venom-echo" / "src" / "venom_echo" / "verbs.model.json"
    if not path.exists():
        pytest.skip("venom-echo's generated model is not present")
    model = json.loads(path.read_text("utf-8"))
    catalog = build_catalog(model)
    echo = _tool(catalog, "echo")
    assert {member: echo[member] for member in RFC_ECHO_ENTRY} == RFC_ECHO_ENTRY
    wires = [mcp_decode(t["name"]) for t in catalog]
    assert wires == sorted(wires)
    assert not {"hello", "cancel", "serve", "mcp"} & set(wires)
