"""Generated modules laid out as a product ships them, for the static checks."""

from __future__ import annotations

from venom_gen.build.client_gen import render_client
from venom_gen.build.verb_types import render_verb_types
from venom_schema.model import Model

__all__ = ("client_package",)


def client_package(package: str, model: Model) -> dict[str, str]:
    """A generated client as it ships, ``{path: source}``: ``<package>/client.py`` beside the
    ``verb_types.py`` it imports its types from."""
    return {
        f"{package}/__init__.py": "",
        f"{package}/verb_types.py": render_verb_types(model),
        f"{package}/client.py": render_client(model),
    }
