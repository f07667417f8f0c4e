"""The target's normalized model, read from the daemon, and what the RFCs derive from it.

Everything here is the suite's own reading of RFC-0004 (canonical JSON, the CLI spelling, the MCP
names and schemas, bad values per descriptor); none of it comes from the implementation.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from venom_mcp.conformance._kit import Daemon, call, not_applicable

#: The model's ``dispatch`` values of verbs no daemon request reaches (RFC-0004 §7).
LOCAL, TRANSPORT = "local", "transport"


#: The model of this run's target, set when the conftest boots the suite (``BOOT``).
CURRENT: TargetModel | None = None
BOOT: Callable[[], object] | None = None


def current() -> TargetModel:
    if CURRENT is None and BOOT is not None:
        BOOT()
    assert CURRENT is not None, "the conformance suite was not booted"
    return CURRENT


def fetch_model(d: Daemon) -> dict[str, Any]:
    """The model from the daemon's ``manifest`` verb; its text must hash to the digest."""
    reply = call(d, "manifest", rid="manifest")
    if "error" in reply:
        raise ValueError(
            f"the daemon's `manifest` verb failed ({reply['error'].get('code')});"
            " pass the model with --model PATH"
        )
    text, digest = reply["ok"]["model"], reply["ok"]["digest"]
    if "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest() != digest:
        raise ValueError("`manifest`'s model text does not hash to its digest")
    model: dict[str, Any] = json.loads(text)
    return model


def load_model_file(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    document.pop("$cache", None)  # a model cache file's own member, not part of the model
    return document


# --- RFC-0004 §7: canonical JSON -------------------------------------------------------------


def canonical(value: Any) -> str:
    """Canonical JSON (RFC-0004 §7), written from the RFC's text alone."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        out = ['"']
        for ch in value:
            if ch in '"\\':
                out.append("\\" + ch)
            elif ord(ch) < 0x20:
                out.append(f"\\u{ord(ch):04x}")
            else:
                out.append(ch)
        out.append('"')
        return "".join(out)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("canonical JSON has no non-finite numbers")
        if value.is_integer() and abs(value) < 2**53:
            return str(int(value))
        text = repr(value)  # shortest round trip
        mantissa, e, exp = text.partition("e")
        if not e:
            return text
        sign = "-" if exp.startswith("-") else ""
        return f"{mantissa.removesuffix('.0')}e{sign}{exp.lstrip('+-').lstrip('0') or '0'}"
    if isinstance(value, list):
        return "[" + ",".join(canonical(v) for v in value) + "]"
    if isinstance(value, dict):
        keys = sorted(value, key=lambda k: k.encode("utf-8"))
        return "{" + ",".join(canonical(k) + ":" + canonical(value[k]) for k in keys) + "}"
    raise TypeError(f"not JSON: {type(value).__name__}")


def digest(model: Any) -> str:
    return "sha256:" + hashlib.sha256(canonical(model).encode("utf-8")).hexdigest()


# --- RFC-0004 §4 and §5: spellings, names, schemas --------------------------------------------


def cli_words(wire: str) -> list[str]:
    """``pane.set_title`` -> ``["pane", "set-title"]``."""
    return [part.replace("_", "-") for part in wire.split(".")]


def flag(param: str) -> str:
    return "--" + param.replace("_", "-")


def mcp_name(wire: str) -> str:
    return wire.replace("_", "__").replace(".", "_d")


def json_schema(desc: dict[str, Any]) -> dict[str, Any]:
    """A type descriptor's JSON Schema (RFC-0004 §3's table)."""
    kind = desc["kind"]
    schema: dict[str, Any] = {"type": kind}
    if kind == "string" and "choices" in desc:
        schema["enum"] = list(desc["choices"])
    if kind in ("integer", "number"):
        if "min" in desc:
            schema["minimum"] = desc["min"]
        if "max" in desc:
            schema["maximum"] = desc["max"]
    if kind == "array":
        schema["items"] = json_schema(desc["items"])
    if kind == "object":
        schema.update(object_schema(desc["fields"]))
    if desc.get("nullable") and kind != "null":
        return {"anyOf": [schema, {"type": "null"}]}
    return schema


def object_schema(fields: list[dict[str, Any]]) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    for f in fields:
        prop = json_schema(f["type"])
        prop["description"] = f["summary"]
        if "default" in f:
            prop["default"] = f["default"]
        properties[f["name"]] = prop
    return {
        "type": "object",
        "properties": properties,
        "required": [f["name"] for f in fields if f.get("required")],
        "additionalProperties": False,
    }


def output_schema(verb: dict[str, Any]) -> dict[str, Any]:
    props: dict[str, Any] = {"result": json_schema(verb["result"])}
    if verb.get("streams"):
        props = {"items": {"type": "array", "items": json_schema(verb["item"])}, **props}
    return {
        "type": "object",
        "properties": props,
        "required": list(props),
        "additionalProperties": False,
    }


def strip_descriptions(schema: Any) -> Any:
    """A schema without ``description`` members (they may be richer than the bare summary)."""
    if isinstance(schema, dict):
        return {k: strip_descriptions(v) for k, v in schema.items() if k != "description"}
    if isinstance(schema, list):
        return [strip_descriptions(v) for v in schema]
    return schema


# --- values built from a descriptor -----------------------------------------------------------


def valid_value(desc: dict[str, Any]) -> Any:
    """Some value a descriptor accepts."""
    kind = desc["kind"]
    if kind == "string":
        return desc["choices"][0] if "choices" in desc else "x"
    if kind == "boolean":
        return False
    if kind in ("integer", "number"):
        lo, hi = desc.get("min"), desc.get("max")
        v = lo if lo is not None else hi if hi is not None else 0
        return int(v) if kind == "integer" else float(v)
    if kind == "array":
        return []
    if kind == "object":
        return {f["name"]: valid_value(f["type"]) for f in desc["fields"] if f.get("required")}
    return None


def wrong_type(desc: dict[str, Any]) -> Any:
    """A value of another JSON type (numbers are not integers' wrong type, strings never are)."""
    return {"string": 1, "boolean": "true", "integer": "1", "number": "1", "array": {}}.get(
        desc["kind"], []
    )


def bad_values(desc: dict[str, Any]) -> list[tuple[str, Any, str]]:
    """(label, value, expected code suffix) for the out-of-domain values a descriptor implies."""
    out: list[tuple[str, Any, str]] = [("type", wrong_type(desc), "type")]
    kind = desc["kind"]
    if kind == "string" and "choices" in desc:
        out.append(("choice", "\u00a7not-a-choice", "enum"))
    if kind in ("integer", "number"):
        if "min" in desc:
            out.append(("below", desc["min"] - 1, "range"))
        if "max" in desc:
            out.append(("above", desc["max"] + 1, "range"))
    if kind == "integer":
        out.append(("fraction", 0.5 + (desc.get("min") or 0), "type"))
    return out


def cli_text(value: Any) -> str:
    """A value as one CLI token (RFC-0004 §4)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"))


def malformed_cli(desc: dict[str, Any]) -> str | None:
    """A token no parser of the param's kind can read, or None for strings (any text is one)."""
    return {
        "integer": "1x",
        "number": "1..2",
        "boolean": "yes",
        "array": "[1,",
        "object": "{",
    }.get(desc["kind"])


class TargetModel:
    """The normalized model, with the views the generated checks need."""

    def __init__(
        self, raw: dict[str, Any], *, stream: str | None = None, endless: str | None = None
    ) -> None:
        self.raw = raw
        self.tool: str = raw["tool"]
        self.verbs: dict[str, dict[str, Any]] = {v["name"]: v for v in raw["verbs"]}
        self._stream = _call_option(stream)
        self._endless = _call_option(endless)

    def dispatch(self, verb: dict[str, Any]) -> str:
        return str(verb.get("dispatch", "daemon"))

    def daemon_verbs(self) -> list[dict[str, Any]]:
        """Verbs a request on the socket reaches (neither local nor transport)."""
        return [v for v in self.raw["verbs"] if self.dispatch(v) not in (LOCAL, TRANSPORT)]

    def product_verbs(self) -> list[dict[str, Any]]:
        """Daemon verbs RFC-0004 validates (core verbs' params are RFC-0002's to define)."""
        return [v for v in self.daemon_verbs() if v.get("shared") != "core"]

    def cli_verbs(self) -> list[dict[str, Any]]:
        return [v for v in self.raw["verbs"] if self.dispatch(v) != TRANSPORT]

    def mcp_verbs(self) -> list[dict[str, Any]]:
        return self.daemon_verbs()

    def bundles(self) -> set[str]:
        return {str(v["shared"]) for v in self.raw["verbs"] if "shared" in v}

    def has(self, *names: str) -> bool:
        return all(n in self.verbs for n in names)

    def finite_stream(self) -> tuple[str, dict[str, Any]] | None:
        """A streaming call that ends: the option, else a declared example, else one needing no
        params (product verbs first)."""
        if self._stream is not None:
            return self._stream
        streams = [v for v in self.daemon_verbs() if v.get("streams")]
        streams.sort(key=lambda v: ("shared" in v, v["name"]))
        for v in streams:
            for example in v.get("examples", []):
                return v["name"], dict(example.get("params", {}))
        for v in streams:
            if v["name"] != "events" and not any(p.get("required") for p in v.get("params", [])):
                return v["name"], {}
        if "events" in self.verbs:
            return "events", {"types": ["no.such.type"]}
        return None

    def endless_stream(self) -> tuple[str, dict[str, Any]] | None:
        """A streaming call that runs until cancelled: the option, else RFC-0003's ``events``
        following a type nothing publishes."""
        if self._endless is not None:
            return self._endless
        events = self.verbs.get("events")
        if events and any(p["name"] == "follow" for p in events.get("params", [])):
            return "events", {"types": ["no.such.type"], "follow": True}
        return None


def endless(model: TargetModel) -> tuple[str, dict[str, Any]]:
    """The model's endless stream, or the check is not applicable."""
    return _or_not_applicable(
        model.endless_stream(),
        "the model declares no stream that runs until cancelled (--endless-stream)",
    )


def finite(model: TargetModel) -> tuple[str, dict[str, Any]]:
    """The model's finite stream, or the check is not applicable."""
    return _or_not_applicable(
        model.finite_stream(), "the model declares no streaming verb (--stream)"
    )


def _or_not_applicable(
    found: tuple[str, dict[str, Any]] | None, reason: str
) -> tuple[str, dict[str, Any]]:
    if found is None:
        not_applicable(reason)
        raise AssertionError("unreachable")
    return found


def _call_option(text: str | None) -> tuple[str, dict[str, Any]] | None:
    if text is None:
        return None
    verb, _, params = text.strip().partition(" ")
    value = json.loads(params) if params.strip() else {}
    if not isinstance(value, dict):
        raise ValueError(f"the params of {text!r} are not a JSON object")
    return verb, value
