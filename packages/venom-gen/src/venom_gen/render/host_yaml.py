"""Set one mapping in a host's YAML configuration file, keeping its comments and layout.

Goose keeps its extensions in ``~/.config/goose/config.yaml``. ruamel.yaml's round-trip mode
edits the document in place (comments and key order kept); the result is read back with its
safe loader and must equal the old document with exactly the one mapping set, or nothing is
written. Text that is not valid Unicode is refused, since YAML cannot hold it as itself.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import Any

from venom_gen.render.host_json import HostFileError
from venom_gen.render.host_toml import _check_writable, _plain

__all__ = ("set_mapping",)


def _quoted(value: Any) -> Any:
    """``value`` with every string double-quoted: YAML's only style that can escape any
    character (plain and single-quoted scalars cannot hold NEL or other controls)."""
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString

    if isinstance(value, str):
        return DoubleQuotedScalarString(value)
    if isinstance(value, Mapping):
        quoted = CommentedMap()
        for key, item in value.items():
            quoted[DoubleQuotedScalarString(key)] = _quoted(item)
        return quoted
    if isinstance(value, (list, tuple)):
        return [_quoted(item) for item in value]
    return value


def _load_safe(text: str) -> Any:
    from ruamel.yaml import YAML

    return YAML(typ="safe", pure=True).load(text)


def _refuse_aliases(source: str) -> None:
    """Aliases are refused: a reader expands them, so a small hostile file (``a: &a [*b,
    *b, ...]``, "billion laughs") would cost exponential time to compare, and host files
    written by their hosts never use them."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError
    from ruamel.yaml.events import AliasEvent

    try:
        for event in YAML(typ="safe", pure=True).parse(source):
            if isinstance(event, AliasEvent):
                raise HostFileError("it uses YAML aliases (*name), which this editor refuses")
    except YAMLError as exc:
        raise HostFileError(f"it is not YAML ({str(exc).splitlines()[0]})") from None


def set_mapping(text: str | None, path: Sequence[str], value: Mapping[str, Any]) -> str:
    """``text`` with the mapping at ``path`` replaced by ``value`` (created with its parents
    if missing). `HostFileError` for a file that is not YAML (or holds more than one
    document), a key on the path that is not a mapping, or an edit that would change
    anything else."""
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.error import YAMLError

    _check_writable(value)
    source = text or ""
    _refuse_aliases(source)
    yaml = YAML(typ="rt", pure=True)
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.width = 4096
    try:
        before = _load_safe(source)
        document = yaml.load(source)
    except (YAMLError, ValueError, RecursionError) as exc:
        raise HostFileError(f"it is not YAML ({str(exc).splitlines()[0]})") from None
    if document is None:
        document, before = CommentedMap(), {}
    if not isinstance(document, Mapping) or not isinstance(before, dict):
        raise HostFileError("it is not a YAML mapping")
    node: Any = document
    plain: dict[str, Any] = before
    for depth, key in enumerate(path[:-1]):
        if key not in node:
            node[_quoted(key)] = CommentedMap()
        if not isinstance(node[key], Mapping) or not isinstance(plain.get(key, {}), dict):
            raise HostFileError(f"its {'.'.join(path[: depth + 1])!r} key is not a mapping")
        plain = plain.setdefault(key, {})
        node = node[key]
    if path[-1] in node:
        node[path[-1]] = _quoted(value)
    else:
        node[_quoted(path[-1])] = _quoted(value)
    plain[path[-1]] = _plain(value)
    out = io.StringIO()
    try:
        yaml.dump(document, out)
        new_text = out.getvalue()
        after = _load_safe(new_text)
    except (YAMLError, ValueError, RecursionError):
        after = None
    if after != before:
        raise HostFileError("it cannot be edited without changing what else it says")
    return new_text
