"""``nox -s release-check``: every package built, checked and tested as its users will get it.

For each package (``--package NAME`` to choose; all by default):

0. **api**: its public API against its snapshot, ``api/<package>.json``: a breaking change
   needs the version bump that says so (tools/api_snapshot.py);
1. **build**: ``uv build --package NAME --no-sources``, a wheel and an sdist;
2. **metadata**: both archives checked (tools/release_metadata.py);
3. **alone**: the wheel installed, not editable, into a fresh venv with only its declared
   dependencies: siblings from the fresh wheels (a flat index that shadows PyPI for them),
   others at the lock's versions, plus its ``test`` dependency group; then its own tests run
   from the source tree's ``tests/`` against that install, and fail if any module of a checked
   package was imported from anywhere but the venv's site-packages;
   For a product with a ``release/`` directory, **manifest** first: its ``verbs.zon`` against
   the newest ``release/<version>.model.json``, with the installed venom-gen's
   ``venom_gen.testing.release_problems`` (RFC-0004 §7: a breaking change needs the version's
   bump; docs/releasing.md "The manifest gate"); its own tests hold the same gate;
4. **lowest**: the same with every direct dependency at the lowest version its range allows:
   siblings at their lowest release in range (tools/release_lowest.py), others at the lowest
   on the index (``uv pip install --resolution lowest-direct``), everything else still locked.

    python -m tools.release_check [--package NAME]... [--no-lowest] [--out DIR] [-- PYTEST ARGS]
"""

from __future__ import annotations

import argparse
import base64
import csv
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from packaging.utils import canonicalize_name

from tools.api_snapshot import verdicts
from tools.release_lowest import build_release, picks
from tools.release_metadata import check_sdist, check_wheel
from tools.workspace import ROOT, Member, closure, members

__all__ = ("main",)

PLUGINS = ROOT / "tools" / "pytest_plugins"
#: Marks a scratch directory as ours, so a later run may empty it (and nothing else).
MARKER = ".release-check"
#: pytest's closing line: "476 passed, 3 skipped in 9.71s", "1 error in 0.5s", "no tests ran".
_SUMMARY = re.compile(r"(\d+ (passed|failed|errors?|skipped)|no tests ran)\b.* in [\d.]+s")


@dataclass
class Report:
    """What happened to one package, step by step, for the closing table."""

    member: Member
    steps: list[tuple[str, bool, str]] = field(default_factory=list)

    def add(self, step: str, ok: bool, detail: str) -> bool:
        self.steps.append((step, ok, detail))
        mark = "ok  " if ok else "FAIL"
        print(f"release-check: {self.member.name} {step}: {mark} {detail}", flush=True)
        return ok

    @property
    def ok(self) -> bool:
        return all(ok for _, ok, _ in self.steps)


def _uv() -> str:
    return os.environ.get("UV") or shutil.which("uv") or "uv"


def _run(cmd: Sequence[str], log: Path, cwd: Path, env: dict[str, str] | None = None) -> bool:
    """Run ``cmd`` with its output in ``log``; print the log's tail when it fails."""
    with log.open("w") as out:
        out.write("$ " + " ".join(cmd) + "\n")
        out.flush()
        proc = subprocess.run(
            cmd, stdout=out, stderr=subprocess.STDOUT, cwd=cwd, env=env, check=False
        )
    if proc.returncode != 0:
        lines = log.read_text(errors="replace").splitlines()
        print("\n".join(lines[-40:]), file=sys.stderr)
    return proc.returncode == 0


def _flat_index(directory: Path) -> Path:
    """A uv config whose one extra index is ``directory``: it shadows PyPI for what it holds."""
    config = directory.parent / f"{directory.name}.uv.toml"
    config.write_text(
        f'[[index]]\nname = "{directory.name}"\nurl = "{directory.as_uri()}"\nformat = "flat"\n'
    )
    return config


def _pin_name(line: str) -> str:
    return canonicalize_name(line.partition("==")[0].strip())


def _lock_time() -> str:
    """Just after the newest upload the lock records: the index as it was when it was locked."""
    times = re.findall(r'upload-time = "([^"]+)"', (ROOT / "uv.lock").read_text(encoding="utf-8"))
    newest = max(datetime.fromisoformat(t) for t in times)
    return (newest + timedelta(seconds=1)).isoformat().replace("+00:00", "Z")


def _differing_files(wheel: Path, site: Path) -> list[str]:
    """The files of ``wheel`` that are not installed in ``site`` byte for byte (per its RECORD)."""
    with zipfile.ZipFile(wheel) as archive:
        (record,) = [n for n in archive.namelist() if n.endswith(".dist-info/RECORD")]
        rows = list(csv.reader(io.StringIO(archive.read(record).decode())))
    differ = []
    for path, digest, _size in rows:
        if digest.startswith("sha256="):
            # A wheel's <name>.data/data/ files are installed under the environment's prefix.
            stem, sep, rest = path.partition(".data/data/")
            target = site.parents[2] / rest if sep and "/" not in stem else site / path
            data = target.read_bytes() if target.is_file() else b""
            actual = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            if digest != "sha256=" + actual.decode():
                differ.append(path)
    return differ


def _installed(venv: Path) -> dict[str, str]:
    proc = subprocess.run(
        [_uv(), "pip", "list", "--format", "json", "--python", str(venv)],
        capture_output=True,
        text=True,
        check=True,
    )
    return {canonicalize_name(d["name"]): d["version"] for d in json.loads(proc.stdout)}


def _test_env(venv: Path, modules: list[str]) -> dict[str, str]:
    """The environment of a test run: the venv first on PATH, nothing from the source tree."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONHOME", "PYTHONPATH")}
    inside = [os.environ.get("VIRTUAL_ENV", ""), str(ROOT)]
    path = [
        p
        for p in env.get("PATH", "").split(os.pathsep)
        if p and not p.startswith(tuple(x for x in inside if x))
    ]
    env["PATH"] = os.pathsep.join([str(venv / "bin"), *path])
    env["VIRTUAL_ENV"] = str(venv)
    env["PYTHONPATH"] = str(PLUGINS)
    env["VENOM_RELEASE_MODULES"] = ",".join(modules)
    return env


class Checker:
    """One release-check run: a scratch directory, the lock's pins and every package's report."""

    def __init__(self, out: Path, every: tuple[Member, ...], pytest_args: list[str]) -> None:
        self.out = out
        self.every = every
        self.pytest_args = pytest_args
        self.dist = out / "dist"
        self.logs = out / "logs"
        for directory in (self.dist, self.logs, out / "venvs"):
            directory.mkdir(parents=True, exist_ok=True)
        self.wheels: dict[str, Path] = {}

    def build(self, member: Member, report: Report) -> bool:
        log = self.logs / f"{member.name}-build.log"
        cmd = [
            _uv(),
            "build",
            "--package",
            member.name,
            "--no-sources",
            "--out-dir",
            str(self.dist),
        ]
        if not _run(cmd, log, cwd=ROOT):
            return report.add("build", False, f"uv build failed (see {log})")
        stem = f"{member.name.replace('-', '_')}-{member.version}"
        wheel = self.dist / f"{stem}-py3-none-any.whl"
        sdist = self.dist / f"{stem}.tar.gz"
        if not (wheel.is_file() and sdist.is_file()):
            return report.add("build", False, f"expected {wheel.name} and {sdist.name}")
        self.wheels[member.name] = wheel
        problems = check_wheel(member, wheel) + check_sdist(member, sdist)
        report.add("build", True, f"{wheel.name}, {sdist.name}")
        for problem in problems:
            print(f"    {problem}", file=sys.stderr)
        return report.add("metadata", not problems, f"{len(problems)} problems")

    def export(self, *args: str) -> list[str]:
        """The lock's third-party pins (``name==version ; marker`` lines) that ``args`` select."""
        cmd = [_uv(), "export", "--locked", "--no-emit-workspace", "--no-hashes", "--no-header"]
        proc = subprocess.run(
            [*cmd, "--no-annotate", "--quiet", *args],
            cwd=ROOT,
            check=True,
            capture_output=True,
            text=True,
        )
        return [line for line in proc.stdout.splitlines() if line and not line.startswith("#")]

    def install(self, member: Member, venv: Path, index: Path, *, lowest: bool) -> bool:
        """Install ``member``'s wheel and test group into a fresh ``venv`` from ``index``.

        Everything is held to the lock's versions, except with ``lowest``: then ``member``'s
        direct dependencies resolve to the lowest version their ranges admit, and what they
        need in turn to the highest that existed when the lock was last updated (so the run
        is repeatable), while the test tools stay locked.
        """
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run(
            [_uv(), "venv", "--quiet", "--python", sys.executable, str(venv)], check=True
        )
        pins = self.export("--all-packages", "--all-groups")
        cmd = [_uv(), "pip", "install", "--config-file", str(_flat_index(index))]
        cmd += ["--python", str(venv), str(self.wheels[member.name]), *member.test_requirements]
        # Same name and version as last run, new contents: never take a sibling from the cache.
        for sibling in self.every:
            cmd += ["--refresh-package", sibling.name]
        if lowest:
            runtime = self.export("--package", member.name, "--no-default-groups")
            free = {_pin_name(line) for line in runtime}
            pins = [line for line in pins if _pin_name(line) not in free]
            cmd += [str(r) for r in member.requirements]  # direct, so lowest-direct lowers them
            cmd += ["--resolution", "lowest-direct", "--exclude-newer", _lock_time()]
        constraints = venv.parent / f"{venv.name}.constraints.txt"
        constraints.write_text("\n".join(pins) + "\n")
        cmd += ["--constraints", str(constraints)]
        return _run(cmd, self.logs / f"{venv.name}-install.log", cwd=self.out)

    def modules(self, member: Member) -> list[str]:
        """The modules whose import the plugin checks: ``member``'s first, then its siblings'."""
        return [member.module] + [m.module for m in closure(member, self.every) if m != member]

    def test(self, member: Member, venv: Path) -> tuple[bool, str]:
        """Run ``member``'s own tests with the interpreter of ``venv``; the summary line."""
        log = self.logs / f"{venv.name}-pytest.log"
        cmd = [str(venv / "bin" / "pytest"), "-q", "-p", "no:cacheprovider"]
        cmd += ["-p", "release_installed", str(member.tests.relative_to(ROOT)), *self.pytest_args]
        ok = _run(cmd, log, cwd=ROOT, env=_test_env(venv, self.modules(member)))
        lines = log.read_text(errors="replace").splitlines()
        summary = next((m[0] for line in reversed(lines) if (m := _SUMMARY.search(line))), "")
        return ok, summary or f"pytest failed before its summary (see {log})"

    def expect_installed(
        self, member: Member, venv: Path, index: Path, versions: dict[str, str]
    ) -> str:
        """'' when the venv holds exactly ``member``'s siblings, at ``versions``, each with the
        very files of its wheel in ``index`` (not a cached older build); else what is wrong."""
        installed = _installed(venv)
        wanted = {m.name for m in closure(member, self.every)}
        siblings = {n: v for n, v in installed.items() if n in {m.name for m in self.every}}
        if set(siblings) != wanted:
            return f"installed siblings {sorted(siblings)}, expected {sorted(wanted)}"
        wrong = {n: v for n, v in versions.items() if siblings.get(n) != v}
        if wrong:
            return f"wrong versions installed: {wrong} (have {siblings})"
        (site,) = venv.glob("lib/python*/site-packages")
        for name, version in siblings.items():
            wheel = index / f"{name.replace('-', '_')}-{version}-py3-none-any.whl"
            if differ := _differing_files(wheel, site):
                return f"{name} is not installed from {wheel.name}: {differ[:3]} differ"
        return ""

    def manifest_gate(self, member: Member, venv: Path, report: Report) -> None:
        """The manifest gate with the installed venom-gen, for a product with ``release/``."""
        releases, manifest = member.path / "release", member.module_dir / "verbs.zon"
        if not releases.is_dir() or not manifest.is_file():
            return
        python = str(venv / "bin" / "python")
        proc = subprocess.run(
            [python, "-c", _GATE, str(releases), str(manifest), member.version],
            capture_output=True,
            text=True,
            cwd=self.out,
            check=False,
        )
        ok = proc.returncode == 0
        detail = proc.stdout.strip().splitlines()[0] if ok and proc.stdout.strip() else ""
        if not ok:
            print(proc.stdout + proc.stderr, file=sys.stderr, flush=True)
            detail = "a breaking change the version does not say (RFC-0004 §7)"
        report.add("manifest", ok, detail or "checked")

    def alone(self, member: Member, report: Report) -> dict[str, str]:
        venv = self.out / "venvs" / member.name
        start = time.monotonic()
        if not self.install(member, venv, self.dist, lowest=False):
            report.add("alone", False, "install failed")
            return {}
        problem = self.expect_installed(member, venv, self.dist, {member.name: member.version})
        if problem:
            report.add("alone", False, problem)
            return {}
        self.manifest_gate(member, venv, report)
        ok, summary = self.test(member, venv)
        report.add("alone", ok, f"{summary} ({time.monotonic() - start:.0f} s with install)")
        return _installed(venv)

    def lowest(self, member: Member, report: Report, alone: dict[str, str]) -> None:
        try:
            chosen = picks(member, self.every, ROOT)
        except LookupError as exc:
            report.add("lowest", False, str(exc))
            return
        index = self.out / "lowest-index"
        index.mkdir(exist_ok=True)
        for wheel in self.wheels.values():
            if not (index / wheel.name).exists():
                shutil.copy(wheel, index)
        for pick in chosen:
            print(f"release-check: {member.name} lowest: {pick.describe()}", flush=True)
            if pick.tag is not None:
                build_release(ROOT, pick, self.out / "releases", index, _uv())
        names = {canonicalize_name(r.name) for r in member.requirements}
        venv = self.out / "venvs" / f"{member.name}-lowest"
        start = time.monotonic()
        if not self.install(member, venv, index, lowest=True):
            report.add("lowest", False, "install failed")
            return
        versions: dict[str, str] = {member.name: member.version}
        versions.update((p.sibling.name, str(p.version)) for p in chosen)
        problem = self.expect_installed(member, venv, index, versions)
        if problem:
            report.add("lowest", False, problem)
            return
        installed = _installed(venv)
        shown = ", ".join(f"{n} {installed[n]}" for n in sorted(names))
        if installed == alone:
            report.add("lowest", True, f"{shown}: the same set as alone, tests not run again")
            return
        ok, summary = self.test(member, venv)
        report.add("lowest", ok, f"{shown}: {summary} ({time.monotonic() - start:.0f} s)")


#: Run by a product's installed interpreter: its manifest against its newest release model.
_GATE = """\
import sys
from venom_gen.testing import newest_release, release_problems
problems = release_problems(*sys.argv[1:4])
newest = newest_release(sys.argv[1])
print("\\n".join(problems) or f"no breaking change since {newest[0] if newest else '-'}")
sys.exit(1 if problems else 0)
"""


def _parse(argv: Sequence[str]) -> tuple[argparse.Namespace, list[str]]:
    argv = list(argv)
    rest = argv[argv.index("--") + 1 :] if "--" in argv else []
    argv = argv[: argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(prog="python -m tools.release_check")
    parser.add_argument("--package", action="append", default=[], help="a package (repeatable)")
    parser.add_argument("--no-lowest", action="store_true", help="skip the lowest-versions run")
    parser.add_argument("--out", type=Path, help="scratch directory (default: a fresh temp dir)")
    return parser.parse_args(argv), rest


def main(argv: Sequence[str]) -> int:
    args, pytest_args = _parse(argv)
    every = members()
    names = {canonicalize_name(n) for n in args.package}
    unknown = names - {m.name for m in every}
    if unknown:
        print(f"release-check: no package {sorted(unknown)}", file=sys.stderr)
        return 2
    chosen = [m for m in every if not names or m.name in names]
    needed = [m for m in every if any(m in closure(c, every) for c in chosen)]
    out = (args.out or Path(tempfile.mkdtemp(prefix="venom-release-"))).resolve()
    if out.is_dir() and any(out.iterdir()):
        if not (out / MARKER).is_file():
            print(f"release-check: {out} is not empty and not a release-check dir", file=sys.stderr)
            return 2
        shutil.rmtree(out)  # a previous run's: start clean
    out.mkdir(parents=True, exist_ok=True)
    (out / MARKER).write_text("scratch directory of python -m tools.release_check\n")
    checker = Checker(out, every, pytest_args)
    reports = {m.name: Report(m) for m in needed}
    start = time.monotonic()
    for verdict in verdicts(chosen):  # first: a second, where the rest takes minutes
        reports[canonicalize_name(verdict.package)].add("api", verdict.ok, verdict.summary)
        for problem in verdict.problems:
            print(f"    {problem}", file=sys.stderr, flush=True)
    builds = [checker.build(m, reports[m.name]) for m in needed]  # every one, not the first
    built = all(builds)
    if built:
        for member in chosen:
            installed = checker.alone(member, reports[member.name])
            if not args.no_lowest and installed:
                checker.lowest(member, reports[member.name], installed)
    print(f"\nrelease-check: {len(chosen)} packages in {time.monotonic() - start:.0f} s ({out})")
    for report in reports.values():
        for step, ok, detail in report.steps:
            print(f"  {report.member.name:<13} {step:<9} {'ok  ' if ok else 'FAIL'} {detail}")
    return 0 if built and all(r.ok for r in reports.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
