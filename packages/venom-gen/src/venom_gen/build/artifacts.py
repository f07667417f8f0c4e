"""The generated artifacts of a product as ``relative path -> text``, pure and deterministic.

Layout written by ``venom-gen all MANIFEST --out DIR`` (and checked byte for byte by products'
staleness tests)::

    docs/<tool>.md              Markdown reference
    man/<tool>.1, man/<tool>-<command>.1
    completions/<tool>.bash     bash
    completions/_<tool>         zsh
    completions/<tool>.fish     fish
    SKILL.md                    agent skill
    catalog.json                MCP tool catalog (every grant)
    service/<tool>.socket, service/<tool>.service
                                systemd user units (socket activation, Type=notify)
    service/venom.<tool>.plist  launchd agent
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping
from typing import Final, Literal

from venom_gen.build.completions import render_bash, render_fish, render_zsh
from venom_gen.build.man import render_man_pages
from venom_gen.build.markdown import render_markdown
from venom_gen.render.catalog import build_catalog
from venom_gen.render.service import service_files
from venom_gen.render.skill import render_skill
from venom_schema.canonical import canonical_json
from venom_schema.model import Model

__all__ = (
    "SHELLS",
    "SUBDIRS",
    "Shell",
    "all_artifacts",
    "catalog_files",
    "completion_files",
    "man_files",
    "markdown_files",
    "normalized_json",
    "service_files",
    "skill_files",
)

Shell = Literal["bash", "zsh", "fish"]
SHELLS: Final[tuple[Shell, ...]] = ("bash", "zsh", "fish")

#: The layout's subdirectories: owned whole by the generator (``all --prune`` cleans them).
SUBDIRS: Final = ("completions", "docs", "man", "service")

_RENDER_SHELL: Final[dict[Shell, Callable[[Model], str]]] = {
    "bash": render_bash,
    "zsh": render_zsh,
    "fish": render_fish,
}
_SHELL_FILE: Final[dict[Shell, str]] = {"bash": "{}.bash", "zsh": "_{}", "fish": "{}.fish"}


def normalized_json(model: Model, *, pretty: bool = False) -> str:
    """The model as canonical JSON (RFC-0004 §7: exactly the digested bytes, no newline), or
    with ``pretty`` indented, keys sorted and a final newline."""
    if pretty:
        return json.dumps(model, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    return canonical_json(model).decode("utf-8")


def catalog_files(model: Model, *, grants: Collection[str] | None = None) -> dict[str, str]:
    """``catalog.json``: the MCP tools, optionally only those whose grant is in ``grants``."""
    tools = build_catalog(model, max_grant=grants)
    return {"catalog.json": json.dumps(tools, indent=2, ensure_ascii=False) + "\n"}


def markdown_files(model: Model) -> dict[str, str]:
    """``<tool>.md``: the Markdown reference."""
    return {f"{model['tool']}.md": render_markdown(model)}


def man_files(model: Model) -> dict[str, str]:
    """Every man page, ``<tool>.1`` and ``<tool>-<command>.1``."""
    return render_man_pages(model)


def completion_files(model: Model, shell: Shell) -> dict[str, str]:
    """The completion script for ``shell`` under its conventional file name."""
    return {_SHELL_FILE[shell].format(model["tool"]): _RENDER_SHELL[shell](model)}


def skill_files(model: Model) -> dict[str, str]:
    """``SKILL.md``: the agent skill."""
    return {"SKILL.md": render_skill(model)}


def _under(directory: str, files: Mapping[str, str]) -> dict[str, str]:
    return {f"{directory}/{name}": text for name, text in files.items()}


def all_artifacts(model: Model) -> dict[str, str]:
    """Every artifact of the layout in the module docstring, sorted by path.

    Raises ``GenerationError`` when a generator cannot render the model.
    """
    files = _under("docs", markdown_files(model))
    files |= _under("man", man_files(model))
    for shell in SHELLS:
        files |= _under("completions", completion_files(model, shell))
    files |= skill_files(model)
    files |= catalog_files(model)
    files |= _under("service", service_files(model))
    return dict(sorted(files.items()))
