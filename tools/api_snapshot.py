"""Each package's public Python API, snapshotted, and a version bump for every change to it.

``api/<package>.json`` records a package's public API as it was at a version: every public
module (a dotted name with no ``_private`` component, ``__main__`` aside), each name of its
``__all__``, and for each name a stub of it (kind, signature, public members), as griffe reads
it from the source, statically. ``--check`` reads the tree the same way and compares the two with
``griffe.find_breaking_changes``:

- **breaking**: a public module or name removed, a parameter removed, renamed, moved, made
  required or given another default, a kind changed, a base class dropped...;
- **compatible**: anything else that differs (names and modules added, a new optional
  parameter, an annotation changed).

A change passes only when the package's version in its ``pyproject.toml`` says so against the
snapshot's (SemVer; docs/releasing.md "The API gate"): a breaking one needs the next minor for
0.x (0.1.3 -> 0.2.0), else the next major; a compatible one passes at the snapshot's version
(the release will bump) or from the next patch for 0.x, else the next minor. ``--update``
retakes the snapshots (at release), and refuses a change the version does not allow, so it
cannot be used to silence the check.

    python -m tools.api_snapshot --check  [--package NAME]...
    python -m tools.api_snapshot --update [--package NAME]...
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

import griffe
from packaging.utils import canonicalize_name
from packaging.version import Version

from tools.release_lowest import released
from tools.workspace import ROOT, Member, members

__all__ = (
    "SNAPSHOTS",
    "Change",
    "Diff",
    "Snapshot",
    "Verdict",
    "compare",
    "judge",
    "main",
    "read",
    "required_version",
    "snapshot_path",
    "take",
    "verdicts",
    "write",
)

#: Where the snapshots live, under the workspace root: one JSON file per package.
SNAPSHOTS = "api"
#: Entry points run as scripts, with nothing to export (as in tests/test_public_faces.py).
SCRIPTS = ("__main__",)

#: One public module: each exported name -> the stub lines that render it.
ModuleApi = dict[str, list[str]]


class Change(Enum):
    """How far a package's API moved from its snapshot, in the order of the bump it needs."""

    NONE = "none"
    COMPATIBLE = "compatible"
    BREAKING = "breaking"


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A package's public API at a version: module -> exported name -> stub lines."""

    package: str
    version: str
    modules: dict[str, ModuleApi]

    def as_json(self) -> str:
        data = {
            "package": self.package,
            "version": self.version,
            "about": "public API snapshot; retake with `python -m tools.api_snapshot --update`",
            "modules": self.modules,
        }
        return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


@dataclass
class Diff:
    """What changed from a snapshot to the tree, one line per finding."""

    breaking: list[str] = field(default_factory=list)
    compatible: list[str] = field(default_factory=list)

    @property
    def change(self) -> Change:
        if self.breaking:
            return Change.BREAKING
        return Change.COMPATIBLE if self.compatible else Change.NONE


@dataclass(frozen=True, slots=True)
class Verdict:
    """One package's API check: whether it passes, a one-line summary, and what to do."""

    package: str
    ok: bool
    summary: str
    problems: tuple[str, ...] = ()


# --- reading the tree -----------------------------------------------------------------------


def _public_modules(module: griffe.Module) -> Iterator[griffe.Module]:
    yield module
    for name, sub in sorted(module.members.items()):
        if sub.is_alias or not sub.is_module or name.startswith("_") or name in SCRIPTS:
            continue
        assert isinstance(sub, griffe.Module)
        yield from _public_modules(sub)


def _exported(module: griffe.Module) -> list[str]:
    """The module's public names: its ``__all__`` when it has one."""
    if module.exports is not None:
        return sorted({str(name) for name in module.exports})
    return sorted(
        n for n, m in module.members.items() if m.is_public and not (m.is_module and not m.is_alias)
    )


def _parameter(param: griffe.Parameter) -> str:
    """``name: annotation = default``, starred as it is written."""
    kinds = griffe.ParameterKind
    star = {kinds.var_positional: "*", kinds.var_keyword: "**"}
    text = (star.get(param.kind, "") if param.kind is not None else "") + param.name
    if param.annotation is not None:
        text += f": {param.annotation}"
    # griffe gives a starred parameter the default its call would see (``()``, ``{}``);
    # written into a stub that is a syntax error, and no caller can pass it anyway.
    if param.default is not None and param.kind not in star:
        text += f" = {param.default}" if param.annotation is not None else f"={param.default}"
    return text


def _parameters(function: griffe.Function) -> str:
    kinds = griffe.ParameterKind
    parts: list[str] = []
    params = list(function.parameters)
    star = any(p.kind is kinds.var_positional for p in params)
    defaulted = False
    for index, param in enumerate(params):
        if param.kind is kinds.keyword_only and not star:
            parts.append("*")
            star = True
        text = _parameter(param)
        positional = param.kind in (kinds.positional_only, kinds.positional_or_keyword)
        if positional and param.default is None and defaulted:
            # A dataclass field(default_factory=...) reaches griffe with no default, though
            # the generated __init__ has one: say so, or the stub would not parse.
            text += " = ..."
        defaulted = defaulted or (positional and param.default is not None)
        parts.append(text)
        following = params[index + 1].kind if index + 1 < len(params) else None
        if param.kind is kinds.positional_only and following is not kinds.positional_only:
            parts.append("/")
    return ", ".join(parts)


def _function(name: str, function: griffe.Function, indent: str) -> list[str]:
    lines: list[str] = []
    for overload in function.overloads or ():
        lines += [f"{indent}@overload", *_def(name, overload, indent)]
    return lines + _def(name, function, indent)


def _def(name: str, function: griffe.Function, indent: str) -> list[str]:
    decorators = [f"{indent}@{d}" for d in ("staticmethod", "classmethod") if d in function.labels]
    keyword = "async def" if "async" in function.labels else "def"
    returns = f" -> {function.returns}" if function.returns is not None else ""
    return [*decorators, f"{indent}{keyword} {name}({_parameters(function)}){returns}: ..."]


def _attribute(name: str, attribute: griffe.Attribute, indent: str) -> list[str]:
    annotation = attribute.annotation
    if "property" in attribute.labels:
        returns = f" -> {annotation}" if annotation is not None else ""
        return [f"{indent}@property", f"{indent}def {name}(self){returns}: ..."]
    # The value is left out: a constant's value (a digest, a version) is not its interface.
    return [f"{indent}{name}: {annotation}" if annotation is not None else f"{indent}{name} = ..."]


def _class(name: str, cls: griffe.Class, indent: str) -> list[str]:
    bases = ", ".join(str(base) for base in cls.bases)
    lines = [f"{indent}class {name}({bases}):" if bases else f"{indent}class {name}:"]
    body: list[str] = []
    for member_name, member in sorted(cls.members.items()):
        dunder = member_name.startswith("__") and member_name.endswith("__")
        if member.is_alias or not member.is_public or (dunder and not member.is_function):
            continue
        body += _render(member_name, member, indent + "    ")
    return lines + (body or [f"{indent}    ..."])


def _render(name: str, obj: griffe.Object | griffe.Alias, indent: str = "") -> list[str]:
    """Stub lines for ``obj`` exported as ``name``: a re-export is shown as what it points to."""
    if isinstance(obj, griffe.Alias):
        alias = obj
        try:
            obj = alias.final_target
        except (griffe.AliasResolutionError, griffe.CyclicAliasError):
            if alias.target_path.partition(".")[0] in alias.modules_collection.members:
                # Ours, but bound where griffe cannot follow (``A, B = 1, 2``): shape unknown,
                # and never the private module it lives in, which may move freely.
                return [f"{indent}{name} = ...  # not read statically"]
            # Outside the workspace (the standard library, pydantic): the import is the API.
            parent, _, target = alias.target_path.rpartition(".")
            return [f"{indent}from {parent} import {target} as {name}"]
    if isinstance(obj, griffe.Module):
        parent, _, target = obj.path.rpartition(".")
        return [f"{indent}from {parent} import {target} as {name}"]
    if isinstance(obj, griffe.Class):
        return _class(name, obj, indent)
    if isinstance(obj, griffe.Function):
        return _function(name, obj, indent)
    if isinstance(obj, griffe.Attribute):
        return _attribute(name, obj, indent)
    return [f"{indent}{name} = ...  # {obj.kind.value}"]


def _module_api(module: griffe.Module) -> ModuleApi:
    api: ModuleApi = {}
    for name in _exported(module):
        member = module.members.get(name)
        # Exported but not found statically (built in a PEP 562 __getattr__, say): the name
        # is still the API, its shape unknown.
        api[name] = (
            _render(name, member)
            if member is not None
            else [f"{name} = ...  # not read statically"]
        )
    return api


def take(every: Sequence[Member]) -> dict[str, Snapshot]:
    """Every member's public API as its source says, by package name.

    One loader for all of them, so that a name one package re-exports from another resolves;
    nothing outside the workspace is loaded, so the snapshot is the same in any environment.
    """
    logging.getLogger("griffe").setLevel(logging.ERROR)
    loader = griffe.GriffeLoader(
        search_paths=[m.path / "src" for m in every], allow_inspection=False, store_source=False
    )
    packages = {m.name: loader.load(m.module) for m in every}
    loader.resolve_aliases(implicit=False, external=False)
    taken: dict[str, Snapshot] = {}
    for member in every:
        package = packages[member.name]
        assert isinstance(package, griffe.Module)
        modules = {m.path: _module_api(m) for m in _public_modules(package)}
        taken[member.name] = Snapshot(member.name, member.version, modules)
    return taken


# --- the snapshots on disk ------------------------------------------------------------------


def snapshot_path(root: Path, package: str) -> Path:
    return root / SNAPSHOTS / f"{package}.json"


def read(path: Path) -> Snapshot:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return Snapshot(data["package"], data["version"], data["modules"])


def write(path: Path, snapshot: Snapshot) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(snapshot.as_json(), encoding="utf-8")


# --- comparing ------------------------------------------------------------------------------


def _stub(module: str, api: ModuleApi) -> griffe.Module:
    """The snapshot of one module read back by griffe, so both sides are compared alike."""
    names = ", ".join(repr(name) for name in api)
    code = "\n".join([f"__all__ = ({names},)" if api else "__all__ = ()", *_flatten(api)])
    return griffe.visit(module, filepath=Path(f"{module.replace('.', '/')}.pyi"), code=code)


def _flatten(api: ModuleApi) -> list[str]:
    return [line for lines in api.values() for line in lines]


def _describe(breakage: griffe.Breakage) -> str:
    """``path: what broke[: old -> new]``, without griffe's file locations (a stub's)."""
    what = breakage.kind.value
    old, new = breakage.old_value, breakage.new_value
    if isinstance(breakage, griffe.ObjectRemovedBreakage):
        return f"{breakage.obj.path}: {what}"
    if isinstance(old, griffe.Parameter) or isinstance(new, griffe.Parameter):
        detail = f" ({breakage.details})" if breakage.details else ""
        if old is not None and new is not None:
            return f"{breakage.obj.path}: {what}{detail}: {_shown(old)} -> {_shown(new)}"
        return f"{breakage.obj.path}: {what}: {(old or new).name}"
    if isinstance(breakage, griffe.ObjectChangedKindBreakage):
        return f"{breakage.obj.path}: {what}: {old.value} -> {new.value}"
    if isinstance(breakage, griffe.ClassRemovedBaseBreakage):
        shown = f"[{', '.join(map(str, old))}] -> [{', '.join(map(str, new))}]"
        return f"{breakage.obj.path}: {what}: {shown}"
    return f"{breakage.obj.path}: {what}: {old} -> {new}"


def _shown(param: griffe.Parameter) -> str:
    kind = param.kind or griffe.ParameterKind.positional_or_keyword
    shown = _parameter(param)
    return (
        shown if kind is griffe.ParameterKind.positional_or_keyword else f"{shown} ({kind.value})"
    )


def compare(old: Snapshot, new: Snapshot) -> Diff:
    """Every breaking and compatible change from ``old`` to ``new``, one line each."""
    diff = Diff()
    logging.getLogger("griffe").setLevel(logging.ERROR)
    for module, old_api in sorted(old.modules.items()):
        new_api = new.modules.get(module)
        if new_api is None:
            diff.breaking.append(f"{module}: public module was removed (or made private)")
            continue
        if old_api == new_api:
            continue
        breakages = list(
            griffe.find_breaking_changes(_stub(module, old_api), _stub(module, new_api))
        )
        diff.breaking += sorted({_describe(b) for b in breakages})
        broken = {b.obj.path.removeprefix(module + ".").partition(".")[0] for b in breakages}
        for name in sorted(new_api.keys() - old_api.keys()):
            diff.compatible.append(f"{module}.{name}: added")
        for name in sorted(old_api.keys() & new_api.keys() - broken):
            if old_api[name] != new_api[name]:
                diff.compatible.append(f"{module}.{name}: changed")
    for module in sorted(new.modules.keys() - old.modules.keys()):
        diff.compatible.append(f"{module}: public module added")
    return diff


def _release(version: Version) -> tuple[int, int, int]:
    major, minor, patch = (*version.release, 0, 0)[:3]
    return major, minor, patch


def required_version(base: str, change: Change) -> Version:
    """The lowest version that says ``change`` against a snapshot taken at ``base``.

    0.x: a breaking change needs the next minor, a compatible one the next patch; from 1.0 on,
    the next major and the next minor (SemVer).
    """
    major, minor, patch = _release(Version(base))
    if change is Change.BREAKING:
        return Version(f"0.{minor + 1}.0" if major == 0 else f"{major + 1}.0.0")
    if change is Change.COMPATIBLE:
        return Version(f"0.{minor}.{patch + 1}" if major == 0 else f"{major}.{minor + 1}.0")
    return Version(base)


def judge(member: Member, old: Snapshot, new: Snapshot, root: Path = ROOT) -> Verdict:
    """Whether ``member``'s version allows every change from ``old`` (its snapshot) to ``new``.

    A breaking change needs its bump where it is made; a compatible one passes at the
    snapshot's own version too (not yet released: the release's bump will carry it), and
    otherwise needs a bump big enough for it.
    """
    diff = compare(old, new)
    change = diff.change
    base, current = Version(old.version), Version(member.version)
    needed = required_version(old.version, change)
    snapshot = snapshot_path(root, member.name).relative_to(root)
    if _release(current) < _release(base):
        return Verdict(member.name, False, f"version {current} is older than {snapshot}'s {base}")
    tag = released(root, member.name).get(current)
    if tag is not None and current != base:
        summary = f"{current} is released ({tag}) but {snapshot} is of {base}"
        return Verdict(member.name, False, summary, (f"retake it: `{_update(member)}`",))
    counts = f"{len(diff.breaking)} breaking, {len(diff.compatible)} compatible changes"
    if change is Change.NONE:
        return Verdict(member.name, True, f"API as in {snapshot} ({base})")
    if _release(current) >= _release(needed):
        return Verdict(member.name, True, f"API: {counts} since {base}, allowed by {current}")
    if change is Change.COMPATIBLE and current == base:
        summary = f"API: {counts} since {base}, to be released as {needed} or later"
        return Verdict(member.name, True, summary)
    return Verdict(
        member.name,
        False,
        f"API: {counts}: needs {needed}, is {current}",
        _advice(member, diff, snapshot, base, needed, root),
    )


def _advice(
    member: Member, diff: Diff, snapshot: Path, base: Version, needed: Version, root: Path
) -> tuple[str, ...]:
    """What changed, and the two ways out: restore it, or bump the version that says so."""
    breaking = diff.change is Change.BREAKING
    shown = diff.breaking if breaking else diff.compatible
    what = "breaking" if breaking else "compatible"
    pyproject = (member.path / "pyproject.toml").relative_to(root)
    why = (
        "for 0.x a minor bump marks a breaking change"
        if breaking and needed.major == 0
        else f"SemVer for a {what} change"
    )
    return (
        f"{member.name}: {len(shown)} {what} changes to the public API since {snapshot} "
        f"(taken at {base}), and the version ({member.version}) does not say so:",
        *(f"    {line}" for line in shown),
        f"  fix: restore what changed, or bump {member.name} to {needed} or later ({why}):",
        f"    uv version --package {member.name} --no-sync {needed}   # {pyproject}",
        f"    then: a '## {needed}' section in its CHANGELOG.md"
        + (" saying 'breaking'" if breaking else "")
        + ", dependents' ranges widened to admit it, and the snapshot retaken at release:"
        f" `{_update(member)}` (docs/releasing.md, 'The API gate')",
    )


def _update(member: Member) -> str:
    return f"python -m tools.api_snapshot --update --package {member.name}"


def verdicts(
    chosen: Sequence[Member], root: Path = ROOT, taken: dict[str, Snapshot] | None = None
) -> list[Verdict]:
    """The API check of each of ``chosen`` (the whole workspace is read, for re-exports)."""
    taken = take(members(root)) if taken is None else taken
    found: list[Verdict] = []
    for member in chosen:
        path = snapshot_path(root, member.name)
        if not path.is_file():
            problem = f"no {path.relative_to(root)}: take it with `{_update(member)}`"
            found.append(Verdict(member.name, False, "no API snapshot", (problem,)))
            continue
        found.append(judge(member, read(path), taken[member.name], root))
    return found


# --- the command ----------------------------------------------------------------------------


def _parse(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m tools.api_snapshot",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="compare the tree with the snapshots")
    mode.add_argument("--update", action="store_true", help="retake the snapshots (at release)")
    parser.add_argument("--package", action="append", default=[], help="a package (repeatable)")
    return parser.parse_args(argv)


def main(argv: Sequence[str], root: Path = ROOT) -> int:
    args = _parse(argv)
    every = members(root)
    names = {canonicalize_name(n) for n in args.package}
    unknown = names - {m.name for m in every}
    if unknown:
        print(f"api-snapshot: no package {sorted(unknown)}", file=sys.stderr)
        return 2
    chosen = [m for m in every if not names or m.name in names]
    orphans = [] if names else _orphans(root, every)
    for orphan in orphans:
        print(f"api-snapshot: {orphan} is no workspace package's snapshot", file=sys.stderr)
    taken = take(every)
    failed = len(orphans)
    for verdict in verdicts(chosen, root, taken):
        path = snapshot_path(root, verdict.package)
        if args.update and (verdict.ok or not path.is_file()):
            write(path, taken[verdict.package])
            version = taken[verdict.package].version
            print(f"api-snapshot: wrote {path.relative_to(root)} ({verdict.package} {version})")
            continue
        mark = "ok  " if verdict.ok else "FAIL"
        print(f"api-snapshot: {verdict.package} {mark} {verdict.summary}", flush=True)
        for problem in verdict.problems:
            print(problem, file=sys.stderr)
        failed += not verdict.ok
    return 1 if failed else 0


def _orphans(root: Path, every: Sequence[Member]) -> list[str]:
    known = {snapshot_path(root, m.name) for m in every}
    return [
        str(p.relative_to(root))
        for p in sorted((root / SNAPSHOTS).glob("*.json"))
        if p not in known
    ]


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
