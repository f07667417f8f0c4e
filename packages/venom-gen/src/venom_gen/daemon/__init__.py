"""The daemon side every product shares: `App`, the shared verbs, events, configuration, `serve`.

Handlers reach the world through the `App` they are built with (``app.events``, ``app.config``,
``app.log``); `finish` lets a handler complete work its caller stopped waiting for.
"""

from venom_gen.daemon.app import App, serve
from venom_gen.daemon.config import ConfigStore
from venom_gen.daemon.events import EventBus
from venom_gen.daemon.finish import finish

__all__ = ("App", "ConfigStore", "EventBus", "finish", "serve")
