"""venom-proto."""

__all__: tuple[str, ...] = ()
