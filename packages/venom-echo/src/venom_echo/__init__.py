"""venom-echo."""

__all__: tuple[str, ...] = ()
