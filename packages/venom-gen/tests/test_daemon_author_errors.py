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
