"""venom-schema."""

__all__: tuple[str, ...] = ()
