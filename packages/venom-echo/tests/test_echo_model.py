"""venom-echo's manifest: valid, its committed model fresh, every verb with a handler."""

from __future__ import annotations

import json
from pathlib import Path

from venom_echo.product import MODEL_PATH, PRODUCT
from venom_proto.model_cache import load_cache_info, load_model
from venom_schema.canonical import digest
from venom_schema.manifest import load_manifest
from venom_schema.surfaces import verbs_on

ZON = Path(MODEL_PATH).with_name("verbs.zon")


def test_committed_model_is_fresh() -> None:
    """verbs.model.json is what verbs.zon normalizes to today (regenerate: nox -s generate)."""
    model = load_manifest(ZON)
    assert load_model(MODEL_PATH) == model
    assert load_cache_info(MODEL_PATH)["digest"] == digest(model)


def test_rfc_echo_verb_is_unchanged() -> None:
    """RFC-0004 §1: the echo verb is the RFC's, member for member."""
    echo = next(v for v in load_model(MODEL_PATH)["verbs"] if v["name"] == "echo")
    assert echo["params"] == [
        {
            "name": "text",
            "summary": "Text to return",
            "type": {"kind": "string"},
            "required": True,
        },
        {
            "name": "style",
            "summary": "Output casing",
            "type": {"kind": "string", "choices": ["plain", "upper"]},
            "required": False,
            "default": "plain",
        },
    ]
    assert echo["grant"] == "read"
    assert echo["streams"] is False
    assert echo["examples"] == [
        {"params": {"text": "hi"}, "result": {"text": "hi"}},
        {"params": {"text": "hi", "style": "upper"}, "result": {"text": "HI"}},
    ]


def test_every_daemon_verb_has_exactly_one_handler(tmp_path: Path) -> None:
    """RFC-0004 §2: handlers are bound to exact wire names; none missing, none extra."""
    from venom_echo.handlers import handlers
    from venom_gen.daemon.app import App

    model = load_model(MODEL_PATH)
    app = App(PRODUCT, str(tmp_path / "x.sock"))
    bound = set(handlers(app)) | set(app.shared_handlers())
    assert bound == {v["name"] for v in verbs_on(model, "daemon")}


def test_model_file_is_plain_json_readable_without_venom() -> None:
    data = json.loads(Path(MODEL_PATH).read_text(encoding="utf-8"))
    assert data["tool"] == "venom-echo"
    assert data["format"] == 1
