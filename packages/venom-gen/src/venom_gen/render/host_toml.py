"""Set one table in a host's TOML configuration file, keeping its comments and layout.

Codex keeps its MCP servers in ``~/.codex/config.toml`` as ``[mcp_servers.<name>]`` tables,
beside settings people write by hand. tomlkit edits the document in place (comments, order and
formatting kept); the result is then read back with the standard library's ``tomllib``, the
reader the TOML specification's own tests hold, and must equal the old document with exactly
the one table set, or nothing is written. A value TOML cannot hold as itself (text that is not
valid Unicode) is refused.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from typing import Any

from venom_gen.render.host_json import HostFileError

__all__ = ("dumps_entry", "set_table")


def _check_writable(value: Any) -> None:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise HostFileError(
                f"the entry holds text that is not valid Unicode ({value!r}), which TOML "
                "cannot hold"
            ) from None
    elif isinstance(value, Mapping):
        for key, item in value.items():
            _check_writable(key)
            _check_writable(item)
    elif isinstance(value, Sequence):
        for item in value:
            _check_writable(item)


def _table(value: Mapping[str, Any]) -> Any:
    import tomlkit

    table = tomlkit.table()
    for key, item in value.items():
        table.add(key, _table(item) if isinstance(item, Mapping) else item)
    return table


def dumps_entry(path: Sequence[str], value: Mapping[str, Any]) -> str:
    """A TOML document holding only ``value`` at the table ``path``."""
    return set_table(None, path, value)


def set_table(text: str | None, path: Sequence[str], value: Mapping[str, Any]) -> str:
    """``text`` with the table at ``path`` replaced by ``value`` (created with its parents if
    missing). `HostFileError` for a file that is not TOML, a key on the path that is not a
    table, or an edit that would change anything else."""
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    _check_writable(value)
    source = text or ""
    try:
        before = tomllib.loads(source)
        document = tomlkit.parse(source)
    except (tomllib.TOMLDecodeError, TOMLKitError, ValueError) as exc:
        raise HostFileError(f"it is not TOML ({exc})") from None
    expected: dict[str, Any] = before
    node: Any = document
    plain: dict[str, Any] = expected
    for depth, key in enumerate(path[:-1]):
        where = ".".join(path[: depth + 1])
        if key not in node:
            node.add(key, tomlkit.table(is_super_table=True))
        child = node[key]
        if not isinstance(child, Mapping) or not isinstance(plain.get(key, {}), dict):
            raise HostFileError(f"its {where!r} key is not a table")
        plain = plain.setdefault(key, {})
        node = child
    node[path[-1]] = _table(value)
    plain[path[-1]] = _plain(value)
    try:
        new_text = tomlkit.dumps(document)
        after = tomllib.loads(new_text)
    except (tomllib.TOMLDecodeError, TOMLKitError, ValueError):
        after = None
    if after != expected:
        raise HostFileError("it cannot be edited without changing what else it says")
    return new_text


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value
