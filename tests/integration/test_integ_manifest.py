"""rfcs/0001 §16: `manifest` returns the normalized model, its text hashing to hello's schema."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from integration_kit import Daemon, load_model
from integration_mcp import Mcp


def _check(ok: dict[str, Any], schema: str | None) -> None:
    text = ok["model"]
    assert "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest() == ok["digest"]
    assert ok["digest"] == schema
    model = load_model()
    model.pop("$cache", None)
    assert json.loads(text) == model


@pytest.mark.covers("socket", "manifest")
def test_manifest_over_the_socket_needs_only_read(daemon: Daemon) -> None:
    """A connection without the owner token holds read, which is all `manifest` needs."""
    with daemon.connect() as c:
        hello = c.call(0, "hello", {"proto": [1]})["ok"]
        ok = c.call(1, "manifest")["ok"]
    _check(ok, hello["schema"])


@pytest.mark.covers("cli", "manifest")
def test_manifest_through_the_cli(daemon: Daemon) -> None:
    r = daemon.cli("manifest", "--json")
    assert r.returncode == 0, r.stderr
    ok = json.loads(r.stdout)
    with daemon.connect() as c:
        schema = c.call(0, "hello", {"proto": [1]})["ok"]["schema"]
    _check(ok, schema)


@pytest.mark.covers("mcp", "manifest")
def test_manifest_through_mcp(daemon: Daemon, mcp_session: Mcp) -> None:
    ok = mcp_session.ok("manifest", {})["result"]
    with daemon.connect() as c:
        schema = c.call(0, "hello", {"proto": [1]})["ok"]["schema"]
    _check(ok, schema)
