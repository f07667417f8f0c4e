"""No module imports itself back: the import graph of every package is free of circles.

Every executed import counts, at module level and inside functions alike (grimp's graph), so a
lazy import does not hide a circle: `venom_gen.product` -> `daemon.app` -> `daemon.doctor_cli`
-> `product` was one, and `manifest._builder` -> `_validate_root` -> `_bundles` -> `_builder`
another. Imports made only for the type checker (under ``if TYPE_CHECKING:``) never run, but
they tie two modules all the same (neither reads, moves or type-checks without the other):
`venom_gen.product` naming the daemon's ``App`` in an annotation, while the daemon imports
`product`, was such a circle; the second test finds them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

import grimp

from tools.workspace import members

ROOT = Path(__file__).resolve().parents[1]


def circles(edges: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in edges.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return sorted(found)


#: Circles through type-checking imports known and accepted: none (the last, between
#: `venom_schema.grants` and `.tokens`, went with the token store's move to venom-gen).
TYPE_ONLY_KNOWN: list[list[str]] = []


def _edges(*, type_checking: bool) -> dict[str, set[str]]:
    graph = grimp.build_graph(
        *(m.module for m in members()),
        exclude_type_checking_imports=not type_checking,
        cache_dir=None,
    )
    return {m: graph.find_modules_directly_imported_by(m) for m in graph.modules}


def test_no_package_has_an_import_circle() -> None:
    edges = _edges(type_checking=False)
    assert len(edges) > 100  # the walk saw the packages, not an empty graph
    assert circles(edges) == []


def test_no_circle_even_through_type_checking_imports() -> None:
    found = circles(_edges(type_checking=True))
    assert [c for c in found if c not in TYPE_ONLY_KNOWN] == []


def test_the_check_finds_a_circle() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert circles(edges) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []
