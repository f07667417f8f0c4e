"""venom-notes."""

__all__: tuple[str, ...] = ()
