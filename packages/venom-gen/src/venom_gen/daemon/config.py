"""The configuration store behind the ``config.*`` verbs (rfcs/0001-shared-verbs.md).

The file is TOML at ``$XDG_CONFIG_HOME/<tool>/config.toml`` (``~/.config`` when unset;
``<TOOL>_CONFIG`` overrides the path), checked
against the product's configuration descriptor (a format-1 object descriptor). Writes go to a
temporary file in the same directory and are renamed into place, so a full disk or a crash
leaves the old file intact.
"""

from __future__ import annotations

import json
import os
import tempfile
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from venom_proto import VenomError
from venom_proto._server import Call
from venom_schema.runtime import compile_descriptor

from .toml_edit import edit_or_rewrite

__all__ = ("ConfigStore", "config_path")

EMPTY_DESCRIPTOR: dict[str, Any] = {"kind": "object", "fields": []}


def config_path(tool: str, environ: Mapping[str, str] = os.environ) -> Path:
    """Where ``tool`` keeps its configuration file: ``<TOOL>_CONFIG``, else the XDG path."""
    override = environ.get(tool.upper().replace("-", "_") + "_CONFIG")
    if override:
        return Path(override)
    base = environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / tool / "config.toml"


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _problem(err: VenomError) -> dict[str, str]:
    key = (err.data or {}).get("param", "")
    return {"key": key if isinstance(key, str) else "", "message": err.message}


class ConfigStore:
    """Holds the effective configuration and implements the ``config.*`` verbs."""

    def __init__(self, tool: str, descriptor: Mapping[str, Any] | None = None) -> None:
        self.descriptor = dict(descriptor or EMPTY_DESCRIPTOR)
        self.path = config_path(tool)
        self._validate = compile_descriptor(self.descriptor, kind="params")
        self.effective: dict[str, Any] = self._validate({})
        errors = self.load()
        if errors:
            raise VenomError(
                "failed.config_invalid",
                f"configuration file {self.path} is invalid: {errors[0]['message']}",
                {"path": str(self.path), "errors": errors},
            )

    # -- reading and checking -------------------------------------------------------------

    def _read_text(self) -> str:
        try:
            return self.path.read_bytes().decode("utf-8")
        except FileNotFoundError:
            return ""
        except (OSError, UnicodeDecodeError) as exc:
            raise ValueError(f"cannot read {self.path}: {exc}") from exc

    def _read_raw(self, text: str | None = None) -> dict[str, Any]:
        if text is None:
            text = self._read_text()
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"not valid TOML: {exc}") from exc

    def _check(self, raw: Mapping[str, Any]) -> tuple[dict[str, Any] | None, list[dict[str, str]]]:
        try:
            return self._validate(dict(raw)), []
        except VenomError as err:
            return None, [_problem(err)]

    def _candidate(self) -> tuple[dict[str, Any] | None, list[dict[str, str]]]:
        try:
            raw = self._read_raw()
        except ValueError as exc:
            return None, [{"key": "", "message": str(exc)}]
        return self._check(raw)

    def load(self) -> list[dict[str, str]]:
        """Apply the file if it is valid; returns its problems (empty when applied)."""
        effective, errors = self._candidate()
        if effective is not None:
            self.effective = effective
        return errors

    def _field(self, key: str) -> Mapping[str, Any]:
        desc: Mapping[str, Any] = self.descriptor
        field: Mapping[str, Any] | None = None
        for part in key.split("."):
            fields = desc.get("fields") if desc.get("kind") == "object" else None
            field = next((f for f in fields or [] if f["name"] == part), None)
            if field is None:
                raise VenomError(
                    "not_found.config_key", f"no configuration key {key!r}", {"key": key}
                )
            desc = field["type"]
        assert field is not None
        return field

    def _lookup(self, key: str) -> Any:
        value: Any = self.effective
        for part in key.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        return value

    # -- verbs ----------------------------------------------------------------------------

    def get(self, call: Call, params: dict[str, Any]) -> dict[str, Any]:
        """``config.get``: the effective value of ``key``, or the whole configuration."""
        key = params.get("key", "")
        if not key:
            return {"key": "", "value": _compact(self.effective)}
        self._field(key)
        return {"key": key, "value": _compact(self._lookup(key))}

    def set(self, call: Call, params: dict[str, Any]) -> dict[str, Any]:
        """``config.set``: write ``key`` to the file and apply it, or change nothing."""
        key, given = params["key"], params["value"]
        self._field(key)
        try:
            value = json.loads(given)
        except ValueError:
            value = given  # the documented fallback: text that is not JSON is a string
        try:
            text = self._read_text()
            raw = self._read_raw(text)
        except ValueError as exc:
            raise VenomError(
                "invalid_params.config",
                f"the configuration file cannot be updated: {exc}",
                {"errors": [{"key": "", "message": str(exc)}]},
            ) from exc
        node = raw
        parts = key.split(".")
        for part in parts[:-1]:
            child = node.get(part)
            node[part] = child = dict(child) if isinstance(child, dict) else {}
            node = child
        if value is None:
            node.pop(parts[-1], None)
        else:
            node[parts[-1]] = value
        effective, errors = self._check(raw)
        if effective is None:
            raise VenomError(
                "invalid_params.config",
                f"{key}: {errors[0]['message']}; nothing was written",
                {"errors": errors},
            )
        self._write(edit_or_rewrite(text, parts, value, raw))
        self.effective = effective
        return {"key": key, "value": _compact(self._lookup(key))}

    def _write(self, text: str) -> None:
        tmp: str | None = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd, tmp = tempfile.mkstemp(prefix=".config.", suffix=".tmp", dir=self.path.parent)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except OSError as exc:
            if tmp is not None:
                Path(tmp).unlink(missing_ok=True)
            raise VenomError(
                "failed.write",
                f"cannot write {self.path}: {exc.strerror or exc}",
                {"path": str(self.path), "reason": str(exc.strerror or exc)},
            ) from exc

    def check(self, call: Call, params: dict[str, Any]) -> dict[str, Any]:
        """``config.check``: validate the file without applying it."""
        effective, errors = self._candidate()
        return {
            "path": str(self.path),
            "valid": effective is not None,
            "exit": 0 if effective is not None else 1,
            "errors": errors,
        }

    def reload(self, call: Call, params: dict[str, Any]) -> dict[str, Any]:
        """``config.reload``: apply a valid file, or keep the old configuration."""
        before = self.effective
        effective, errors = self._candidate()
        if effective is None:
            raise VenomError(
                "failed.config_invalid",
                f"{self.path}: {errors[0]['message']}; the old configuration stays",
                {"path": str(self.path), "errors": errors},
            )
        self.effective = effective
        changed = sorted(_diff(before, effective))
        return {"path": str(self.path), "changed": changed}

    def schema(self, call: Call, params: dict[str, Any]) -> dict[str, Any]:
        """``config.schema``: the configuration descriptor as JSON Schema."""
        from venom_gen.catalog import type_schema

        schema = {"$schema": "https://json-schema.org/draft/2020-12/schema"}
        schema.update(type_schema(self.descriptor))
        return {"schema": _compact(schema)}


def _diff(a: Any, b: Any, prefix: str = "") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        out: list[str] = []
        for key in sorted(set(a) | set(b)):
            out += _diff(a.get(key), b.get(key), f"{prefix}{key}.")
        return out
    return [prefix.rstrip(".")] if a != b else []
