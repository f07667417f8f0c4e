"""What a built wheel or sdist must carry before it may be uploaded.

The core metadata is parsed and validated by ``packaging.metadata`` (the parser PyPI itself runs
on every upload) and the classifiers are looked up in ``trove-classifiers`` (the list PyPI
accepts); what neither knows is ours: the archive matches its pyproject.toml, README, LICENSE
and CHANGELOG, and holds every module of the source tree.
"""

from __future__ import annotations

import re
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path

import trove_classifiers
from packaging.metadata import Metadata
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from tools.workspace import ROOT, Member

__all__ = ("URL_LABELS", "check_sdist", "check_wheel")

#: The project URLs every package names (PyPI shows these labels with their own icons).
URL_LABELS = ("Homepage", "Documentation", "Source", "Changelog", "Issues")


def _stem(member: Member) -> str:
    return f"{member.name.replace('-', '_')}-{member.version}"


def _source_files(member: Member) -> set[str]:
    """The module's files as the wheel must hold them: ``<module>/...``, caches excluded."""
    return {
        path.relative_to(member.module_dir.parent).as_posix()
        for path in member.module_dir.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    }


def _metadata(member: Member, text: str) -> list[str]:
    try:
        meta = Metadata.from_email(text, validate=True)
    except ExceptionGroup as group:
        return [f"invalid core metadata: {exc}" for exc in group.exceptions]
    except ValueError as exc:
        return [f"invalid core metadata: {exc}"]
    return _compare(member, meta)


def _compare(member: Member, meta: Metadata) -> list[str]:
    problems: list[str] = []

    def need(ok: object, problem: str) -> None:
        if not ok:
            problems.append(problem)

    need(canonicalize_name(meta.name) == member.name, f"Name is {meta.name}")
    need(meta.version == Version(member.version), f"Version is {meta.version}")
    need(Version(meta.metadata_version) >= Version("2.4"), "Metadata-Version before 2.4")
    need(meta.summary, "no Summary")
    need(meta.keywords, "no Keywords")
    need(meta.requires_python is not None, "no Requires-Python")
    need(meta.license_expression, "no License-Expression")
    need(meta.license_files == ["LICENSE"], f"License-File is {meta.license_files}")
    readme = (member.path / "README.md").read_text(encoding="utf-8")
    need(meta.description == readme, "the long description is not the package's README.md")
    need(
        (meta.description_content_type or "").startswith("text/markdown"),
        f"Description-Content-Type is {meta.description_content_type}",
    )
    relative = re.findall(r"\]\((?!https://|#)([^)]*)\)", readme)
    need(not relative, f"README.md links {relative}: PyPI cannot follow relative links")
    declared = {str(r) for r in member.requirements}
    declared |= {
        str(Requirement(f'{r}; extra == "{extra}"')) for extra, reqs in member.extras for r in reqs
    }
    shipped = {str(r) for r in meta.requires_dist or ()}
    need(shipped == declared, f"Requires-Dist {sorted(shipped)} != {sorted(declared)}")
    classifiers = meta.classifiers or []
    for classifier in classifiers:
        need(classifier in trove_classifiers.classifiers, f"unknown classifier {classifier!r}")
        need(
            classifier not in trove_classifiers.deprecated_classifiers,
            f"deprecated classifier {classifier!r}",
        )
        # PEP 639: with a License-Expression, license classifiers are an upload error.
        need(not classifier.startswith("License ::"), f"license classifier {classifier!r}")
        if match := re.fullmatch(r"Programming Language :: Python :: (3\.\d+)", classifier):
            need(
                meta.requires_python is None or match[1] + ".0" in meta.requires_python,
                f"{classifier!r} outside Requires-Python {meta.requires_python}",
            )
    typed = (member.module_dir / "py.typed").is_file()
    need(("Typing :: Typed" in classifiers) == typed, "Typing :: Typed disagrees with py.typed")
    urls = meta.project_urls or {}
    for label in URL_LABELS:
        need(urls.get(label, "").startswith("https://"), f"no https Project-URL {label!r}")
    changelog = (member.path / "CHANGELOG.md").read_text(encoding="utf-8")
    need(
        re.search(rf"^## {re.escape(member.version)}\b", changelog, re.MULTILINE),
        f"CHANGELOG.md has no '## {member.version}' section",
    )
    return problems


def _license_problems(text: bytes | None, where: str) -> list[str]:
    if text is None:
        return [f"no {where}"]
    if text != (ROOT / "LICENSE").read_bytes():
        return [f"{where} differs from the repository's LICENSE"]
    return []


def check_wheel(member: Member, wheel: Path) -> list[str]:
    """Every problem with ``wheel`` as a release of ``member`` (empty when it may ship)."""
    info = f"{_stem(member)}.dist-info"
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        if f"{info}/METADATA" not in names:
            return [f"no {info}/METADATA"]
        problems = _metadata(member, archive.read(f"{info}/METADATA").decode())
        license_name = f"{info}/licenses/LICENSE"
        license_text = archive.read(license_name) if license_name in names else None
        problems += _license_problems(license_text, license_name)
        wheel_meta = Parser().parsestr(archive.read(f"{info}/WHEEL").decode())
    problems += [f"{name} is not in the wheel" for name in sorted(_source_files(member) - names)]
    # Products ship their man pages as wheel data (installed under <prefix>/share/man/man1).
    data = f"{_stem(member)}.data/data/share/man/man1/"
    allowed = (f"{member.module}/", f"{info}/", data)
    # (the backend also lists the data tree's directories: those on the way to it are fine)
    stray = [
        n
        for n in names
        if not n.startswith(allowed) and not (n.endswith("/") and data.startswith(n))
    ]
    problems += [f"{name} does not belong in the wheel" for name in sorted(stray)]
    if wheel_meta.get("Root-Is-Purelib") != "true" or wheel_meta.get("Tag") != "py3-none-any":
        problems.append("not a pure py3-none-any wheel")
    return problems


def check_sdist(member: Member, sdist: Path) -> list[str]:
    """Every problem with ``sdist`` as a release of ``member`` (empty when it may ship)."""
    base = _stem(member)
    with tarfile.open(sdist) as archive:
        files = {m.name.removeprefix(f"{base}/"): m for m in archive.getmembers() if m.isfile()}

        def read(name: str) -> bytes | None:
            handle = archive.extractfile(files[name]) if name in files else None
            return handle.read() if handle is not None else None

        pkg_info = read("PKG-INFO")
        if pkg_info is None:
            return [f"no {base}/PKG-INFO"]
        problems = _metadata(member, pkg_info.decode())
        problems += _license_problems(read("LICENSE"), f"{base}/LICENSE")
        for name in ("pyproject.toml", "README.md", "CHANGELOG.md"):
            if name not in files:
                problems.append(f"no {base}/{name}")
    sources = {f"src/{name}" for name in _source_files(member)}
    problems += [f"{name} is not in the sdist" for name in sorted(sources - set(files))]
    return problems
