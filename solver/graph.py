"""The reachable state graph of a game, and its strongly connected components.

Every exact method but alpha-beta works on this graph: states numbered breadth-first from
the root, each with its turn, its moves (or chance outcomes) and the numbers of its children.

Sources:

* Moore (1959), "The shortest path through a maze": breadth-first exploration; the BFS
  order also gives each state a parent on a shortest line from the root (:meth:`StateGraph.dead_end`).
* Tarjan (1972), "Depth-first search and linear graph algorithms", SIAM J. Computing 1:
  the strongly connected components in one depth-first search, emitted sinks first
  (a reverse topological order of the components); here with an explicit stack.

Pseudo-code (Tarjan)::

    for each vertex v not yet numbered: strongconnect(v)
    strongconnect(v):
        index[v] := low[v] := counter++; push v
        for each edge v -> w:
            if w not numbered: strongconnect(w); low[v] := min(low[v], low[w])
            else if w on the stack: low[v] := min(low[v], index[w])
        if low[v] = index[v]: pop the component down to v and emit it
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Sequence
from typing import Any

from solver.game import CHANCE, TERMINAL, DeadEndError, Game, State, dead_end
from solver.limits import Budget, SearchStopped, StopReason

STATE_BYTES = 800
"""Memory one state of a Python state graph costs, solved (``Limits.memory_bytes`` caps the states at this):
its key and state, its edges, its values and the solved table's entry. Measured with ``tracemalloc``: 650-760
bytes a state at the peak of Pig's value iteration (goal 20 and 30)."""

WIDE = 4096
"""Children made between two budget checks in a very wide state."""


Values = list[tuple[float, ...]]
Best = list[tuple[int, ...]]  # per state, the positions (in move order) of its optimal moves
"""Per state, the positions (in move order) of its optimal moves."""


class StateGraph:
    """Every state reachable from a root, explored breadth-first (no recursion).

    ``player[i]`` is the turn of state i; ``succ[i]`` the indexes of its
    children in move order; ``moves[i]`` the moves (or chance outcomes);
    ``probs[i]`` the outcome probabilities of a chance state.
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        self.states: list[State] = []
        self.keys: list[Hashable] = []
        self.player: list[int] = []
        self.moves: list[Sequence[Any]] = []
        self.succ: list[tuple[int, ...]] = []
        self.probs: list[tuple[float, ...]] = []
        self.utilities: dict[int, tuple[float, ...]] = {}

    @classmethod
    def explore(cls, game: Game, root: State, budget: Budget, cap: int | None = None) -> StateGraph:
        """:raises SearchStopped: out of time or nodes, or more than ``cap`` states (reason ``table``)."""
        graph = cls(game)
        index: dict[Hashable, int] = {}
        to_move, legal, outcomes, apply, key = (game.to_move, game.legal_moves, game.chance_outcomes,
                                                game.apply, game.key)

        def add(state: State) -> int:
            k = key(state)
            i = index.get(k)
            if i is None:
                i = index[k] = len(graph.states)
                if cap is not None and i >= cap:
                    budget.nodes = budget.tt_size = i  # the statistics of a stopped exploration: states found
                    raise SearchStopped(StopReason.TABLE)
                graph.states.append(state)
                graph.keys.append(k)
            return i

        add(root)
        index_get = index.get
        done = 0
        while done < len(graph.states):  # the list itself is the BFS queue
            state = graph.states[done]
            done += 1
            if done >= budget.next_check:
                budget.check(done)
            player = to_move(state)
            graph.player.append(player)
            if player == TERMINAL:
                graph.utilities[done - 1] = tuple(float(u) for u in game.utilities(state))
                moves: Sequence[Any] = ()
                probs: tuple[float, ...] = ()
            elif player == CHANCE:
                pairs = list(outcomes(state))
                moves = [o for o, _ in pairs]
                probs = tuple(p for _, p in pairs)
            else:
                moves = list(legal(state))
                probs = ()
            if not moves and player != TERMINAL:
                raise graph.dead_end(done - 1, player)
            graph.moves.append(moves)
            graph.probs.append(probs)
            if len(moves) <= WIDE:
                succ = []
                for m in moves:  # add() written out: this loop runs once per edge of the graph
                    child = apply(state, m)
                    k = key(child)
                    i = index_get(k)
                    succ.append(add(child) if i is None else i)
                graph.succ.append(tuple(succ))
            else:  # a huge fan-out (a chance over 10^5 outcomes) must not outlast the time budget
                succ = []
                for j, m in enumerate(moves):
                    if not j % WIDE:
                        budget.check(done)
                    succ.append(add(apply(state, m)))
                graph.succ.append(tuple(succ))
        budget.nodes = done
        budget.tt_size = len(graph.states)
        return graph

    def dead_end(self, i: int, player: int) -> DeadEndError:
        """The error for the dead end at index ``i``, with the moves that reach it from the root.

        The exploration is breadth-first, so the first state found with a child ``i`` is its
        parent on a shortest line; looked up only when a dead end is found (no parent pointers kept).
        """
        error = dead_end(self.game, self.states[i], player)
        seen = {i}
        while i != 0:
            parent = next(p for p, children in enumerate(self.succ) if i in children)
            error.prepend(self.moves[parent][self.succ[parent].index(i)])
            i = parent
            if i in seen:  # cannot happen with BFS parents; never loop
                break
            seen.add(i)
        return error

    def __len__(self) -> int:
        return len(self.states)

    def topological_order(self) -> list[int] | None:
        """States with every child before its parents, or None if the graph has a cycle.

        Tarjan's components come sinks first; the graph is acyclic when each is one state
        without a self-loop. On a cyclic graph the walk stops at the first cycle it closes
        (before that, it had explored only what lies below it), which matters for millions of states.
        """
        order = []
        for members, feedback in components(self.succ):
            if feedback:
                return None
            order.extend(members)
        return order

    def predecessors(self) -> list[list[int]]:
        preds: list[list[int]] = [[] for _ in range(len(self.states))]
        for i, children in enumerate(self.succ):
            for c in children:
                preds[c].append(i)  # once per edge: attractor counters count edges
        return preds


def components(succ: Sequence[Sequence[int]]) -> Iterator[tuple[list[int], list[int]]]:
    """Tarjan's strongly connected components, sinks first, without recursion.

    Yields ``(members, feedback)``: the members in depth-first finishing
    order (so every edge inside the component points to an earlier member,
    except back edges), and the targets of the back edges (self-loops
    included). A component without feedback states is a single state without
    a self-loop.
    """
    n = len(succ)
    done = n + 1  # the discovery number of a state already in an emitted component
    index = [0] * n  # discovery number (from 1); 0: not yet seen
    low = [0] * n
    active = bytearray(n)  # 1 while a state is on the depth-first path
    back_target = bytearray(n)
    stack: list[int] = []  # Tarjan's stack: seen, not yet in an emitted component
    finished: list[int] = []  # the same states as they finish, in finishing order
    counter = 0
    for root in range(n):
        if index[root]:
            continue
        counter += 1
        index[root] = low[root] = counter
        active[root] = 1
        stack.append(root)
        path = [(root, iter(succ[root]))]
        while path:
            v, children = path[-1]
            for w in children:
                iw = index[w]
                if not iw:  # a tree edge: go down
                    counter += 1
                    index[w] = low[w] = counter
                    active[w] = 1
                    stack.append(w)
                    path.append((w, iter(succ[w])))
                    break
                if iw < low[v]:  # w is on Tarjan's stack (emitted states have index ``done``)
                    low[v] = iw
                if active[w]:
                    back_target[w] = 1
            else:  # every child seen: v finishes
                path.pop()
                active[v] = 0
                finished.append(v)
                lv = low[v]
                if path:
                    u = path[-1][0]
                    if lv < low[u]:
                        low[u] = lv
                if lv == index[v]:  # v is the root of a component: its members end both stacks
                    size = 0
                    while True:
                        w = stack.pop()
                        index[w] = done
                        size += 1
                        if w == v:
                            break
                    members = finished[-size:]
                    del finished[-size:]
                    yield members, [w for w in members if back_target[w]]


__all__ = ["WIDE", "Best", "StateGraph", "Values", "components"]
