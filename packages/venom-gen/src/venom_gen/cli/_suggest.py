"""'Did you mean' for an unknown command or option: imported only on that error path."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ("did_you_mean", "distance", "suggestions")

#: The most edits a suggestion may be away (cobra's default, and git's closeness).
MAX_DISTANCE = 2


def distance(a: str, b: str) -> int:
    """Optimal string alignment distance: insertions, deletions, substitutions, swaps."""
    if a == b:
        return 0
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        row = [i]
        for j, cb in enumerate(b, 1):
            cost = 0 if ca == cb else 1
            best = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                best = min(best, previous2[j - 2] + 1)
            row.append(best)
        previous2, previous = previous, row
    return previous[-1]


def suggestions(token: str, candidates: Iterable[str]) -> list[str]:
    """The candidates nearest to ``token``, sorted: within two edits (one for words of up to
    three letters), or that begin with ``token`` (a truncated word, counted as one edit); only
    those at the best distance found, as git does; never ``token`` itself."""
    limit = min(MAX_DISTANCE, max(1, len(token) // 2))
    scored: list[tuple[int, str]] = []
    for candidate in sorted(set(candidates)):
        if candidate == token:
            continue
        d = distance(token.lower(), candidate.lower())
        if len(token) >= 2 and candidate.startswith(token):
            d = min(d, 1)
        if d <= limit:
            scored.append((d, candidate))
    best = min((d for d, _ in scored), default=0)
    return [candidate for d, candidate in scored if d == best]


def did_you_mean(token: str, candidates: Iterable[str], *, prefix: str) -> str:
    """``"; did you mean 'X'?"`` (or ``'X' or 'Y'``), or ``""`` when nothing is close."""
    close = suggestions(token, candidates)[:3]
    if not close:
        return ""
    spelled = [f"'{prefix}{c}'" for c in close]
    if len(spelled) == 1:
        return f"; did you mean {spelled[0]}?"
    return f"; did you mean {', '.join(spelled[:-1])} or {spelled[-1]}?"
