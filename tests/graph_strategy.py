"""Hypothesis: random two-player zero-sum game graphs, cycles likely (tests/test_solver_exact.py's retrograde
analysis against brute force; tests/test_native_graph.py's C retrograde analysis and C distance to the end against
Python's; tests/test_native_symgraph.py's C graph of two mirror-image tokens walking one graph against Python's),
with chance nodes on the cycles or without."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st


def graphs() -> st.SearchStrategy[list[tuple[Any, ...]]]:
    """Node 0 starts; a node is ``("T", utility)`` (an end worth -2..2 to the first player, never node 0) or
    ``("D", player, children)`` (a decision of player 0 or 1 among 1-3 children, repeats allowed)."""

    @st.composite
    def build(draw: st.DrawFn) -> list[tuple[Any, ...]]:
        n = draw(st.integers(2, 8))
        nodes: list[tuple[Any, ...]] = []
        for i in range(n):
            if i > 0 and draw(st.integers(0, 3)) == 0:
                nodes.append(("T", draw(st.integers(-2, 2))))
            else:
                children = tuple(draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=3)))
                nodes.append(("D", draw(st.integers(0, 1)), children))
        return nodes

    return build()


def chance_graphs() -> st.SearchStrategy[list[tuple[Any, ...]]]:
    """As :func:`graphs`, and a node may be ``("C", player, children, weights)``: ``player``'s only move is a roll
    that goes to each child with a probability proportional to its weight (1-3), so chance lies on cycles."""

    @st.composite
    def build(draw: st.DrawFn) -> list[tuple[Any, ...]]:
        nodes = draw(graphs())
        n = len(nodes)
        for i in range(n):
            if nodes[i][0] == "D" and draw(st.integers(0, 2)) == 0:
                children = nodes[i][2]
                weights = tuple(draw(st.lists(st.integers(1, 3), min_size=len(children), max_size=len(children))))
                nodes[i] = ("C", nodes[i][1], children, weights)
        return nodes

    return build()
