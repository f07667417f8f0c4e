"""venom-gen."""

__all__: tuple[str, ...] = ()
