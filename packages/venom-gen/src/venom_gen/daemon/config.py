"""The configuration store behind the ``config.*`` verbs (rfcs/0001-shared-verbs.md).

The file is TOML at ``$XDG_CONFIG_HOME/<tool>/config.toml`` (``~/.config`` when unset;
``<TOOL>_CONFIG`` overrides the path), checked against the product's configuration descriptor
(a format-1 object descriptor). It is read only if it is a regular file of at most
`MAX_CONFIG_BYTES` (`venom_proto.files.read_regular`) and written by rename (`write_atomic`), so a
full disk or a crash leaves the old file intact. Every verb that touches the file does so in a
worker thread: the event loop never waits on the file system.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import tomllib
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from venom_proto import VenomError
from venom_proto.conventions import env_var
from venom_proto.files import FileRefused, read_regular, remove_stale, write_atomic
from venom_proto.paths import config_home
from venom_proto.stdjson import std_dumps
from venom_schema.model import Descriptor, JsonObject
from venom_schema.runtime import compile_descriptor

from .files import MAX_CONFIG_BYTES, FileWorkers
from .finish import finish
from .toml_edit import edit_or_rewrite

if TYPE_CHECKING:
    from venom_proto import Call

__all__ = (
    "EMPTY_DESCRIPTOR",
    "MAX_VALUE_DEPTH",
    "TEMP_PREFIX",
    "ConfigStore",
    "config_path",
    "parse_value",
)

EMPTY_DESCRIPTOR: Descriptor = {"kind": "object", "fields": []}
#: ``config.set`` refuses a value nested deeper than this (rfcs/0001 §6).
MAX_VALUE_DEPTH = 64
#: Temporary files of `write_atomic` beside config.toml: ``.config.<hex>.tmp``.
TEMP_PREFIX = ".config."

_BRACKETS = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]', re.DOTALL)


def config_path(tool: str, environ: Mapping[str, str] = os.environ) -> Path:
    """Where ``tool`` keeps its configuration file: ``<TOOL>_CONFIG``, else the XDG path."""
    override = environ.get(env_var(tool, "CONFIG"))
    if override:
        return Path(override)
    return Path(config_home(environ)) / tool / "config.toml"


def _problem(err: VenomError) -> dict[str, str]:
    key = (err.data or {}).get("param", "")
    return {"key": key if isinstance(key, str) else "", "message": err.message}


def _depth(text: str) -> int:
    """How deep ``[`` and ``{`` nest in ``text`` outside JSON strings; linear time."""
    if text.count("[") + text.count("{") <= MAX_VALUE_DEPTH:
        return 0  # cannot nest deeper than the limit: skip the scan
    depth = deepest = 0
    for token in _BRACKETS.findall(text):
        if token in ("[", "{"):
            depth += 1
            deepest = max(deepest, depth)
        elif token in ("]", "}"):
            depth -= 1
    return deepest


def parse_value(given: str) -> Any:
    """A ``config.set`` value: JSON, or the text itself as a string when it is not JSON.

    A value nested deeper than `MAX_VALUE_DEPTH` (outside strings) is ``invalid_params.config``
    whether or not it is JSON: no configuration schema is that deep, and JSON parsers recurse.
    """
    if _depth(given) > MAX_VALUE_DEPTH:
        message = f"the value nests more than {MAX_VALUE_DEPTH} levels deep; nothing was written"
        errors = [{"key": "", "message": message}]
        raise VenomError("invalid_params.config", message, {"errors": errors})
    try:
        return json.loads(given)
    except ValueError:
        return given  # the documented fallback: text that is not JSON is a string


class ConfigStore:
    """Holds the effective configuration and implements the ``config.*`` verbs."""

    def __init__(self, tool: str, descriptor: Descriptor | None = None) -> None:
        self.descriptor: Descriptor = (descriptor or EMPTY_DESCRIPTOR).copy()
        self.path = config_path(tool)
        self._validate = compile_descriptor(self.descriptor, kind="params")
        self.effective: dict[str, Any] = self._validate({})
        self._workers = FileWorkers()
        self._lock = asyncio.Lock()  # one config.set / config.reload at a time
        remove_stale(self.path.parent, TEMP_PREFIX)  # left by a daemon killed mid-write
        errors = self.load()
        if errors:
            raise VenomError(
                "failed.config_invalid",
                f"configuration file {self.path} is invalid: {errors[0]['message']}",
                {"path": str(self.path), "errors": errors},
            )

    # -- reading and checking (blocking: worker threads, or start-up) ---------------------

    def _read_text(self) -> str:
        try:
            data = read_regular(self.path, MAX_CONFIG_BYTES)
        except FileRefused as exc:
            raise ValueError(f"cannot read {self.path}: {exc}") from exc
        except OSError as exc:
            raise ValueError(f"cannot read {self.path}: {exc.strerror or exc}") from exc
        if data is None:
            return ""
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"cannot read {self.path}: not UTF-8 ({exc.reason})") from exc

    def _read_raw(self, text: str | None = None) -> dict[str, Any]:
        if text is None:
            text = self._read_text()
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"not valid TOML: {exc}") from exc
        except RecursionError:
            raise ValueError("not usable TOML: arrays or tables nest too deeply") from None

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
        """Apply the file if it is valid; returns its problems (empty when applied). Blocks."""
        effective, errors = self._candidate()
        if effective is not None:
            self.effective = effective
        return errors

    def problems(self) -> list[dict[str, str]]:
        """What is wrong with the file on disk (empty when it validates). Blocks."""
        return self._candidate()[1]

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

    def _set_file(self, key: str, given: str) -> dict[str, Any]:
        """Write ``key`` into the file; the new effective configuration. Blocks."""
        value = parse_value(given)
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
        data = edit_or_rewrite(text, parts, value, raw).encode("utf-8")
        if len(data) > MAX_CONFIG_BYTES:
            message = (
                f"the file would be {len(data)} bytes, more than the {MAX_CONFIG_BYTES} allowed;"
                " nothing was written"
            )
            raise VenomError(
                "invalid_params.config", message, {"errors": [{"key": key, "message": message}]}
            )
        self._write(data)
        return effective

    def _write(self, data: bytes) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            remove_stale(self.path.parent, TEMP_PREFIX)
            write_atomic(self.path, data, 0o600, prefix=TEMP_PREFIX)
        except OSError as exc:
            raise VenomError(
                "failed.write",
                f"cannot write {self.path}: {exc.strerror or exc}",
                {"path": str(self.path), "reason": str(exc.strerror or exc)},
            ) from exc

    # -- verbs ----------------------------------------------------------------------------

    def get(self, call: Call, params: JsonObject) -> JsonObject:
        """``config.get``: the effective value of ``key``, or the whole configuration."""
        key = params.get("key", "")
        if not key:
            return {"key": "", "value": std_dumps(self.effective).decode()}
        self._field(key)
        return {"key": key, "value": std_dumps(self._lookup(key)).decode()}

    async def set(self, call: Call, params: JsonObject) -> JsonObject:
        """``config.set``: write ``key`` to the file and apply it, or change nothing."""
        key, given = params["key"], params["value"]
        self._field(key)

        async def write_and_apply() -> None:
            async with self._lock:
                self.effective = await self._workers.run(partial(self._set_file, key, given))

        await finish(write_and_apply())  # once written, applied even if the caller is gone
        return {"key": key, "value": std_dumps(self._lookup(key)).decode()}

    async def check(self, call: Call, params: JsonObject) -> JsonObject:
        """``config.check``: validate the file without applying it."""
        effective, errors = await self._workers.run(self._candidate, abandon_on_cancel=True)
        return {
            "path": str(self.path),
            "valid": effective is not None,
            "exit": 0 if effective is not None else 1,
            "errors": errors,
        }

    async def reload(self, call: Call, params: JsonObject) -> JsonObject:
        """``config.reload``: apply a valid file, or keep the old configuration."""
        async with self._lock:
            before = self.effective
            effective, errors = await self._workers.run(self._candidate, abandon_on_cancel=True)
            if effective is None:
                raise VenomError(
                    "failed.config_invalid",
                    f"{self.path}: {errors[0]['message']}; the old configuration stays",
                    {"path": str(self.path), "errors": errors},
                )
            self.effective = effective
        changed = sorted(_diff(before, effective))
        return {"path": str(self.path), "changed": changed}

    def schema(self, call: Call, params: JsonObject) -> JsonObject:
        """``config.schema``: the configuration descriptor as JSON Schema."""
        from venom_gen.render.catalog import type_schema

        schema = {"$schema": "https://json-schema.org/draft/2020-12/schema"}
        schema.update(type_schema(self.descriptor))
        return {"schema": std_dumps(schema).decode()}


def _diff(a: Any, b: Any, prefix: str = "") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        out: list[str] = []
        for key in sorted(set(a) | set(b)):
            out += _diff(a.get(key), b.get(key), f"{prefix}{key}.")
        return out
    return [prefix.rstrip(".")] if a != b else []
