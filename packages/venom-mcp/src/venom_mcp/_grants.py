"""Which grants the adapter may offer (``--max-grant``), per rfcs/0005-local-grants.md §5."""

from __future__ import annotations

from venom_schema.grants import ALL_GRANTS, GRANTS, grants_within

__all__ = ("GRANTS", "allowed_grants", "parse_grant")


def parse_grant(text: str) -> str:
    """Check a ``--max-grant`` value; raises ``ValueError`` naming the valid grants."""
    grants_within(text)
    return text


def allowed_grants(max_grant: str | None) -> frozenset[str]:
    """The grants a verb may need to be offered: the down-set of ``max_grant``, all when None.

    ``none`` -> {none}; ``read`` -> {none, read}; ``write``/``respond``/``files``/``spawn``
    -> {none, read, G}; ``admin`` -> all seven (the four middle grants are incomparable).
    """
    return ALL_GRANTS if max_grant is None else grants_within(max_grant)
