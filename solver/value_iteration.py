"""Value iteration component by component, with Newton steps on each component's few cycle-closing states.

Sources:

* Bellman (1957), *Dynamic Programming*: value iteration, repeated backups
  ``V(s) <- max_a V(child)`` at decision states and ``V(s) <- sum_o p(o) V(child_o)``
  at chance states until no value moves.
* Tarjan (1972), "Depth-first search and linear graph algorithms": the strongly
  connected components (SCCs) of a graph in one depth-first search, emitted
  sinks first (a reverse topological order of the components). Done here with
  an explicit stack, no recursion.
* Dai & Goldsmith (2007), "Topological value iteration algorithm for Markov
  decision processes": solve the components in reverse topological order,
  iterating only inside each one; its successors outside are final by then.
* Howard (1960) policy iteration, and Puterman & Brumelle (1979), who showed
  policy iteration is Newton's method on the Bellman equation: with the
  choices of one sweep fixed, a component's values are affine in the values
  of its feedback states (the targets of depth-first back edges, which every
  cycle passes through), so a small linear system gives them at once.

Pseudo-code (``solve_graph``)::

    for C in components(graph), sinks first:                 # Tarjan 1972, Dai & Goldsmith 2007
        if C is one state without a self-loop: V[s] <- backup(s); continue
        order C by depth-first finishing time                # every edge but a back edge points backwards
        F <- the targets of back edges in C                  # feedback states, read as x during a sweep
        x <- V[F]
        repeat:                                              # one sweep
            for s in C in order:
                V'[s] <- backup(s)                           # Bellman 1957; also A[s] = dV'[s]/dx
            if no value moved by tolerance or more: V[F] <- V'[F]; stop
            if F is small and the values are scalar:         # Newton step (policy iteration)
                d <- solve (I - A[F]) d = V'[F] - x          # fall back to plain sweeps if singular
                x <- x + d; V[s] <- V'[s] + A[s] d for s in C
            else:
                x <- V'[F]

The values are scalar in one-player games and in two-player games whose
every terminal pays ``(u, -u)`` (player 1 then minimises player 0's value);
otherwise they are vectors, taken by max^n with the first best move, and
only plain sweeps are used. Values start at 0 (endless play is worth 0).

A *sweep* backs up every state of one component once. ``max_sweeps`` bounds
the sweeps of each component, and the reported ``iterations``
(``budget.iterations``) is the most sweeps any component took: what a
whole-graph sweep count would be if every component were swept together.
Convergence is judged per component: a sweep that moves no value by
``tolerance`` or more.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import zip_longest
from operator import mul

from solver.game import CHANCE, TERMINAL
from solver.graph import Best, StateGraph, Values, components
from solver.limits import TIE_TOLERANCE, Budget

NEWTON_MAX_FEEDBACK = 8
"""Newton steps are taken only in components with at most this many feedback states."""
NEWTON_MAX_STEPS = 30
"""After this many Newton steps without convergence, a component goes on with plain sweeps."""
PIVOT_MIN = 1e-9
"""A smaller pivot in ``I - A`` means a cycle that may never be left: plain sweeps are used instead."""

def solve_graph(graph: StateGraph, budget: Budget, tolerance: float = 1e-12, max_sweeps: int | None = None,
                tie_tolerance: float = TIE_TOLERANCE) -> tuple[Values, Best, bool]:
    """Values, optimal move positions and whether every component converged.

    The optimal moves of a decision state are the positions of its children
    within ``tie_tolerance`` of the best for the mover (see :mod:`solver.exact`).

    :raises SearchStopped: from ``budget.check`` (time, nodes, or the progress hook).
    """
    players = len(graph.game.players)
    utilities = graph.utilities
    scalar = players == 1 or (players == 2 and all(u[1] == -u[0] for u in utilities.values()))
    solver = _ScalarSolver(graph, budget) if scalar else _VectorSolver(graph, budget)
    converged = True
    for members, feedback in components(graph.succ):
        if not feedback:
            solver.backup(members[0])
        elif not solver.iterate(members, feedback, tolerance, max_sweeps):
            converged = False
    budget.nodes = solver.work
    values = solver.values()
    best = best_moves(graph, values, solver.val if isinstance(solver, _ScalarSolver) else None, tie_tolerance)
    return values, best, converged


# ------------------------------------------------------------------ scalar values (Newton steps)


class _Sweeper:
    """What both solvers share: the graph, and the budget counted in states backed up."""

    def __init__(self, graph: StateGraph, budget: Budget) -> None:
        self.graph = graph
        self.budget = budget
        self.work = budget.nodes
        self.next_check = budget.next_check

    def _count(self, states: int) -> None:
        self.work += states
        if self.work >= self.next_check:
            self.next_check = self.budget.check(self.work)


class _ScalarSolver(_Sweeper):
    """Player 0's value only (player 1, if any, gets its negation and minimises it)."""

    def __init__(self, graph: StateGraph, budget: Budget) -> None:
        super().__init__(graph, budget)
        self.val: list[float] = [0.0] * len(graph)
        for i, u in graph.utilities.items():
            self.val[i] = u[0]
        self.slopes: list[tuple[float, ...]] = [()] * len(graph)
        self.mark = bytearray(len(graph))  # 1 for the feedback states of the current component

    def backup(self, s: int) -> None:
        """One Bellman backup (a state outside any cycle: its children are final)."""
        player = self.graph.player[s]
        if player != TERMINAL:
            val = self.val
            children = self.graph.succ[s]
            if player == CHANCE:
                val[s] = sum(map(mul, self.graph.probs[s], map(val.__getitem__, children)))
            elif player == 0:
                val[s] = val[max(children, key=val.__getitem__)]
            else:
                val[s] = val[min(children, key=val.__getitem__)]
        self._count(1)

    def iterate(self, members: list[int], feedback: list[int], tolerance: float, max_sweeps: int | None) -> bool:
        """Sweep one component until it converges; Newton steps on its feedback states while that is sound.

        During a sweep every state reads a feedback state as its variable
        ``x_j`` (kept in ``val``), so the sweep is a function of x alone: each
        state's new value is a max, min or average of final values, values
        computed earlier in the same sweep and x. That function moves no
        value by more than x moves (it is 1-Lipschitz in the max norm), so
        once the feedback states' new values are within ``tolerance`` of x,
        another sweep would move no value by ``tolerance`` or more: the
        component has converged.

        A sweep that also computes slopes (each state's value as an affine
        function of x under the sweep's choices) is followed by a Newton step,
        and that by a plain sweep, which checks it; a plain sweep that does not
        converge is followed by a plain value-iteration step and a sweep with
        fresh slopes. Newton steps could stop at a fixed point other than
        the one value iteration from 0 converges to (the Bellman equation has
        several where a cycle may be kept forever); such a component is redone
        with plain sweeps from 0.
        """
        k = len(feedback)
        newton = k <= NEWTON_MAX_FEEDBACK
        val = self.val
        mark = self.mark
        slot = {f: j for j, f in enumerate(feedback)}
        for f in feedback:
            mark[f] = 1
        slopes = self.slopes  # slopes[s]: dV[s]/dx, or () for 0 (outside the component, or not yet computed)
        zero = (0.0,) * k
        if newton:
            for j, f in enumerate(feedback):
                slopes[f] = tuple(1.0 if i == j else 0.0 for i in range(k))  # a feedback state reads as x_j
        new_x = [0.0] * k
        rows: list[tuple[float, ...]] = [zero] * k
        with_slopes = newton
        sweeps = steps = 0
        converged = False
        while max_sweeps is None or sweeps < max_sweeps:
            sweeps += 1
            if sweeps > self.budget.iterations:
                self.budget.iterations = sweeps
            if with_slopes:
                self._sweep_with_slopes(members, slot, new_x, slopes, rows)
            else:
                self._sweep(members, slot, new_x)
            self._count(len(members))
            residual = [new_x[j] - val[f] for j, f in enumerate(feedback)]
            step = _newton_step(rows, residual) if with_slopes and steps < NEWTON_MAX_STEPS else None
            if max(map(abs, residual)) < tolerance:
                # After a Newton step, a fixed point is the one value iteration from 0 reaches only if no move
                # ties for best and the choices leave every cycle (I - A nonsingular); else redo it from 0.
                if not (newton and steps and (self._tied(members) or (with_slopes and step is None))):
                    converged = True
                    break
            elif with_slopes and step is not None:  # Newton; the next sweep, plain, checks it
                steps += 1
                for j, f in enumerate(feedback):
                    val[f] += step[j]
                with_slopes = False
                continue
            elif not with_slopes:  # a plain step; the next sweep takes fresh slopes
                for j, f in enumerate(feedback):
                    val[f] = new_x[j]
                with_slopes = newton
                continue
            # A cycle that may never be left, too many Newton steps, or a doubtful fixed point: plain sweeps from 0.
            newton = with_slopes = False
            for s in members:
                val[s] = 0.0
        for j, f in enumerate(feedback):
            val[f] = new_x[j]
            mark[f] = 0
        if k <= NEWTON_MAX_FEEDBACK:
            for s in members:
                slopes[s] = ()
        return converged

    def _tied(self, members: list[int]) -> bool:
        """Whether a decision state of the component has two different children (nearly) equally good for it."""
        val, player, succ = self.val, self.graph.player, self.graph.succ
        for s in members:
            p = player[s]
            if p < 0 or len(succ[s]) < 2:
                continue
            values = [val[c] for c in set(succ[s])]
            if len(values) < 2:
                continue
            if p == 0:
                top = max(values)
                values.remove(top)
                if top - max(values) <= TIE_TOLERANCE:
                    return True
            else:
                bottom = min(values)
                values.remove(bottom)
                if min(values) - bottom <= TIE_TOLERANCE:
                    return True
        return False

    def _sweep(self, members: list[int], slot: dict[int, int], new_x: list[float]) -> None:
        """One backup of every member, in order; feedback states' new values go to ``new_x``."""
        val, player, succ, probs, mark = self.val, self.graph.player, self.graph.succ, self.graph.probs, self.mark
        get = val.__getitem__
        for s in members:
            p = player[s]
            if p == CHANCE:
                v = sum(map(mul, probs[s], map(get, succ[s])))
            elif p == 0:
                v = max(map(get, succ[s]))
            else:
                v = min(map(get, succ[s]))
            if mark[s]:
                new_x[slot[s]] = v
            else:
                val[s] = v

    def _sweep_with_slopes(self, members: list[int], slot: dict[int, int], new_x: list[float],
                           slopes: list[tuple[float, ...]], rows: list[tuple[float, ...]]) -> None:
        """:meth:`_sweep`, also keeping each value's slopes; the feedback states' slopes go to ``rows``."""
        val, player, succ, probs, mark = self.val, self.graph.player, self.graph.succ, self.graph.probs, self.mark
        get, slope = val.__getitem__, slopes.__getitem__
        for s in members:
            p = player[s]
            children = succ[s]
            if p == CHANCE:
                pr = probs[s]
                v = sum(map(mul, pr, map(get, children)))
                row = tuple([sum(map(mul, pr, column)) for column in zip_longest(*map(slope, children), fillvalue=0.0)])
            else:
                c = max(children, key=get) if p == 0 else min(children, key=get)
                v = val[c]
                row = slopes[c]
            if mark[s]:
                j = slot[s]
                new_x[j] = v
                rows[j] = row
            else:
                val[s] = v
                slopes[s] = row

    def values(self) -> Values:
        val = self.val
        if len(self.graph.game.players) == 1:
            return [(v,) for v in val]
        out: Values = [(v, 0.0 - v) for v in val]
        for i, u in self.graph.utilities.items():
            out[i] = u
        return out


def _newton_step(a: Sequence[Sequence[float]], residual: list[float]) -> list[float] | None:
    """Solve ``(I - a) d = residual`` by Gaussian elimination with partial pivoting; None if (nearly) singular."""
    k = len(residual)
    m = [[(1.0 if i == j else 0.0) - (a[i][j] if j < len(a[i]) else 0.0) for j in range(k)] + [residual[i]]
         for i in range(k)]
    for col in range(k):
        pivot = max(range(col, k), key=lambda r: abs(m[r][col]))
        if abs(m[pivot][col]) < PIVOT_MIN:
            return None
        m[col], m[pivot] = m[pivot], m[col]
        top = m[col]
        for r in range(col + 1, k):
            factor = m[r][col] / top[col]
            if factor:
                m[r] = [x - factor * y for x, y in zip(m[r], top, strict=True)]
    d = [0.0] * k
    for r in reversed(range(k)):
        d[r] = (m[r][k] - sum(m[r][c] * d[c] for c in range(r + 1, k))) / m[r][r]
    return d


# ------------------------------------------------------------------ value vectors (plain Gauss-Seidel)


class _VectorSolver(_Sweeper):
    """One value per player; max^n at decision states, the first best child on ties."""

    def __init__(self, graph: StateGraph, budget: Budget) -> None:
        super().__init__(graph, budget)
        zeros = (0.0,) * len(graph.game.players)
        self.val: Values = [graph.utilities.get(i, zeros) for i in range(len(graph))]

    def _backed_up(self, s: int) -> tuple[float, ...]:
        val = self.val
        children = self.graph.succ[s]
        p = self.graph.player[s]
        if p == CHANCE:
            total = [0.0] * len(val[s])
            for q, c in zip(self.graph.probs[s], children, strict=True):
                for j, x in enumerate(val[c]):
                    total[j] += q * x
            return tuple(total)
        new = val[children[0]]
        for c in children:
            if val[c][p] > new[p]:
                new = val[c]
        return new

    def backup(self, s: int) -> None:
        if self.graph.player[s] != TERMINAL:
            self.val[s] = self._backed_up(s)
        self._count(1)

    def iterate(self, members: list[int], feedback: list[int], tolerance: float, max_sweeps: int | None) -> bool:
        """Gauss-Seidel sweeps over the component in finishing order until it converges."""
        val = self.val
        sweeps = 0
        while max_sweeps is None or sweeps < max_sweeps:
            sweeps += 1
            if sweeps > self.budget.iterations:
                self.budget.iterations = sweeps
            delta = 0.0
            for s in members:
                new = self._backed_up(s)
                for x, y in zip(new, val[s], strict=True):
                    if abs(x - y) > delta:
                        delta = abs(x - y)
                val[s] = new
            self._count(len(members))
            if delta < tolerance:
                return True
        return False

    def values(self) -> Values:
        return self.val


# ------------------------------------------------------------------ optimal moves


def best_moves(graph: StateGraph, values: Values, val: list[float] | None, tie_tolerance: float) -> Best:
    """Per decision state, the positions of every child within ``tie_tolerance`` of the best for the mover.

    ``val``: player 0's values when they are scalar (then player 1 minimises them).
    """
    best: Best = [()] * len(graph)
    succ = graph.succ
    if val is not None:
        for s, p in enumerate(graph.player):
            if p < 0:
                continue
            children = succ[s]
            if len(children) == 1:
                best[s] = (0,)
                continue
            vs = [val[c] for c in children]
            if p == 0:
                top = max(vs) - tie_tolerance
                best[s] = tuple(j for j, v in enumerate(vs) if v >= top)
            else:  # player 1's value is -v: -v >= max(-v) - tol  <=>  v <= min(v) + tol
                bottom = min(vs) + tie_tolerance
                best[s] = tuple(j for j, v in enumerate(vs) if v <= bottom)
        return best
    for s, p in enumerate(graph.player):
        if p < 0:
            continue
        vs = [values[c][p] for c in succ[s]]
        top = max(vs) - tie_tolerance
        best[s] = tuple(j for j, v in enumerate(vs) if v >= top)
    return best


__all__ = ["best_moves", "components", "solve_graph"]  # components: from solver.graph, kept importable here
