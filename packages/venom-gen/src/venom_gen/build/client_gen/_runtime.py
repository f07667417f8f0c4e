"""The fixed part of a generated client: its imports and the head of each class.

Everything else a client needs at run time (``ABSENT``, the ``Stream`` wrappers, connecting,
hello and closing) is venom-proto's public `venom_proto.typed`; its types are the product's
generated ``verb_types`` module. So the generated module depends on venom-proto only.
"""

from __future__ import annotations

from dataclasses import dataclass

from venom_gen.build.client_gen._text import docstring_lines

__all__ = ("ASYNC", "SYNC", "Flavor", "class_head")


@dataclass(frozen=True)
class Flavor:
    """What tells a generated method of the blocking class from one of the anyio class: the
    one method template is filled with either (httpcore's unasync, at generation time)."""

    base: str
    define: str
    wait: str
    stream: str
    what: str
    usage: str


SYNC = Flavor("TypedClient", "def", "", "Stream", "A blocking", "with")
ASYNC = Flavor("AsyncTypedClient", "async def", "await ", "AsyncStream", "An anyio", "async with")


def class_head(name: str, tool: str, flavor: Flavor, documented: str) -> list[str]:
    """``class <name>(<base>):``, its docstring and the class attributes the base reads; the
    methods' arguments and errors are documented on class ``documented``."""
    where = "below" if documented == name else f"on `{documented}`"
    doc = [
        [f"{flavor.what} client for {tool}: one method per daemon verb."],
        [
            f"Use it as ``{flavor.usage} {name}.connect() as client: ...``; connecting, hello "
            f"and closing are `{flavor.base}`'s. Each method's arguments and errors are "
            f"documented {where}."
        ],
    ]
    return [
        f"class {name}({flavor.base}):",
        *docstring_lines(doc, "    "),
        "",
        "    tool = TOOL",
        "    schema_digest = SCHEMA_DIGEST",
        "    client_name = CLIENT_NAME",
    ]
