"""Fixtures shared by venom-gen's generator tests: the normalized models they render."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from venom_schema.model import Model

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def echo_model() -> Model:
    """RFC-0004 §1 echo plus shared-looking verbs (prefix, streaming, local, transport)."""
    model: Model = json.loads((FIXTURES / "echo_model.json").read_text("utf-8"))
    return model


@pytest.fixture
def hostile_model() -> Model:
    """User strings built to break every output format's escaping."""
    model: Model = json.loads((FIXTURES / "hostile_model.json").read_text("utf-8"))
    return model
