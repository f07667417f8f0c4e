"""venom-notes is declared in Python: its committed verbs.zon is the declaration's export.

RFC-0004 §2: the compiled declaration passes the same validator and gives the same model, so
the model cache, the generated files and the daemon's digest are those of the exported file.
"""

from __future__ import annotations

from pathlib import Path

from venom_gen.build.zon_export import exported_zon
from venom_notes.declaration import DECLARATION
from venom_notes.product import MODEL_PATH
from venom_proto.model_cache import load_model
from venom_schema.canonical import canonical_json, digest
from venom_schema.manifest import load_manifest

SPEC = "venom_notes.declaration:DECLARATION"
ZON = Path(MODEL_PATH).with_name("verbs.zon")
REGENERATE = "regenerate: venom-gen generate --project examples/venom-notes"


def test_committed_verbs_zon_is_the_declarations_export() -> None:
    assert ZON.read_text(encoding="utf-8") == exported_zon(DECLARATION, SPEC), REGENERATE


def test_declaration_and_its_export_give_one_model() -> None:
    from_python = DECLARATION.model(source=SPEC)
    assert canonical_json(from_python) == canonical_json(load_manifest(ZON))
    assert digest(from_python) == digest(load_model(MODEL_PATH))
