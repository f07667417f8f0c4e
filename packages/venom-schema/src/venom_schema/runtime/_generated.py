"""Generated object checks: one straight-line Python function per object descriptor.

The closure validators (``_steps``, ``_objects``) cost a call per field plus the object's own
frame; on the daemon's hot path that was most of the validation time of a typical request. For
long-running processes the registry asks for a generated check instead: the source text of one
function that reads every field inline, built from the same field plans and compiled once.

The generated function only ever *accepts*. Its inline tests are strict subsets of the closures'
(exact types, in-range values, allowed choices, no unknown members); on anything else, including
a nested check that raises, it returns ``slow(value)``, the closure validator, which re-checks the
whole value and produces the precise error. So both agree on every input by construction, and a
differential test checks that they do.
"""

from __future__ import annotations

from ._errors import Invalid
from ._steps import ABSENT

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would cost every CLI call ~3 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ._scalars import Check

    #: How one field is read: (name, test, argument, required, default, check).
    #: test is "type" (argument: the exact type), "choice" (argument: the allowed strings),
    #: "range" (argument: (type, low, high)) or "nested" (no inline test; ``check`` runs).
    FieldPlan = tuple[str, str, Any, bool, Any, Check]

__all__ = ("generated_object_check",)

# Generated functions beyond this many fields gain little and cost compile time.
MAX_FIELDS = 32
_SCALAR_DEFAULTS = (str, bool, int, float, type(None))


def generated_object_check(plans: list[FieldPlan], slow: Check) -> Check:
    """A check with the result of ``slow`` on every input, faster on the valid ones it knows.

    ``slow`` must be pure (the closure validator of the same object): it runs again from the
    start whenever the generated code meets anything beyond its inline tests.
    """
    if len(plans) > MAX_FIELDS:
        return slow
    env: dict[str, Any] = {"_A": ABSENT, "_Invalid": Invalid, "_slow": slow}
    lines = ["def check(value):", "    if type(value) is not dict:", "        return _slow(value)"]
    lines.append("    n = 0")
    for i, plan in enumerate(plans):
        lines += _field_lines(i, plan, env)
    lines += ["    if n != len(value):", "        return _slow(value)"]
    lines += _output_lines(plans)
    namespace: dict[str, Any] = {}
    exec(compile("\n".join(lines), "<venom-schema generated check>", "exec"), env, namespace)
    check: Check = namespace["check"]
    return check


def _field_lines(i: int, plan: FieldPlan, env: dict[str, Any]) -> list[str]:
    name, test, argument, required, default, nested = plan
    v = f"v{i}"
    lines = [f"    {v} = value.get({name!r}, _A)"]
    if test == "type":
        env[f"_T{i}"] = argument
        condition = f"type({v}) is _T{i}"
    elif test == "choice":
        env[f"_C{i}"] = frozenset(argument)
        condition = f"type({v}) is str and {v} in _C{i}"
    elif test == "range":
        kind, low, high = argument
        env[f"_T{i}"], env[f"_L{i}"], env[f"_H{i}"] = kind, low, high
        condition = f"type({v}) is _T{i} and _L{i} <= {v} <= _H{i}"
    else:
        env[f"_K{i}"] = nested
        condition = f"{v} is not _A"
    lines += [f"    if {condition}:", "        n += 1"]
    if test == "nested":
        lines += [
            "        try:",
            f"            {v} = _K{i}({v})",
            "        except _Invalid:",
            "            return _slow(value)",
        ]
    else:
        lines += [f"    elif {v} is not _A:", "        return _slow(value)"]
    if required:
        lines += ["    else:", "        return _slow(value)"]
    elif default is not ABSENT:
        # Scalars are shared safely; containers are copied per call, as the closures do.
        env[f"_D{i}"] = default
        fresh = f"_D{i}" if isinstance(default, _SCALAR_DEFAULTS) else f"_copy(_D{i})"
        env["_copy"] = _deep_copy
        lines += ["    else:", f"        {v} = {fresh}"]
    return lines


def _output_lines(plans: list[FieldPlan]) -> list[str]:
    """Build the new object with members in declaration order, absent optionals left out."""
    always = [required or default is not ABSENT for _, _, _, required, default, _ in plans]
    if all(always):
        members = ", ".join(f"{plan[0]!r}: v{i}" for i, plan in enumerate(plans))
        return [f"    return {{{members}}}"]
    lines = ["    out = {}"]
    for i, plan in enumerate(plans):
        if always[i]:
            lines.append(f"    out[{plan[0]!r}] = v{i}")
        else:
            lines += [f"    if v{i} is not _A:", f"        out[{plan[0]!r}] = v{i}"]
    return [*lines, "    return out"]


def _deep_copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _deep_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_deep_copy(v) for v in value]
    return value
