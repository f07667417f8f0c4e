"""The one exception the manifest validator raises, and the problem collector behind it."""

from __future__ import annotations

__all__ = ("ManifestError", "Problems")


class ManifestError(ValueError):
    """Raised by ``load_manifest`` and ``validate_manifest`` for an invalid manifest.

    ``problems`` lists every problem found, each as ``path: message`` (for example
    ``verbs[echo].params[style].type.choices: duplicate choice "plain"``), in discovery order.
    ``str()`` gives one ``source: path: message`` line per problem.
    """

    def __init__(self, source: str, problems: list[str]) -> None:
        self.source = source
        self.problems: tuple[str, ...] = tuple(problems)
        super().__init__("\n".join(f"{source}: {problem}" for problem in self.problems))

    @property
    def first(self) -> str:
        """The first problem, ``path: message``."""
        return self.problems[0]


class Problems:
    """Collects ``path: message`` problems so that one run reports all of them."""

    __slots__ = ("items",)

    def __init__(self) -> None:
        self.items: list[str] = []

    def add(self, path: str, message: str) -> None:
        self.items.append(f"{path}: {message}")

    def __len__(self) -> int:
        return len(self.items)

    def raise_if_any(self, source: str) -> None:
        if self.items:
            raise ManifestError(source, self.items)
