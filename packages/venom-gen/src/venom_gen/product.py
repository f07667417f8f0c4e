"""`Product`: everything a daemon author declares about their product, in one object.

The product's binary (`venom_gen.binary.product_main`) reads it on every CLI call, so a product
names its daemon side instead of importing it: ``handlers``, ``frame_handlers``, ``config`` and
``local`` verbs are ``"module:attribute"`` references, imported only when ``serve`` (or that
local verb) runs, and the product module stays plain data. A callable or value may be given
in place of a reference where start-up time does not matter (tests, embedding).
"""

from __future__ import annotations

import os
import sys

# Named so mypy treats it as typing.TYPE_CHECKING; importing typing would slow every CLI call.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping
    from typing import Any, TypeAlias, TypeVar

    from venom_proto import FrameHandler, Handler
    from venom_schema.model import Descriptor

    T = TypeVar("T")
    #: A ``"module:attribute"`` reference to a ``T``, or the ``T`` itself.
    Ref: TypeAlias = str | T
    # A factory takes the running daemon's `venom_gen.daemon.App`, which the declaration only
    # passes through: naming its type here would tie this module to the daemon, which imports
    # it (a circle, if only for the type checker).
    HandlersFactory = Callable[[Any], Mapping[str, Handler]]
    FrameHandlersFactory = Callable[[Any], Iterable[FrameHandler]]
    LocalVerb = Callable[["Product", list[str]], int]

__all__ = ("Product", "resolve")


def resolve(ref: Any) -> Any:
    """What ``ref`` names: ``"package.module:attribute"`` is imported; anything else is itself.

    Raises ``ImportError`` or ``AttributeError`` naming the reference when it names nothing.
    """
    if not isinstance(ref, str):
        return ref
    module, sep, attribute = ref.partition(":")
    if not sep or not module or not attribute:
        raise ValueError(f"{ref!r} is not a 'module:attribute' reference")
    __import__(module)  # not importlib: it would cost every CLI call its import
    value: Any = sys.modules[module]
    for name in attribute.split("."):
        try:
            value = getattr(value, name)
        except AttributeError:
            raise AttributeError(f"{ref!r}: {module} has no attribute {attribute!r}") from None
    return value


class Product:
    """A Venom product: its tool name, version, cached model, and its daemon side by name.

    ``handlers`` names a function ``(app) -> {wire name: handler}``; ``frame_handlers`` one
    ``(app) -> [FrameHandler, ...]`` (none by default); ``config`` the format-1 object
    descriptor of the configuration file (an empty object by default); ``local`` maps
    in-process verbs such as ``mcp`` to functions ``(product, argv) -> exit status``.
    A plain class: dataclasses would cost every CLI call their import.
    """

    __slots__ = ("config", "frame_handlers", "handlers", "local", "model_path", "tool", "version")

    def __init__(
        self,
        *,
        tool: str,
        version: str,
        model_path: str | os.PathLike[str],
        handlers: Ref[HandlersFactory],
        frame_handlers: Ref[FrameHandlersFactory] | None = None,
        config: Ref[Descriptor] | None = None,
        local: Mapping[str, Ref[LocalVerb]] | None = None,
    ) -> None:
        self.tool = tool
        self.version = version
        self.model_path = os.fspath(model_path)
        self.handlers = handlers
        self.frame_handlers = frame_handlers
        self.config = config
        self.local = dict(local or {})

    def handlers_for(self, app: object) -> Mapping[str, Handler]:
        """The product's handlers by exact wire name, for the running daemon ``app`` (the
        `venom_gen.daemon.App` that the factory receives)."""
        factory: HandlersFactory = resolve(self.handlers)
        return factory(app)

    def frame_handlers_for(self, app: object) -> Iterable[FrameHandler]:
        """The product's binary frame handlers, for the running daemon ``app``."""
        if self.frame_handlers is None:
            return ()
        factory: FrameHandlersFactory = resolve(self.frame_handlers)
        return factory(app)

    def config_schema(self) -> Descriptor | None:
        """The configuration file's descriptor, or None for a product without settings."""
        schema: Descriptor | None = resolve(self.config)
        return schema

    def local_verb(self, name: str) -> LocalVerb:
        """The in-process verb ``name`` (``KeyError`` when the product declares none)."""
        verb: LocalVerb = resolve(self.local[name])
        return verb

    def __repr__(self) -> str:
        return f"Product({self.tool!r}, {self.version!r})"
