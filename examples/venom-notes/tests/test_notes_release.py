"""The release gate (RFC-0004 §7, docs/releasing.md): no breaking change to verbs.zon since the
last release's model (``release/<version>.model.json``) unless the version says so."""

from __future__ import annotations

from pathlib import Path

from venom_gen.testing import newest_release, release_problems
from venom_notes.product import MODEL_PATH, PRODUCT

RELEASES = Path(__file__).resolve().parents[1] / "release"


def test_no_silent_breaking_change_since_the_last_release() -> None:
    manifest = Path(MODEL_PATH).parent / "verbs.zon"
    problems = release_problems(RELEASES, manifest, PRODUCT.version)
    assert not problems, "\n".join(problems)


def test_a_release_model_is_committed() -> None:
    assert newest_release(RELEASES) is not None
