"""The rules of RFC-0004 §7 and D-S42..D-S49, over two normalized models.

Inputs (params, their nested fields and items) may widen and never narrow; outputs (result,
stream item, error data) must not change at all but for their summaries (D-S43: the CLI and
the MCP adapter validate what a daemon answers against their own, closed, model).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, TypeAlias

from venom_schema.grants import grants_within
from venom_schema.model import Descriptor, Error, Field, Model, Verb

__all__ = ("Found", "diff_models")

#: ``(verb, path, kind, breaking, message)``: a `venom_schema.compat.Change`'s members.
Found: TypeAlias = tuple[str, str, str, bool, str]

BREAKS = True
KEEPS = False


def diff_models(old: Model, new: Model) -> Iterator[Found]:
    """Every difference from ``old`` to ``new``: root members, then verbs by wire name."""
    for member in ("format", "tool"):
        if old.get(member) != new.get(member):
            was, now = old.get(member), new.get(member)
            yield "", member, f"{member}.changed", BREAKS, f"{member} {was!r} became {now!r}"
    if old.get("summary") != new.get("summary"):
        yield "", "summary", "doc.summary", KEEPS, "summary changed"
    old_verbs = {v["name"]: v for v in old["verbs"]}
    new_verbs = {v["name"]: v for v in new["verbs"]}
    for name in sorted(old_verbs.keys() | new_verbs.keys()):
        before, after = old_verbs.get(name), new_verbs.get(name)
        if after is None:
            yield name, "", "verb.removed", BREAKS, "verb removed (or renamed)"
        elif before is None:
            yield name, "", "verb.added", KEEPS, "verb added"
        else:
            for path, kind, breaking, message in _verb(before, after):
                yield name, path, kind, breaking, message


Local: TypeAlias = tuple[str, str, bool, str]


def _verb(old: Verb, new: Verb) -> Iterator[Local]:
    if old["summary"] != new["summary"]:
        yield "summary", "doc.summary", KEEPS, "summary changed"
    yield from _grant(old["grant"], new["grant"])
    yield from _fields(old["params"], new["params"], "params", output=False)
    if old["streams"] != new["streams"]:
        now = "streams" if new["streams"] else "no longer streams"
        yield "streams", "stream.changed", BREAKS, f"the verb {now} (a stream made plain or back)"
    else:
        yield from _descriptor(old["result"], new["result"], "result", output=True)
        if "item" in old and "item" in new:
            yield from _descriptor(old["item"], new["item"], "item", output=True)
    if old["exit"] != new["exit"]:
        yield "exit", "exit.changed", BREAKS, f"exit policy {_exit(old)} became {_exit(new)}"
    yield from _errors(old["errors"], new["errors"])
    if old["examples"] != new["examples"]:
        yield "examples", "doc.examples", KEEPS, "examples changed"
    if old.get("destructive") != new.get("destructive"):
        marked = bool(new.get("destructive"))
        yield "destructive", "annotation.destructive", KEEPS, f"destructive is now {marked}"
    yield from _origin(old, new)


def _exit(verb: Verb) -> str:
    policy = verb["exit"]
    return policy["kind"] + (f" ({policy['field']})" if "field" in policy else "")


def _grant(old: str, new: str) -> Iterator[Local]:
    if old == new:
        return
    if new in grants_within(old):
        yield "grant", "grant.weaker", KEEPS, f"grant {old} became the weaker {new}"
    elif old in grants_within(new):
        yield "grant", "grant.stronger", BREAKS, f"grant {old} became the stronger {new}"
    else:  # incomparable middle grants: a caller holding the old one lacks the new one
        yield "grant", "grant.other", BREAKS, f"grant {old} became {new}, which it does not imply"


def _origin(old: Verb, new: Verb) -> Iterator[Local]:
    if old.get("shared") != new.get("shared"):
        source = f"{old.get('shared', 'the product')} -> {new.get('shared', 'the product')}"
        yield "shared", "origin.shared", KEEPS, f"declared by {source}"
    before, after = old.get("dispatch"), new.get("dispatch")
    if before != after:
        # A verb that starts dispatching locally (or in the transport) leaves the daemon and
        # MCP surfaces; one that stops doing so only joins them.
        message = f"dispatch {before or 'daemon'} -> {after or 'daemon'}"
        yield "dispatch", "dispatch.changed", after is not None, message


def _errors(old: Sequence[Error], new: Sequence[Error]) -> Iterator[Local]:
    before = {e["code"]: e for e in old}
    after = {e["code"]: e for e in new}
    for code in sorted(before.keys() | after.keys()):
        path = f"errors[{code}]"
        if code not in after:
            yield path, "error.removed", KEEPS, "declared error removed"
        elif code not in before:
            yield path, "error.added", KEEPS, "declared error added"
        else:
            if before[code]["summary"] != after[code]["summary"]:
                yield f"{path}.summary", "doc.summary", KEEPS, "summary changed"
            yield from _descriptor(before[code]["data"], after[code]["data"], f"{path}.data", True)


def _fields(
    old: Sequence[Field], new: Sequence[Field], path: str, *, output: bool
) -> Iterator[Local]:
    before = {f["name"]: f for f in old}
    after = {f["name"]: f for f in new}
    for name in [f["name"] for f in old] + [f["name"] for f in new if f["name"] not in before]:
        where = f"{path}[{name}]"
        was, now = before.get(name), after.get(name)
        if now is None:
            yield where, "field.removed", BREAKS, _removed(was, output)
        elif was is None:
            yield _added(where, now, output)
        else:
            yield from _field(was, now, where, output=output)
    if [n for n in before if n in after] != [n for n in after if n in before]:
        yield path, "doc.order", KEEPS, "fields reordered"


def _removed(field: Field | None, output: bool) -> str:
    if output:
        return "field removed from the output"
    return "param removed: callers that pass it are refused (invalid_params.unknown)"


def _added(where: str, field: Field, output: bool) -> Local:
    if output:
        # D-S43: a client validating against the old closed object refuses the new member.
        return where, "output.field_added", BREAKS, "field added to a closed output object"
    if field["required"]:
        return where, "param.added_required", BREAKS, "new required param"
    return where, "param.added_optional", KEEPS, "new optional param"


def _field(old: Field, new: Field, where: str, *, output: bool) -> Iterator[Local]:
    if old["summary"] != new["summary"]:
        yield f"{where}.summary", "doc.summary", KEEPS, "summary changed"
    if old["required"] != new["required"]:
        if output:
            yield (
                where,
                "output.required",
                BREAKS,
                f"required {old['required']} -> {new['required']}",
            )
        elif new["required"]:
            yield where, "param.required", BREAKS, "optional param made required"
        else:
            yield where, "param.optional", KEEPS, "required param made optional"
    if ("default" in old, old.get("default")) != ("default" in new, new.get("default")):
        yield where + ".default", "default.changed", BREAKS, _default(old, new)
    yield from _descriptor(old["type"], new["type"], f"{where}.type", output)


def _default(old: Field, new: Field) -> str:
    if "default" not in new:
        return f"default {_json(old.get('default'))} removed"
    if "default" not in old:
        return f"default {_json(new.get('default'))} added"
    return f"default {_json(old.get('default'))} became {_json(new.get('default'))}"


def _json(value: Any) -> str:
    from venom_schema.canonical import canonical_json

    text = canonical_json(value).decode("utf-8")
    return text if len(text) <= 40 else text[:37] + "..."


def _descriptor(old: Descriptor, new: Descriptor, path: str, output: bool) -> Iterator[Local]:
    if old["kind"] != new["kind"]:
        widened = not output and (old["kind"], new["kind"]) == ("integer", "number")
        message = f"type {old['kind']} became {new['kind']}"
        yield path, "type.kind", not widened, message
        return
    if bool(old.get("nullable")) != bool(new.get("nullable")):
        now = "nullable" if new.get("nullable") else "no longer nullable"
        yield path, "type.nullable", BREAKS, f"the {path.rsplit('.', 1)[-1]} is {now}"
    kind = old["kind"]
    if kind == "string":
        yield from _choices(old.get("choices"), new.get("choices"), path, output)
    elif kind in ("integer", "number"):
        yield from _bound(old, new, "min", path, output)
        yield from _bound(old, new, "max", path, output)
    elif kind == "array":
        yield from _descriptor(old["items"], new["items"], f"{path}.items", output)
    elif kind == "object":
        yield from _fields(old["fields"], new["fields"], f"{path}.fields", output=output)


def _choices(
    old: list[str] | None, new: list[str] | None, path: str, output: bool
) -> Iterator[Local]:
    where = f"{path}.choices"
    if old == new:
        return
    if new is None:  # any string now
        yield where, "type.choices_dropped", output, "choices dropped: any string"
        return
    if old is None:
        yield where, "type.choices_added", BREAKS, f"now restricted to {', '.join(new)}"
        return
    for choice in old:
        if choice not in new:
            yield where, "type.choice_removed", BREAKS, f"choice {choice!r} removed"
    for choice in new:
        if choice not in old:
            yield where, "type.choice_added", output, f"choice {choice!r} added"
    if [c for c in old if c in new] != [c for c in new if c in old]:
        yield where, "doc.order", KEEPS, "choices reordered"


def _bound(
    old: Descriptor, new: Descriptor, bound: str, path: str, output: bool
) -> Iterator[Local]:
    was: float | None = old.get(bound)  # type: ignore[assignment]
    now: float | None = new.get(bound)  # type: ignore[assignment]
    if was == now and type(was) is type(now):
        return
    where = f"{path}.{bound}"
    sign = 1 if bound == "min" else -1  # a raised min or a lowered max narrows
    if now is None:
        narrowed = False
        message = f"{bound} {was} removed"
    elif was is None:
        narrowed = True
        message = f"{bound} {now} added"
    else:
        narrowed = (now - was) * sign > 0
        message = f"{bound} {was} became {now}"
    if output:
        yield where, "output.range", BREAKS, message
    elif narrowed:
        yield where, "type.narrowed", BREAKS, message
    else:
        yield where, "type.widened", KEEPS, message
