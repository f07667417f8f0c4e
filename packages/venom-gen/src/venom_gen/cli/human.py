"""Human text derived from the model: a result or stream item shaped by its descriptor
(RFC-0002 §7.3; the rules are rfcs/0004 D-S60 to D-S64).

- `render(descriptor, value)`: one result as text. An object is aligned ``name: value`` lines
  (a nested object indented under ``name:``; ``null`` as ``null``; an empty object or array as
  ``{}`` or ``[]``); an array of scalars is one line, ``a, b, c``; an array of flat objects is a
  table; any other array one block per item; a scalar prints bare. A result that is ``null``
  under a ``null`` descriptor, or an object with nothing in it, prints nothing.
- `Table(fields)`: a table over flat objects whose column widths come from the header and the
  descriptor alone, so rows print as they arrive (D-S62).
- `ItemPrinter(descriptor, write)`: a stream's items as they arrive: rows of one table for
  flat object items (the header before the first row, nothing for an empty stream), else one
  block per item.

Every string from the value is escaped (`venom_gen.cli.terminal`); names and values are
measured in terminal columns (East Asian wide characters count two). The functions are pure
and hold no product state: any client of the family renders through them.
"""

from __future__ import annotations

from venom_proto.stdjson import std_dumps

from .terminal import BOLD, display_width, escape, escape_lines, paint

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would cost every call ~3 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from venom_schema.model import Descriptor, Field

__all__ = ("FREE_WIDTH", "INDENT", "ItemPrinter", "Table", "is_flat_object", "render")

#: Spaces per nesting level.
INDENT = "  "
#: Columns of a table column whose values the descriptor does not bound (D-S62).
FREE_WIDTH = {"string": 24, "integer": 6, "number": 8, "array": 16}
_SCALARS = ("string", "integer", "number", "boolean", "null")
_ELLIPSIS = "\u2026"


def _kind(descriptor: Descriptor | None) -> str:
    return str(descriptor.get("kind", "")) if descriptor is not None else ""


def _inline_descriptor(descriptor: Descriptor) -> bool:
    kind = _kind(descriptor)
    return kind in _SCALARS or (kind == "array" and _kind(descriptor.get("items")) in _SCALARS)


def is_flat_object(descriptor: Descriptor | None) -> bool:
    """Whether ``descriptor`` is an object with fields, each a scalar or an array of scalars:
    the items a table shows one per row."""
    if descriptor is None or _kind(descriptor) != "object":
        return False
    fields = descriptor.get("fields") or []
    return bool(fields) and all(_inline_descriptor(f["type"]) for f in fields)


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return escape(value) if value else '""'  # an empty string stays visible
    if isinstance(value, (int, float)):
        return repr(value)
    try:
        return escape(std_dumps(value).decode("utf-8"))
    except (TypeError, ValueError):
        return escape(repr(value))


def _quoted(text: str) -> str:
    shown = escape(text)
    if not shown or "," in shown or shown != shown.strip() or shown in ("null", "true", "false"):
        return '"' + shown.replace('"', '\\"') + '"'
    return shown


def _inline(value: Any) -> str:
    """One line: a scalar, an array of scalars as ``a, b``, anything deeper as compact JSON."""
    if isinstance(value, list) and all(not isinstance(v, (list, dict)) for v in value):
        if not value:
            return "[]"
        return ", ".join(_quoted(v) if isinstance(v, str) else _scalar(v) for v in value)
    if isinstance(value, dict) and not value:
        return "{}"
    return _scalar(value)


def _fields_of(descriptor: Descriptor | None, value: dict[str, Any]) -> list[tuple[str, Any]]:
    """The descriptor's fields present in ``value``, in declared order, then any others."""
    declared: list[Field] = list(descriptor.get("fields") or []) if descriptor else []
    out: list[tuple[str, Any]] = []
    seen = set()
    for field in declared:
        name = field["name"]
        if name in value:
            out.append((name, field["type"]))
            seen.add(name)
    out.extend((str(name), None) for name in value if name not in seen)
    return out


def _object_lines(
    descriptor: Descriptor | None, value: dict[str, Any], pad: str, colour: bool
) -> list[str]:
    fields = _fields_of(descriptor, value)
    width = max((display_width(escape(name)) for name, _ in fields), default=0)
    lines: list[str] = []
    for name, field_type in fields:
        item = value[name]
        label = escape(name) + ":"
        if isinstance(item, dict) and item:
            lines.append(pad + label)
            lines += _object_lines(field_type, item, pad + INDENT, colour)
            continue
        if isinstance(item, list) and item and any(isinstance(v, (dict, list)) for v in item):
            lines.append(pad + label)
            items = field_type.get("items") if field_type else None
            lines += _array_lines(items, item, pad + INDENT, colour)
            continue
        label += " " * (width - display_width(escape(name)) + 1)
        if isinstance(item, str) and "\n" in item:
            first, *rest = escape_lines(item).split("\n")
            lines.append(pad + label + first)
            lines += [pad + " " * display_width(label) + line for line in rest]
        else:
            lines.append(pad + label + _inline(item))
    return lines


def _array_lines(
    descriptor: Descriptor | None, value: list[Any], pad: str, colour: bool
) -> list[str]:
    """An array of objects or arrays: a table when the items are flat objects, else blocks."""
    if all(isinstance(v, dict) for v in value) and (
        is_flat_object(descriptor) or (descriptor is None and _flat_values(value))
    ):
        table = Table(_table_fields(descriptor, value), colour=colour)
        return [pad + line for line in (table.header(), *map(table.row, value))]
    lines: list[str] = []
    for i, item in enumerate(value):
        if i and isinstance(item, dict):
            lines.append("")
        lines += _block(descriptor, item, pad, colour)
    return lines


def _flat_values(values: list[Any]) -> bool:
    # Objects without a descriptor (extra fields): flat when every value is inline.
    return all(_is_inline_value(v) for item in values for v in item.values())


def _is_inline_value(value: Any) -> bool:
    if isinstance(value, list):
        return all(not isinstance(v, (list, dict)) for v in value)
    return not isinstance(value, dict)


def _table_fields(descriptor: Descriptor | None, values: list[Any]) -> list[Field]:
    if descriptor is not None and is_flat_object(descriptor):
        return list(descriptor.get("fields") or [])
    names: dict[str, None] = {}
    for item in values:
        names.update(dict.fromkeys(item))
    return [
        {"name": n, "summary": "", "type": {"kind": "string"}, "required": False} for n in names
    ]


def _block(descriptor: Descriptor | None, value: Any, pad: str, colour: bool) -> list[str]:
    if isinstance(value, dict):
        return _object_lines(descriptor, value, pad, colour) if value else [pad + "{}"]
    if isinstance(value, list) and value and any(isinstance(v, (dict, list)) for v in value):
        items = descriptor.get("items") if descriptor else None
        return _array_lines(items, value, pad, colour)
    if isinstance(value, str) and "\n" in value:
        return [pad + line for line in escape_lines(value).split("\n")]
    return [pad + _inline(value)]


def render(descriptor: Descriptor | None, value: Any, *, colour: bool = False) -> str:
    """``value`` (a result valid for ``descriptor``) as human text: lines, each ending in a
    newline, or ``""`` when there is nothing to say (an empty object, a ``null`` result)."""
    if value is None and _kind(descriptor) == "null":
        return ""
    if isinstance(value, dict) and not value:
        return ""
    return "".join(line + "\n" for line in _block(descriptor, value, "", colour))


class Table:
    """A table over flat objects: a header of the field names, then one row per object.

    Each column is as wide as the widest of its header and its descriptor's bound: a boolean
    5, a bounded integer its widest bound, a string with choices its widest choice, else
    `FREE_WIDTH` by kind. A longer string or array cell is cut to the column with ``…``; a
    number is never cut (it pushes the rest of its row right), and the last column is neither
    padded nor cut, so the rows never need to be seen before the first prints.
    """

    __slots__ = ("colour", "names", "widths")

    def __init__(self, fields: list[Field], *, colour: bool = False) -> None:
        self.names = [f["name"] for f in fields]
        self.widths = [max(display_width(escape(f["name"])), _column(f["type"])) for f in fields]
        self.colour = colour

    def header(self) -> str:
        """The header line (bold when colour is on), without a newline."""
        cells = [escape(name) for name in self.names]
        return paint(self._join(cells, cut=False), BOLD, self.colour)

    def row(self, value: dict[str, Any]) -> str:
        """One object's row, without a newline; a missing field shows as nothing."""
        cells = [_inline(value[n]) if n in value else "" for n in self.names]
        return self._join(cells, cut=True, numeric=[_is_number(value.get(n)) for n in self.names])

    def _join(self, cells: list[str], *, cut: bool, numeric: list[bool] | None = None) -> str:
        last = len(cells) - 1
        parts = []
        for i, (cell, width) in enumerate(zip(cells, self.widths, strict=True)):
            if i == last:
                parts.append(cell)
                break
            shown = display_width(cell)
            if cut and shown > width and not (numeric and numeric[i]):
                cell, shown = _cut(cell, width)
            parts.append(cell + " " * max(width - shown, 0))
        return "  ".join(parts).rstrip(" ")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _cut(text: str, width: int) -> tuple[str, int]:
    """The longest start of ``text`` that fits ``width - 1`` columns, then ``…``."""
    out, used = [], 0
    for char in text:
        w = display_width(char)
        if used + w > width - 1:
            break
        out.append(char)
        used += w
    return "".join(out) + _ELLIPSIS, used + 1


def _column(descriptor: Descriptor) -> int:
    kind = _kind(descriptor)
    if kind == "boolean":
        return 5
    if kind == "null":
        return 4
    if kind == "string" and descriptor.get("choices"):
        return max(display_width(escape(c)) for c in descriptor.get("choices") or [""])
    if kind == "integer" and "min" in descriptor and "max" in descriptor:
        return max(len(repr(descriptor["min"])), len(repr(descriptor["max"])))
    return FREE_WIDTH.get(kind, FREE_WIDTH["string"])


class ItemPrinter:
    """Prints a stream's items as they arrive through ``write`` (text with newlines).

    Flat object items are rows of one `Table`, its header written with the first row (an
    empty stream writes nothing); other items print as `render` shows them, a blank line
    between object blocks.
    """

    __slots__ = ("_count", "_table", "colour", "descriptor", "write")

    def __init__(
        self, descriptor: Descriptor | None, write: Callable[[str], object], *, colour: bool = False
    ) -> None:
        self.descriptor = descriptor
        self.write = write
        self.colour = colour
        flat = descriptor is not None and is_flat_object(descriptor)
        fields = list(descriptor.get("fields") or []) if flat and descriptor else []
        self._table = Table(fields, colour=colour) if flat else None
        self._count = 0

    def item(self, value: Any) -> None:
        """Write one item."""
        table = self._table
        if table is not None and isinstance(value, dict):
            head = table.header() + "\n" if self._count == 0 else ""
            self.write(head + table.row(value) + "\n")
        else:
            text = "".join(line + "\n" for line in _block(self.descriptor, value, "", self.colour))
            gap = "\n" if self._count and isinstance(value, dict) else ""
            self.write(gap + text)
        self._count += 1
