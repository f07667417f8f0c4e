"""The standard bundles compile to exactly the model they compiled to before they became data.

``golden/bundles.model.json`` is the normalized model of a product with no verbs of its own
(every bundle merged), taken from the Python-declared bundles before the move to
``venom_schema/bundles/*.zon``. The digests and cache keys below pin the rest: a product's
digest covers its bundles, and a cached model's staleness key hashes their raw records, so any
drift in them would change every product's ``SCHEMA_DIGEST`` or its committed
``verbs.model.json``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from venom_proto.model_cache import staleness_key
from venom_schema.canonical import digest
from venom_schema.manifest import validate_manifest
from venom_schema.model import Model
from venom_schema.model_cache import _bundle_declarations
from venom_schema.zon import ZonValue

GOLDEN = Path(__file__).parent / "golden" / "bundles.model.json"

#: Bundle selection -> (digest of a product with no verbs, staleness key of manifest ``b"x"``).
VECTORS = {
    ("core",): (
        "sha256:a80d229c35dbb6a9c256d868295d84c9180ef7ed1a170446210b0528d9a8403a",
        "1:4b73dbad7f0bd336f86b1a0c3623c339f46d976f15c242003b2a86d64daf9473",
    ),
    ("core", "agent"): (
        "sha256:faacaa125b4eca44a0cfd5414da0868fbe479ae03e4ad0a71e82e4d75f5a2e50",
        "1:1e1da5a6d35f85e8ca4305a4a9ae500d6be800567a1a000d32b1a461bea82fd8",
    ),
    ("core", "events"): (
        "sha256:5f358d2f24119854cb8a5de6a69429949d512ac9f371d54d241988a44022b2a3",
        "1:ca33cb5931c3fe16ed908387e43e15d0fed6b8b6950dd1778b5038106e018bdb",
    ),
    ("core", "agent", "events"): (
        "sha256:4def67bdff5ece9b6414651b549475d3fffb89428fa966190f251897c8323d62",
        "1:72167afe6a3f2ac64eaea34cbf856aecd920580bb645224d2201ad288ab7c170",
    ),
}


def _empty_product(bundles: tuple[str, ...]) -> Model:
    raw: ZonValue = {"format": 1, "tool": "t", "summary": "S", "verbs": []}
    return validate_manifest(raw, bundles=bundles)


def test_bundles_compile_to_the_golden_model() -> None:
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert _empty_product(("core", "agent", "events")) == golden


@pytest.mark.parametrize("bundles", sorted(VECTORS))
def test_digest_and_cache_key_vectors(bundles: tuple[str, ...]) -> None:
    want_digest, want_key = VECTORS[bundles]
    assert digest(_empty_product(bundles)) == want_digest
    assert staleness_key(b"x", _bundle_declarations(bundles)) == want_key
