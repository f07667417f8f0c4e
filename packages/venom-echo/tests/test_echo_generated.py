"""venom-echo's committed artifacts (generated/) are exactly what venom-gen makes today.

Regenerate with `venom-gen generate --project packages/venom-echo` (the `generate` nox
session).
"""

from __future__ import annotations

from pathlib import Path

from venom_echo.product import MODEL_PATH
from venom_gen.build.artifacts import all_artifacts
from venom_schema.manifest import load_manifest

PACKAGE = Path(MODEL_PATH).parent
GENERATED = PACKAGE / "generated"


def _committed() -> dict[str, bytes]:
    return {
        path.relative_to(GENERATED).as_posix(): path.read_bytes()
        for path in sorted(GENERATED.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def test_generated_files_are_the_expected_set() -> None:
    """No artifact missing and no leftover (e.g. the man page of a removed verb)."""
    expected = set(all_artifacts(load_manifest(PACKAGE / "verbs.zon")))
    assert set(_committed()) == expected


def test_generated_files_are_fresh_byte_for_byte() -> None:
    """RFC-0004 §6: docs, man pages, completions, skill and catalog come from the schema."""
    fresh = all_artifacts(load_manifest(PACKAGE / "verbs.zon"))
    committed = _committed()
    stale = sorted(name for name, text in fresh.items() if committed.get(name) != text.encode())
    assert not stale, f"stale generated files (run nox -s generate): {stale}"


def test_layout_has_every_artifact_kind() -> None:
    """The layout products ship: Markdown, man pages, three completions, skill, catalog, and
    the service manager files."""
    names = set(_committed())
    assert {
        "docs/venom-echo.md",
        "man/venom-echo.1",
        "man/venom-echo-echo.1",
        "completions/venom-echo.bash",
        "completions/_venom-echo",
        "completions/venom-echo.fish",
        "SKILL.md",
        "catalog.json",
        "service/venom-echo.socket",
        "service/venom-echo.service",
        "service/venom.venom-echo.plist",
    } <= names
