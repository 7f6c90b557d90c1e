"""Distance to the end ("remoteness"): how many plies a game lasts under optimal play.

Source: the Gamesman project (Garcia et al., UC Berkeley; GamesmanClassic and
GamesmanUni) calls it *remoteness*: a solved position records its value and
the number of moves to the end of the game when the winner wins as fast as
possible and the loser loses as slowly as possible.

Definition used here (value first): at a decision state only the *optimal*
moves count, those whose child has the state's value vector. Among them the
player to move

* takes the **fewest** plies when its value is positive (a winner hurries)
  or zero (a draw: both sides take the shortest drawn line),
* takes the **most** plies when its value is negative (a loser holds out).

A terminal state is 0 plies from the end; a chance state is 1 plus the
expected plies of its outcomes; a decision state is 1 plus the chosen child's.
Every move and every chance outcome is one ply. Play that never ends along
optimal moves (a draw by endless play) is ``math.inf`` plies away.

This is a pass over values already solved (:func:`graph_plies` over a
:class:`solver.exact.StateGraph`; the alpha-beta path of the exact solver
walks the optimal moves with its transposition table instead): the value
search itself is untouched, so a solve that does not ask for plies costs
nothing more.

Pseudo-code (``graph_plies``; components sinks first, Tarjan 1972)::

    for C in components(graph), sinks first:
        if C is one state without a self-loop:
            plies[s] <- 0 if terminal, 1 + sum p * plies[child] if chance,
                        1 + (min or max) plies[optimal child] otherwise
        elif C has no chance state:                     # a cycle: retrograde, in order of distance
            seed a heap with every member's best move out of C (or 0 at a terminal)
            pop the nearest: a "min" state is done at its first child done;
            a "max" state once every optimal child is done (then 1 + the largest)
            members never done: inf (they can keep the game going forever)
        else:                                           # a cycle through chance states
            inf where play may go on forever (almost-sure reachability of the way out fails)
            Newton steps on the feedback states (policy iteration); if they fail,
            Gauss-Seidel sweeps from 0 in finishing order (the least fixed point)
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence

from solver.game import CHANCE, TERMINAL
from solver.graph import StateGraph, components
from solver.limits import TIE_TOLERANCE

Plies = list[float | None]
"""Per state: plies to the end under optimal play, ``math.inf`` for endless play, None when unknown."""

"""Value vectors this close are equal (a child with the state's value is an optimal move)."""


def same_value(a: Sequence[float], b: Sequence[float], tolerance: float = TIE_TOLERANCE) -> bool:
    return a == b or all(abs(x - y) <= tolerance * max(1.0, abs(x), abs(y)) for x, y in zip(a, b, strict=True))


def hurries(value: Sequence[float], player: int) -> bool:
    """Whether ``player`` wants the game short: its value is positive or zero (a winner, or a draw)."""
    return value[player] >= -TIE_TOLERANCE


def optimal_children(graph: StateGraph, values: Sequence[Sequence[float]], s: int) -> list[int]:
    """The positions (in move order) of the moves of decision state ``s`` that keep its value."""
    here = values[s]
    return [j for j, c in enumerate(graph.succ[s]) if values[c] == here or same_value(values[c], here)]


def graph_plies(graph: StateGraph, values: Sequence[Sequence[float]], order: Sequence[int] | None = None) -> Plies:
    """Plies to the end of every state of ``graph``, given its exact values (see the module docstring).

    ``order``: the graph's topological order (children first) when it is acyclic and known.
    """
    plies: Plies = [None] * len(graph)
    if order is not None:
        for s in order:
            plies[s] = _acyclic(graph, values, plies, s)
        return plies
    for members, feedback in components(graph.succ):
        if not feedback:
            plies[members[0]] = _acyclic(graph, values, plies, members[0])
        elif all(graph.player[s] != CHANCE for s in members):
            _cyclic(graph, values, plies, members)
        else:
            _chance_cycle(graph, values, plies, members, feedback)
    return plies


def _acyclic(graph: StateGraph, values: Sequence[Sequence[float]], plies: Plies, s: int) -> float | None:
    player = graph.player[s]
    if player == TERMINAL:
        return 0.0
    children = graph.succ[s]
    if player == CHANCE:
        known = _known([plies[c] for c in children])
        if known is None:
            return None
        return 1.0 + _dot(graph.probs[s], known)
    known = _known([plies[children[j]] for j in optimal_children(graph, values, s)])
    if not known:
        return None
    return 1.0 + (min if hurries(values[s], player) else max)(known)


def _dot(xs: Sequence[float], ys: Sequence[float]) -> float:
    """``sum x_i * y_i`` added left to right from 0, as ``solver/native/remoteness.c`` adds it (``sum()`` of floats
    compensates its rounding since Python 3.12: the two back ends would differ in the last bits)."""
    total = 0.0
    for x, y in zip(xs, ys, strict=True):
        total += x * y
    return total


def _known(distances: list[float | None]) -> list[float] | None:
    """The distances, if every one is known."""
    known = [d for d in distances if d is not None]
    return known if len(known) == len(distances) else None


def _cyclic(graph: StateGraph, values: Sequence[Sequence[float]], plies: Plies, members: list[int]) -> None:
    """Retrograde distances inside one strongly connected component without chance states."""
    inside = set(members)
    heap: list[tuple[float, int]] = []
    waiting: dict[int, int] = {}  # a "max" state: optimal children inside the component not yet done
    worst: dict[int, float] = {}  # a "max" state: the largest distance among its optimal children so far
    parents: dict[int, list[int]] = {s: [] for s in members}
    for s in members:
        player = graph.player[s]
        if player == TERMINAL:
            heapq.heappush(heap, (0.0, s))
            continue
        children = graph.succ[s]
        optimal = [children[j] for j in optimal_children(graph, values, s)]
        outside = _known([plies[c] for c in optimal if c not in inside])
        if outside is None:
            continue  # unknown below: unknown here
        for c in optimal:
            if c in inside:
                parents[c].append(s)
        if hurries(values[s], player):
            if outside:
                heapq.heappush(heap, (1.0 + min(outside), s))
        else:
            waiting[s] = sum(1 for c in optimal if c in inside)
            worst[s] = max(outside, default=-math.inf)
            if waiting[s] == 0:
                heapq.heappush(heap, (1.0 + worst[s], s))
    done: set[int] = set()
    while heap:
        distance, s = heapq.heappop(heap)
        if s in done:
            continue
        done.add(s)
        plies[s] = distance
        for parent in parents[s]:
            if parent in done:
                continue
            if parent not in waiting:
                heapq.heappush(heap, (distance + 1.0, parent))
            else:
                waiting[parent] -= 1
                worst[parent] = max(worst[parent], distance)
                if waiting[parent] == 0:
                    heapq.heappush(heap, (1.0 + worst[parent], parent))
    for s in members:
        if s not in done and graph.player[s] != TERMINAL:
            optimal = [graph.succ[s][j] for j in optimal_children(graph, values, s)]
            if all(plies[c] is not None or c in inside for c in optimal):
                plies[s] = math.inf


def one_less(child: float | None, here: float | None) -> bool:
    """Whether a child ``child`` plies from the end is one ply nearer than ``here`` (finite distances only)."""
    return (child is not None and here is not None
            and math.isclose(child + 1.0, here, rel_tol=TIE_TOLERANCE, abs_tol=TIE_TOLERANCE))


CHANCE_SWEEPS = 20_000
"""Most sweeps of one cyclic component with chance states before its expected plies are given up (None)."""
ENDLESS = 1e12
"""Expected plies beyond this in a sweep: the game may go on forever along optimal moves (inf)."""
NEWTON_MAX_FEEDBACK = 16
"""Newton steps (exact policy evaluation) only in components with at most this many feedback states."""
NEWTON_MAX_STEPS = 50

Rule = tuple[int, bool, tuple[int, ...], tuple[float, ...]]
"""A member of a component: the state, whether it hurries (min), its counted children, their probabilities
(chance states; empty at decision states)."""


def _chance_cycle(graph: StateGraph, values: Sequence[Sequence[float]], plies: Plies, members: list[int],
                  feedback: list[int]) -> None:
    """Expected plies inside one strongly connected component with chance states.

    The distances are the least fixed point of their equations: the expected length of play under
    the hurry / hold-out choices. First Newton steps (the choices fixed, the component's distances
    are affine in its few feedback states', so a small linear system gives them at once; the
    choices are then made again, as in policy iteration), checked by a plain sweep; where that
    does not settle, Gauss-Seidel sweeps from 0, which rise to the least fixed point and grow
    without bound where play can go on forever with some probability (then inf).
    """
    inside = set(members)
    rules: list[Rule] = []
    for s in members:
        children = graph.succ[s]
        if graph.player[s] == CHANCE:
            chosen, probs = tuple(children), graph.probs[s]
        else:
            chosen, probs = tuple(children[j] for j in optimal_children(graph, values, s)), ()
        if any(plies[c] is None and c not in inside for c in chosen):
            return  # unknown below: unknown here
        rules.append((s, graph.player[s] != CHANCE and hurries(values[s], graph.player[s]), chosen, probs))
    trapped = _trapped(rules, inside, plies)
    if trapped:  # play that never ends, at least with some probability: inf, and out of the equations
        for s in trapped:
            plies[s] = math.inf
        rules = [(s, is_min, tuple(c for c in chosen if c not in trapped and plies[c] != math.inf)
                  if is_min else chosen, probs) for s, is_min, chosen, probs in rules if s not in trapped]
        feedback = [f for f in feedback if f not in trapped]
    if len(feedback) <= NEWTON_MAX_FEEDBACK and _newton(plies, rules, feedback):
        return
    _sweeps(plies, rules, [rule[0] for rule in rules])


def _trapped(rules: list[Rule], inside: set[int], plies: Plies) -> set[int]:
    """Members from which play goes on forever with some probability under the hurry / hold-out choices.

    The complement of the almost-sure reachability set of the way out (de Alfaro, Henzinger & Kupferman
    1998, for turn-based stochastic games), computed as a greatest fixed point: keep the states ``W``
    from which the hurrying side can reach the way out with positive probability while every step stays
    in ``W`` (a chance state and a hold-out state need every child kept, a hurrying state one); remove
    the others and repeat until nothing is removed.
    """
    def outside_finite(c: int) -> bool:
        return c not in inside and plies[c] != math.inf

    keep = {rule[0] for rule in rules}
    while True:
        # states that reach a finite way out with positive probability, staying in ``keep``
        reach: set[int] = set()
        changed = True
        while changed:
            changed = False
            for s, is_min, chosen, probs in rules:
                if s in reach or s not in keep:
                    continue
                good = [outside_finite(c) or c in reach for c in chosen]
                if any(good) if (is_min or probs) else all(good):
                    reach.add(s)
                    changed = True
        # ... and never have to step out of ``keep`` (the hold-out side and chance may take any child)
        safe = set(reach)
        changed = True
        while changed:
            changed = False
            for s, is_min, chosen, probs in rules:
                if s not in safe:
                    continue
                stays = [outside_finite(c) or c in safe for c in chosen]
                if not (any(stays) if is_min and not probs else all(stays)):
                    safe.discard(s)
                    changed = True
        if safe == keep:
            return {rule[0] for rule in rules} - keep
        keep = safe


def _newton(plies: Plies, rules: list[Rule], feedback: list[int]) -> bool:
    """Newton steps on the feedback states; True once a plain sweep after one moves no distance (converged).

    Each step: a sweep with the choices made at the current distances gives every distance as an
    affine function of the feedback states' x; solving ``x = constants + rows . x`` is the policy's
    exact evaluation. The plain sweep that follows checks that no choice changes.
    """
    from solver.value_iteration import _newton_step

    k = len(feedback)
    slot = {f: j for j, f in enumerate(feedback)}
    x = [0.0] * k
    for s, _, _, _ in rules:
        plies[s] = 0.0
    for _ in range(NEWTON_MAX_STEPS):
        forms, constants, rows = _affine_sweep(plies, rules, slot, x)
        residual = [constants[j] + _dot(rows[j], x) - x[j] for j in range(k)]
        step = _newton_step(rows, residual)
        if step is None or any(not math.isfinite(d) for d in step):
            return False
        x = [a + d for a, d in zip(x, step, strict=True)]
        if any(v < 0 for v in x):
            return False  # not the least fixed point of a proper policy: let the sweeps decide
        for s, (const, slopes) in forms.items():
            plies[s] = const + _dot(slopes, x)
        for f, j in slot.items():
            plies[f] = x[j]
        if _sweep(plies, rules) <= TIE_TOLERANCE:
            return True
    return False


def _sweep(plies: Plies, rules: list[Rule]) -> float:
    """One Gauss-Seidel sweep; returns the largest relative change of a distance."""
    moved = 0.0
    for s, is_min, chosen, probs in rules:
        known = [d for d in (plies[c] for c in chosen) if d is not None]  # every one is known by now
        new = 1.0 + (_dot(probs, known) if probs else (min if is_min else max)(known))
        old = plies[s]
        change = abs(new - (0.0 if old is None else old)) / max(1.0, new)
        if change > moved:
            moved = change
        plies[s] = new
    return moved


Affine = tuple[float, tuple[float, ...]]
"""A distance as ``constant + slopes . x`` in the feedback states' distances x."""


def _affine_sweep(plies: Plies, rules: list[Rule], slot: dict[int, int],
                  x: list[float]) -> tuple[dict[int, Affine], list[float], list[tuple[float, ...]]]:
    """One sweep with the choices made at ``x``: every non-feedback member's distance as an affine form,
    and the feedback states' new forms (constants and rows of slopes)."""
    k = len(x)
    unit = [tuple(1.0 if i == j else 0.0 for i in range(k)) for j in range(k)]
    zero = (0.0,) * k
    forms: dict[int, Affine] = {}
    rows: list[tuple[float, ...]] = [zero] * k
    constants = [0.0] * k

    def form(c: int) -> Affine:
        if c in slot:
            return 0.0, unit[slot[c]]  # a feedback state reads as its variable x_j
        got = forms.get(c)
        return got if got is not None else (plies[c], zero)  # type: ignore[return-value]

    for s, is_min, chosen, probs in rules:
        if probs:
            const, slopes = 1.0, [0.0] * k
            for p, c in zip(probs, chosen, strict=True):
                cc, cs = form(c)
                const += p * cc
                for i in range(k):
                    slopes[i] += p * cs[i]
            new: Affine = (const, tuple(slopes))
        else:
            options = [form(c) for c in chosen]
            at = [cc + _dot(cs, x) for cc, cs in options]
            pick = at.index(min(at) if is_min else max(at))
            new = (1.0 + options[pick][0], options[pick][1])
        if s in slot:
            constants[slot[s]], rows[slot[s]] = new
        else:
            forms[s] = new
    return forms, constants, rows


def _sweeps(plies: Plies, rules: list[Rule], members: list[int]) -> None:
    """Gauss-Seidel sweeps from 0 until no distance moves by a relative ``TIE_TOLERANCE``."""
    for s in members:
        plies[s] = 0.0
    for _ in range(CHANCE_SWEEPS):
        moved = _sweep(plies, rules)
        if moved <= TIE_TOLERANCE:
            return
        if any(plies[s] > ENDLESS for s in members):  # type: ignore[operator]
            break
    else:
        for s in members:
            plies[s] = None
        return
    for s in members:
        plies[s] = math.inf


def fastest(graph: StateGraph, values: Sequence[Sequence[float]], plies: Plies, s: int,
            best: Sequence[int]) -> tuple[int, ...]:
    """The optimal moves of decision state ``s`` that follow the distance to the end (positions in move order).

    A winner's moves bring the end one ply nearer at the fastest, a loser's at the slowest.
    With the distance unknown or endless, ``best`` (the solver's own optimal moves) is kept.
    """
    here = plies[s]
    if here is None or here == math.inf:
        return tuple(best)
    children = graph.succ[s]
    kept = tuple(j for j in optimal_children(graph, values, s) if one_less(plies[children[j]], here))
    return kept or tuple(best)
