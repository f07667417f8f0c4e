"""The local verbs: what a product's binary runs in its own process instead of asking the
daemon (``serve``, ``doctor``, ``mcp.config``, ``service.install``, ``bridge``, ``completion``,
``man``, ``man install``). Each module is imported only when its verb runs.
"""

__all__: tuple[str, ...] = ()
