"""An internal error says where to report it (RFC-0002 §7.2 SHOULD,
rfcs/0004-schema-decisions.md D-S59): the product's issue tracker from its package metadata,
looked up when the first internal error needs it. A real daemon and the real CLI."""

from __future__ import annotations

import json
import os
import sys
from importlib.metadata import metadata
from pathlib import Path

import pytest

from venom_gen.daemon.app import _report_location
from venom_gen.testing import DaemonProcess
from venom_schema.model_cache import compile_model

# A scratch product named like an installed distribution (this very package), so its metadata
# has a tracker to find.
TOOL = "venom-gen"

_MANIFEST = """.{ .format = 1, .tool = "venom-gen", .summary = "Report test", .verbs = .{
    .{ .name = "boom", .summary = "Fail with a bug", .result = .{ .kind = .object, .fields = .{} },
       .grant = .read },
} }
"""

_PRODUCT = """
import os
from venom_gen import Product

PRODUCT = Product(
    tool="venom-gen",
    version="1.0",
    model_path=os.path.join(os.path.dirname(os.path.abspath(__file__)), "verbs.model.json"),
    handlers="reportprod.handlers:handlers",
)
"""

_HANDLERS = """
def handlers(app):
    def boom(call, params):
        raise RuntimeError("a bug")
    return {"boom": boom}
"""


def _tracker() -> str:
    urls = {
        label.strip().lower(): url.strip()
        for label, _, url in (e.partition(",") for e in metadata(TOOL).get_all("Project-URL") or [])
    }
    return str(urls["issues"])


def test_the_tracker_is_read_from_the_package_metadata() -> None:
    assert _report_location(TOOL) == _tracker()
    assert _report_location("no-such-distribution-here") is None


def test_an_internal_error_names_the_tracker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "reportprod"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "product.py").write_text(_PRODUCT, encoding="utf-8")
    (package / "handlers.py").write_text(_HANDLERS, encoding="utf-8")
    (package / "verbs.zon").write_text(_MANIFEST, encoding="utf-8")
    compile_model(package / "verbs.zon")
    monkeypatch.syspath_prepend(str(tmp_path))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    with DaemonProcess("reportprod.product:PRODUCT", env=env) as daemon:
        run = daemon.cli("boom", "--json")
        again = daemon.cli("boom", "--json")
    assert run.returncode == 11, run.stderr
    error = json.loads(run.stdout)["error"]
    assert error["code"] == "internal"
    assert error["message"].endswith(f"; a bug: please report it at {_tracker()}")
    assert "details are in the daemon's log" in error["message"]
    assert json.loads(again.stdout)["error"] == error  # the same words every time
