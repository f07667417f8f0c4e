"""venom-notes' manifest: model and generated docs fresh, every verb bound, scaffold files kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from venom_gen.build.artifacts import all_artifacts
from venom_gen.build.scaffold import scaffold_product
from venom_gen.daemon.app import App
from venom_notes.handlers import handlers
from venom_notes.product import MODEL_PATH, PRODUCT
from venom_notes.store import NoteStore
from venom_proto.model_cache import load_cache_info, load_model
from venom_schema.canonical import digest
from venom_schema.manifest import load_manifest
from venom_schema.surfaces import verbs_on

PACKAGE = Path(MODEL_PATH).parent
REGENERATE = "regenerate: venom-gen generate --project examples/venom-notes"


def test_committed_model_is_fresh() -> None:
    """RFC-0004 §7: verbs.model.json is what verbs.zon normalizes to, digest included."""
    model = load_manifest(PACKAGE / "verbs.zon")
    assert load_model(MODEL_PATH) == model, REGENERATE
    assert load_cache_info(MODEL_PATH)["digest"] == digest(model)


def test_generated_docs_are_fresh() -> None:
    """RFC-0004 §6: docs, man pages, completions, skill and catalog come from the schema."""
    generated = PACKAGE / "generated"
    committed = {
        p.relative_to(generated).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(generated.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert committed == all_artifacts(load_manifest(PACKAGE / "verbs.zon")), REGENERATE


def test_every_daemon_verb_has_exactly_one_handler(tmp_path: Path) -> None:
    """RFC-0004 §2: handlers are bound to exact wire names; none missing, none extra."""
    app = App(PRODUCT, str(tmp_path / "x.sock"))
    store = NoteStore(tmp_path / "notes.db")
    try:
        bound = set(handlers(app, store)) | set(app.shared_handlers())
    finally:
        store.close()
    assert bound == {v["name"] for v in verbs_on(app.model, "daemon")}


def test_grants_are_as_designed() -> None:
    """RFC-0004 §2: writes need the write grant, reads only read."""
    grants = {v["name"]: v["grant"] for v in load_model(MODEL_PATH)["verbs"]}
    assert {name: grants[name] for name in grants if name.startswith("note.")} == {
        "note.add": "write",
        "note.get": "read",
        "note.list": "read",
        "note.remove": "write",
        "note.search": "read",
        "note.watch": "read",
    }


@pytest.mark.parametrize("name", ["product.py", "__main__.py", "__init__.py"])
def test_files_kept_as_scaffolded(tmp_path: Path, name: str) -> None:
    """The tutorial says these stay as `venom-gen new venom-notes` wrote them; keep it true."""
    scaffold_product("venom-notes", tmp_path / "p", standalone=True)
    scaffolded = tmp_path / "p" / "src" / "venom_notes" / name
    assert (PACKAGE / name).read_text() == scaffolded.read_text()
