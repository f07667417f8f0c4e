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

from typing import TYPE_CHECKING, Any

from ._checks import ABSENT, Invalid, deep_copy

if TYPE_CHECKING:
    from ._checks import Check

    #: How one field is read: (name, test, argument, required, default, check).
    #: test is "type" (argument: the exact type), "choice" (argument: the allowed strings),
    #: "range" (argument: (type, low, high)) or "nested" (no inline test; ``check`` runs).
    FieldPlan = tuple[str, str, Any, bool, Any, Check]

__all__ = ("compile_function", "generated_object_check", "object_block")

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
    env: dict[str, Any] = {"_slow": slow}
    lines = ["def check(value):", *object_block(plans, "value", None, "v", env, "    ")]
    lines.append("    return _slow(value)")
    check: Check = compile_function(lines, env, "check")
    return check


def compile_function(lines: list[str], env: dict[str, Any], name: str) -> Any:
    """Compile generated source ``lines`` with globals ``env``; return the function ``name``."""
    namespace: dict[str, Any] = {}
    exec(compile("\n".join(lines), f"<venom-schema generated {name}>", "exec"), env, namespace)
    return namespace[name]


def object_block(
    plans: list[FieldPlan],
    src: str,
    dst: str | None,
    tag: str,
    env: dict[str, Any],
    indent: str,
    *,
    reuse: bool = False,
    otherwise: str | None = None,
) -> list[str]:
    """Lines that set ``dst`` to the checked copy of the object in ``src``, or to ``_MISS``.

    ``_MISS`` means "not decided here": the caller must run the closure validator. With ``dst``
    None the block returns the checked value instead, and falls through when undecided. With
    ``reuse`` too (for a value that is encoded at once, never kept: a handler's result), a
    ``src`` of required scalar members only, in declaration order, is its own checked value
    (equal to the copy, member for member and in order) and is returned as it is. It is
    a one-pass ``while`` so that any doubt is a plain ``break``; ``tag`` prefixes its names
    (locals and ``env`` constants), so several blocks can share one function. With ``dst``
    and ``otherwise`` (a statement setting ``dst``, e.g. by the closure validator), every
    undecided exit runs that statement instead, so ``dst`` is set on every path and no
    ``_MISS`` is tested after the block.
    """
    env.update(_A=ABSENT, _MISS=_MISS, _Invalid=Invalid)
    # Required members are counted up front, so only optional ones count as they are met; an
    # object of required members only has its size checked first, with no counter at all, and
    # one with a single optional member checks its size in that member's two branches.
    required = sum(1 for plan in plans if plan[3])
    size = required if len(plans) - required == 1 else None
    lines = [] if dst is None or otherwise else [f"{dst} = _MISS"]
    lines.append(f"while type({src}) is dict:")
    start = len(lines)
    counted = required < len(plans)
    if not counted:
        lines += [f"    if len({src}) != {required}:", "        break"]
    elif size is None:
        lines.append(f"    {tag}n = {required}")
    for i, plan in enumerate(plans):
        lines += _field_lines(f"{tag}{i}", src, tag, plan, env, size)
    if counted and size is None:
        lines += [f"    if {tag}n != len({src}):", "        break"]
    if reuse and dst is None and not counted and all(plan[1] != "nested" for plan in plans):
        lines += _same_lines(plans, src, tag, env)
    else:
        lines += _output_lines(plans, tag, dst)
    if otherwise:
        undecided = [f"{line[: -len('break')]}{otherwise}" for line in lines]
        lines[start:] = [
            part
            for line, miss in zip(lines[start:], undecided[start:], strict=True)
            for part in ((miss, line) if line.strip() == "break" else (line,))
        ]
        lines += ["    break", "else:", f"    {otherwise}"]
    elif dst is not None:
        lines.append("    break")
    return [indent + line for line in lines]


class _Miss:
    __slots__ = ()


_MISS: Any = _Miss()


def _field_lines(
    v: str, src: str, tag: str, plan: FieldPlan, env: dict[str, Any], size: int | None
) -> list[str]:
    """Lines reading one member into ``v``; with ``size`` (the object's only optional member,
    ``size`` required ones), each branch also checks the object's size."""
    name, test, argument, required, default, nested = plan
    if test == "type":
        env[f"_T{v}"] = argument
        condition = f"type({v}) is _T{v}"
    elif test == "choice":
        env[f"_C{v}"] = frozenset(argument)
        condition = f"type({v}) is str and {v} in _C{v}"
    elif test == "range":
        kind, low, high = argument
        env[f"_T{v}"], env[f"_L{v}"], env[f"_H{v}"] = kind, low, high
        condition = f"type({v}) is _T{v} and _L{v} <= {v} <= _H{v}"
    else:
        env[f"_K{v}"] = nested
        condition = ""
    if required:
        # A subscript is cheaper than .get, and a try costs nothing until it raises (3.11).
        lines = ["    try:", f"        {v} = {src}[{name!r}]", "    except KeyError:"]
        lines.append("        break")
        if condition:
            return [*lines, f"    if not ({condition}):", "        break"]
        return [*lines, *_nested_lines(v, "    ")]
    # Membership and a subscript cost less than a .get call, whether the member is there or not.
    lines = [f"    if {name!r} in {src}:", f"        {v} = {src}[{name!r}]"]
    if condition:
        lines += [f"        if not ({condition}):", "            break"]
    else:
        lines += _nested_lines(v, "        ")
    if size is None:
        lines.append(f"        {tag}n += 1")
    else:
        lines += [f"        if len({src}) != {size + 1}:", "            break"]
    if default is not ABSENT:
        # Scalars are shared safely; containers are copied per call, as the closures do.
        env[f"_D{v}"] = default
        fresh = f"_D{v}" if isinstance(default, _SCALAR_DEFAULTS) else f"_copy(_D{v})"
        env["_copy"] = deep_copy
        lines += ["    else:", f"        {v} = {fresh}"]
    else:
        lines += ["    else:", f"        {v} = _A"]
    if size is not None:
        lines += [f"        if len({src}) != {size}:", "            break"]
    return lines


def _nested_lines(v: str, indent: str) -> list[str]:
    lines = ["try:", f"    {v} = _K{v}({v})", "except _Invalid:", "    break"]
    return [indent + line for line in lines]


def _same_lines(plans: list[FieldPlan], src: str, tag: str, env: dict[str, Any]) -> list[str]:
    """Return ``src`` itself when its members are in declaration order, else a copy in it."""
    if len(plans) > 1:
        env[f"_O{tag}"] = tuple(plan[0] for plan in plans)
        return [
            f"    if tuple({src}) == _O{tag}:",
            f"        return {src}",
            *_output_lines(plans, tag, None),
        ]
    return [f"    return {src}"]


def _output_lines(plans: list[FieldPlan], tag: str, dst: str | None) -> list[str]:
    """Build the new object with members in declaration order, absent optionals left out."""
    always = [required or default is not ABSENT for _, _, _, required, default, _ in plans]
    target = "return " if dst is None else f"{dst} = "
    if all(always):
        members = ", ".join(f"{plan[0]!r}: {tag}{i}" for i, plan in enumerate(plans))
        return [f"    {target}{{{members}}}"]
    lines = [f"    {tag}o = {{}}"]
    for i, plan in enumerate(plans):
        if always[i]:
            lines.append(f"    {tag}o[{plan[0]!r}] = {tag}{i}")
        else:
            lines += [f"    if {tag}{i} is not _A:", f"        {tag}o[{plan[0]!r}] = {tag}{i}"]
    return [*lines, f"    {target}{tag}o"]
