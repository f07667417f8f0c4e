"""Author-facing refusals of `serve`: handlers that do not match the model are one line, exit 2."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from venom_gen import Product
from venom_gen.daemon import App, serve

FIXTURES = Path(__file__).parent / "fixtures"


def _model_file(directory: Path) -> Path:
    model = json.loads((FIXTURES / "echo_model.json").read_text("utf-8"))
    model["$cache"] = {"key": "k", "digest": "d" * 64, "bundles": []}
    path = directory / "model.json"
    path.write_text(json.dumps(model), encoding="utf-8")
    return path


def _handlers(app: App) -> dict[str, Any]:
    # `echo` is missing (and the shared config.check etc. the fixture model lacks are extra),
    # `echo.typo` names no verb.
    return {"echo.typo": lambda call, params: {}}


def test_a_registry_mismatch_is_one_line_naming_both_sets_and_exit_2(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    product = Product(
        tool="venom-echo", version="1", model_path=_model_file(tmp_path), handlers=_handlers
    )
    with caplog.at_level(logging.ERROR):
        code = serve(product, str(tmp_path / "s.sock"), {}, json_errors=True)
    assert code == 2
    [record] = [r for r in caplog.records if r.levelno >= logging.ERROR]
    line = record.getMessage()
    assert "\n" not in line
    assert "missing handlers: echo;" in line
    assert "handlers for no daemon verb: config.check, config.reload, config.schema" in line
    assert "echo.typo" in line
    assert record.exc_info is None  # no traceback
    [wrapper] = capsys.readouterr().out.splitlines()
    error = json.loads(wrapper)["error"]
    assert error["code"] == "invalid_params.handlers"
    assert error["data"]["missing"] == ["echo"]
    assert "echo.typo" in error["data"]["extra"]
    assert not (tmp_path / "s.sock").exists()


def test_a_registry_mismatch_says_none_for_an_empty_set(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    def only_extra(app: App) -> dict[str, Any]:
        names = ["echo", "events", "config.get", "config.set", "skill", "skill.install"]
        handlers = {name: h for name, h in app.shared_handlers().items() if name in names}
        return {"echo": lambda call, params: {}, "spare": lambda call, params: {}} | {
            k: v for k, v in handlers.items() if k != "echo"
        }

    product = Product(
        tool="venom-echo", version="1", model_path=_model_file(tmp_path), handlers=only_extra
    )
    with caplog.at_level(logging.ERROR):
        assert serve(product, str(tmp_path / "s.sock"), {}) == 2
    messages = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert any("missing handlers: (none);" in m for m in messages), messages


def _typed_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The fixture model's generated ``handler_types`` (and its ``verb_types``), imported."""
    import importlib

    from venom_gen.build.handler_types import render_handler_types
    from venom_gen.build.verb_types import render_verb_types

    model = json.loads((FIXTURES / "echo_model.json").read_text("utf-8"))
    package = tmp_path / "typedfix"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "verb_types.py").write_text(render_verb_types(model), encoding="utf-8")
    (package / "handler_types.py").write_text(render_handler_types(model), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    return importlib.import_module("typedfix.handler_types")


def test_typed_bind_handlers_with_a_missing_method_is_the_same_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """D-S55: a class lacking a verb's method is no ``AttributeError`` but the registry's line."""
    typed = _typed_module(tmp_path, monkeypatch)

    class Partial:  # no method at all for the model's verbs
        pass

    def handlers(app: App) -> dict[str, Any]:
        return {**app.shared_handlers(), **typed.bind_handlers(Partial())}

    product = Product(
        tool="venom-echo", version="1", model_path=_model_file(tmp_path), handlers=handlers
    )
    with caplog.at_level(logging.ERROR):
        assert serve(product, str(tmp_path / "s.sock"), {}) == 2
    [record] = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert "missing handlers: echo" in record.getMessage()
    assert "handlers for no daemon verb:" in record.getMessage()
    assert record.exc_info is None


def test_model_handlers_get_the_same_one_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from pydantic import BaseModel

    from venom_schema.model_handlers import model_handler

    class Params(BaseModel):
        text: str

    def handlers(app: App) -> dict[str, Any]:
        return {"echo.typo": model_handler(Params, lambda call, params: {"text": params.text})}

    product = Product(
        tool="venom-echo", version="1", model_path=_model_file(tmp_path), handlers=handlers
    )
    with caplog.at_level(logging.ERROR):
        assert serve(product, str(tmp_path / "s.sock"), {}) == 2
    [record] = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert "missing handlers: echo;" in record.getMessage()
    assert "echo.typo" in record.getMessage()
