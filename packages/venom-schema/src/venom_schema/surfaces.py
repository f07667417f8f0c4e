"""Which verbs appear on which surface (RFC-0004 §6, §7): the one place that rule is decided.

- ``cli`` and ``docs`` (Markdown, man pages, completions, SKILL.md): every verb but the
  transport ones (``hello``, ``cancel``), which are the client's own business. Local verbs
  (``serve``, ``mcp``) are commands: they run in-process.
- ``mcp`` and ``client`` (the generated typed client): the verbs a remote caller sends to the
  daemon: neither transport nor local verbs.
- ``daemon``: what the registry binds to handlers: the ``mcp`` verbs less those venom-proto
  answers itself (``ping``; RFC-0002 §4.5).

On the CLI's verb-call path, so it imports nothing at run time but venom-proto's name table.
"""

from __future__ import annotations

from venom_proto import CORE_VERBS

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would slow every CLI call.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from .model import Model, Surface, Verb

__all__ = ("SURFACES", "shown_on", "verbs_on")

#: Every surface, in the order the docs list them.
SURFACES: tuple[Surface, ...] = ("daemon", "cli", "mcp", "docs", "client")
_REMOTE = ("mcp", "client", "daemon")


def shown_on(verb: Verb, surface: Surface) -> bool:
    """Whether ``verb`` appears on ``surface`` (``ValueError`` for an unknown surface)."""
    if surface not in SURFACES:
        raise ValueError(f"unknown surface {surface!r}; expected one of {', '.join(SURFACES)}")
    dispatch = verb.get("dispatch")
    if dispatch == "transport":
        return False
    if surface in _REMOTE and dispatch == "local":
        return False
    return surface != "daemon" or verb["name"] not in CORE_VERBS


def verbs_on(model: Model, surface: Surface) -> list[Verb]:
    """The verbs of ``model`` that appear on ``surface``, sorted by wire name (RFC-0004 §6)."""
    shown = [verb for verb in model["verbs"] if shown_on(verb, surface)]
    shown.sort(key=_name)
    return shown


def _name(verb: Verb) -> str:
    return verb["name"]
