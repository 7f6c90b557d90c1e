"""Matrix games: the one-shot games played at a simultaneous node.

* :func:`solve_zero_sum` -- the value and a maximin mixed strategy of each player of a
  two-player zero-sum matrix game (von Neumann 1928, the minimax theorem), found by
  linear programming (Dantzig 1951: the game is the LP "maximise v subject to
  ``x·A[:, j] >= v`` for every column j, ``x >= 0``, ``sum(x) = 1``", and the column
  player's problem is its dual).
* :func:`pure_equilibria` -- every pure Nash equilibrium of a general-sum bimatrix game.
* :func:`mixed_equilibrium` -- one (possibly mixed) Nash equilibrium of a two-player
  general-sum game, by support enumeration (Porter, Nudelman & Shoham 2004): for each
  pair of supports, smallest first, one feasibility LP; it works in degenerate games too,
  because a support pair is tested by an LP, not by solving a square linear system.

The LPs are solved by HiGHS through :func:`scipy.optimize.linprog` (``method="highs"``),
with tightened tolerances. Each LP solution is a vertex; it is then *polished*: the
linear equations of its support are solved again with a least-squares solve and the
polished strategies are kept when they are at least as good (every check below is on the
final strategies, not on what the LP reported). Values are exact to about 1e-9 for payoffs
of moderate size; strategies are clipped at 0 and normalised to sum to 1.

Payoffs are given as a sequence of rows (``payoff[i][j]``: the row player's payoff when
the row player picks i and the column player picks j). Rows are player 0's moves, columns
player 1's.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

Matrix = Sequence[Sequence[float]] | np.ndarray
"""A payoff matrix: nested sequences, or an array."""
Vector = Sequence[float] | np.ndarray

TOLERANCE = 1e-9
"""How far from optimal (or from an equilibrium) a returned strategy may be, in payoff units."""
_HIGHS_OPTIONS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
_SUPPORT = 1e-12
"""Probabilities at or below this are taken as zero when a support is read off an LP solution."""
MAX_SUPPORT_PAIRS = 1 << 20
"""Support enumeration gives up (ValueError) on games with more support pairs than this."""


@dataclass(frozen=True)
class MatrixSolution:
    """The solution of a zero-sum matrix game."""

    value: float
    """The game's value to the row player (the column player gets ``-value``)."""
    row: tuple[float, ...]
    """A maximin mixed strategy of the row player: it guarantees at least ``value`` against every column."""
    col: tuple[float, ...]
    """A minimax mixed strategy of the column player: the row player gets at most ``value`` against it."""

    @property
    def saddle_point(self) -> tuple[int, int] | None:
        """The (row, column) of a pure solution, when both strategies are pure."""
        rows = [i for i, p in enumerate(self.row) if p > 0]
        cols = [j for j, p in enumerate(self.col) if p > 0]
        return (rows[0], cols[0]) if len(rows) == 1 and len(cols) == 1 else None


@dataclass(frozen=True)
class Equilibrium:
    """A Nash equilibrium of a two-player bimatrix game."""

    row: tuple[float, ...]
    col: tuple[float, ...]
    values: tuple[float, float]
    """Expected payoff of the row player and of the column player."""


def as_matrix(payoff: Matrix, what: str = "payoff matrix") -> np.ndarray:
    """A non-empty rectangular float matrix of finite numbers, or ValueError."""
    rows = [list(row) for row in payoff]
    if not rows or not rows[0]:
        raise ValueError(f"the {what} is empty: each player needs at least one move")
    width = len(rows[0])
    if any(len(row) != width for row in rows):
        raise ValueError(f"the {what} is not rectangular (rows of different lengths)")
    matrix = np.array(rows, dtype=float)
    if not np.all(np.isfinite(matrix)):
        raise ValueError(f"the {what} has a value that is not a finite number")
    return matrix


# ------------------------------------------------------------------ zero-sum


def solve_zero_sum(payoff: Matrix) -> MatrixSolution:
    """The value and maximin strategies of the zero-sum game with row-player payoffs ``payoff``.

    >>> rps = [[0, -1, 1], [1, 0, -1], [-1, 1, 0]]
    >>> solution = solve_zero_sum(rps)
    >>> round(solution.value, 12) + 0.0, [round(p, 12) for p in solution.row]
    (0.0, [0.333333333333, 0.333333333333, 0.333333333333])

    :raises ValueError: an empty, ragged or non-finite matrix.
    """
    a = as_matrix(payoff)
    saddle = _saddle_point(a)
    if saddle is not None:  # a pure solution: no LP, and exact
        i, j = saddle
        return MatrixSolution(float(a[i, j]), _unit(a.shape[0], i), _unit(a.shape[1], j))
    row = _polish_maximin(a, _maximin(a))
    col = _polish_maximin(-a.T, _maximin(-a.T))
    low = float(np.min(row @ a))  # what the row strategy guarantees
    high = float(np.max(a @ col))  # what the column strategy concedes at most
    value = (low + high) / 2 if high - low > 0 else low
    return MatrixSolution(value, _clean(row), _clean(col))


def _saddle_point(a: np.ndarray) -> tuple[int, int] | None:
    """A cell that is the minimum of its row and the maximum of its column (first in row order)."""
    row_min = a.min(axis=1)
    col_max = a.max(axis=0)
    lower, upper = row_min.max(), col_max.min()
    if lower != upper:
        return None
    i = int(np.argmax(row_min))
    j = int(np.flatnonzero(a[i] == lower)[0])
    return (i, j) if a[i, j] == col_max[j] else None


def _linprog() -> Any:
    """SciPy's ``linprog``, imported on first use: it takes a third of a second, and turn games never need it."""
    from scipy.optimize import linprog

    return linprog


def _maximin(a: np.ndarray) -> np.ndarray:
    """The row player's LP: maximise v subject to x·A[:, j] >= v for all j, x >= 0, sum(x) = 1."""
    m, n = a.shape
    cost = np.zeros(m + 1)
    cost[-1] = -1.0  # linprog minimises: minimise -v
    upper = np.hstack([-a.T, np.ones((n, 1))])  # v - x·A[:, j] <= 0
    equal = np.hstack([np.ones((1, m)), np.zeros((1, 1))])
    bounds = [(0.0, None)] * m + [(None, None)]
    result = _linprog()(cost, A_ub=upper, b_ub=np.zeros(n), A_eq=equal, b_eq=[1.0], bounds=bounds,
                     method="highs", options=_HIGHS_OPTIONS)
    if result.status != 0:  # a matrix game always has a solution; this is a solver failure
        raise ArithmeticError(f"the LP solver failed on a matrix game: {result.message}")
    return _normalised(result.x[:m])


def _polish_maximin(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Re-solve the equalities of the LP's support exactly; keep the result if it guarantees no less."""
    support = np.flatnonzero(x > _SUPPORT)
    tight = np.flatnonzero(x @ a <= np.min(x @ a) + 1e-9)  # the columns that hold the row player down
    k = len(support)
    # Unknowns: x on the support, then v. Equations: x·A[S, j] - v = 0 for tight j; sum(x) = 1.
    system = np.zeros((len(tight) + 1, k + 1))
    system[:-1, :k] = a[np.ix_(support, tight)].T
    system[:-1, k] = -1.0
    system[-1, :k] = 1.0
    rhs = np.zeros(len(tight) + 1)
    rhs[-1] = 1.0
    solution = np.linalg.lstsq(system, rhs, rcond=None)[0]
    polished = np.zeros_like(x)
    polished[support] = solution[:k]
    if np.any(polished < -1e-9):
        return x
    polished = _normalised(polished)
    return polished if np.min(polished @ a) >= np.min(x @ a) else x


# ------------------------------------------------------------------ general sum


def pure_equilibria(row_payoff: Matrix, col_payoff: Matrix, tolerance: float = 0.0) -> list[tuple[int, int]]:
    """Every pure Nash equilibrium ``(i, j)`` of the bimatrix game, in row-major order.

    A cell is an equilibrium when neither player gains more than ``tolerance`` by
    deviating alone: ``A[i, j]`` is a maximum of column j of A, ``B[i, j]`` a maximum of
    row i of B. There may be none (matching pennies), one, or several.

    >>> pure_equilibria([[3, 0], [5, 1]], [[3, 5], [0, 1]])  # the prisoner's dilemma
    [(1, 1)]
    """
    a, b = _bimatrix(row_payoff, col_payoff)
    best_rows = a >= a.max(axis=0, keepdims=True) - tolerance
    best_cols = b >= b.max(axis=1, keepdims=True) - tolerance
    return [(int(i), int(j)) for i, j in zip(*np.nonzero(best_rows & best_cols), strict=True)]


def mixed_equilibrium(row_payoff: Matrix, col_payoff: Matrix) -> Equilibrium:
    """One Nash equilibrium (pure if there is one) of a two-player general-sum game.

    Support enumeration: support pairs in order of total size, balanced ones first
    (every finite game has an equilibrium, Nash 1951, so one pair is feasible). For
    a zero-sum game (``col_payoff == -row_payoff``) prefer :func:`solve_zero_sum`.

    >>> eq = mixed_equilibrium([[1, -1], [-1, 1]], [[-1, 1], [1, -1]])  # matching pennies
    >>> [round(p, 9) for p in eq.row + eq.col], [round(v, 9) + 0.0 for v in eq.values]
    ([0.5, 0.5, 0.5, 0.5], [0.0, 0.0])

    :raises ValueError: bad matrices, or a game too large to enumerate (``MAX_SUPPORT_PAIRS``).
    """
    a, b = _bimatrix(row_payoff, col_payoff)
    pure = pure_equilibria(a, b)
    if pure:
        i, j = pure[0]
        return Equilibrium(_unit(a.shape[0], i), _unit(a.shape[1], j), (float(a[i, j]), float(b[i, j])))
    m, n = a.shape
    if (2**m - 1) * (2**n - 1) > MAX_SUPPORT_PAIRS:
        raise ValueError(f"a {m}x{n} game is too large for support enumeration")
    for rows, cols in _support_pairs(m, n):
        found = _equilibrium_on(a, b, rows, cols)
        if found is not None:
            return found
    raise ArithmeticError("support enumeration found no equilibrium (numerical trouble in the LP solver)")


def properly_mixed_equilibrium(row_payoff: Matrix, col_payoff: Matrix) -> Equilibrium | None:
    """A Nash equilibrium in which some player mixes (a support of two moves or more), or None if the game has
    none (a game with a dominant strategy). With :func:`pure_equilibria` it answers "every pure equilibrium and
    one mixed one". Support enumeration as in :func:`mixed_equilibrium`, the pure supports left out.

    >>> eq = properly_mixed_equilibrium([[3, 0], [0, 2]], [[2, 0], [0, 3]])  # the battle of the sexes
    >>> [round(p, 9) for p in eq.row + eq.col], [round(v, 9) for v in eq.values]
    ([0.6, 0.4, 0.4, 0.6], [1.2, 1.2])

    :raises ValueError: bad matrices, or a game too large to enumerate (``MAX_SUPPORT_PAIRS``).
    """
    a, b = _bimatrix(row_payoff, col_payoff)
    m, n = a.shape
    if (2**m - 1) * (2**n - 1) > MAX_SUPPORT_PAIRS:
        raise ValueError(f"a {m}x{n} game is too large for support enumeration")
    for rows, cols in _support_pairs(m, n):
        if len(rows) == len(cols) == 1:
            continue
        found = _equilibrium_on(a, b, rows, cols)
        if found is not None and max(sum(p > 0 for p in found.row), sum(p > 0 for p in found.col)) > 1:
            return found
    return None


def is_equilibrium(row_payoff: Matrix, col_payoff: Matrix, row: Vector, col: Vector,
                   tolerance: float = TOLERANCE) -> bool:
    """True when no player gains more than ``tolerance`` by a unilateral deviation."""
    a, b = _bimatrix(row_payoff, col_payoff)
    x, y = np.asarray(row, dtype=float), np.asarray(col, dtype=float)
    return bool(np.max(a @ y) <= x @ a @ y + tolerance and np.max(x @ b) <= x @ b @ y + tolerance)


def _bimatrix(row_payoff: Matrix, col_payoff: Matrix) -> tuple[np.ndarray, np.ndarray]:
    a = as_matrix(row_payoff, "row player's payoff matrix")
    b = as_matrix(col_payoff, "column player's payoff matrix")
    if a.shape != b.shape:
        raise ValueError(f"the payoff matrices differ in shape: {a.shape} and {b.shape}")
    return a, b


def _support_pairs(m: int, n: int) -> Iterator[tuple[tuple[int, ...], tuple[int, ...]]]:
    """All (row support, column support) pairs: smaller total first, then more balanced first."""
    sizes = sorted(((r, c) for r in range(1, m + 1) for c in range(1, n + 1)),
                   key=lambda s: (s[0] + s[1], abs(s[0] - s[1])))
    for r, c in sizes:
        for rows in itertools.combinations(range(m), r):
            for cols in itertools.combinations(range(n), c):
                yield rows, cols


def _equilibrium_on(a: np.ndarray, b: np.ndarray, rows: tuple[int, ...], cols: tuple[int, ...]) -> Equilibrium | None:
    """An equilibrium with supports inside ``rows`` and ``cols``, or None (one feasibility LP each side).

    The column strategy y (on ``cols``) must make every row of ``rows`` a best response
    (equal payoff u, at least every other row's); the row strategy x (on ``rows``) likewise
    for the columns. The two conditions are independent, so they are two small LPs.
    """
    y = _indifferent(a, rows, cols)
    if y is None:
        return None
    x = _indifferent(b.T, cols, rows)
    if x is None:
        return None
    if not is_equilibrium(a, b, x, y):
        return None
    return Equilibrium(_clean(x), _clean(y), (float(x @ a @ y), float(x @ b @ y)))


def _indifferent(a: np.ndarray, rows: tuple[int, ...], cols: tuple[int, ...]) -> np.ndarray | None:
    """A mixed column strategy on ``cols`` against which every row in ``rows`` is a best response."""
    m, n = a.shape
    k = len(cols)
    sub = a[:, cols]  # payoff of every row against the support columns
    # Unknowns: y on cols, then u. Rows in the support: sub·y - u = 0; others: sub·y - u <= 0.
    inside = list(rows)
    outside = [i for i in range(m) if i not in rows]
    equal = np.vstack([np.hstack([sub[inside], -np.ones((len(inside), 1))]),
                       np.hstack([np.ones((1, k)), np.zeros((1, 1))])])
    equal_rhs = np.zeros(len(inside) + 1)
    equal_rhs[-1] = 1.0
    upper = np.hstack([sub[outside], -np.ones((len(outside), 1))]) if outside else None
    upper_rhs = np.zeros(len(outside)) if outside else None
    bounds = [(0.0, None)] * k + [(None, None)]
    result = _linprog()(np.zeros(k + 1), A_ub=upper, b_ub=upper_rhs, A_eq=equal, b_eq=equal_rhs, bounds=bounds,
                     method="highs", options=_HIGHS_OPTIONS)
    if result.status != 0:
        return None
    y = np.zeros(n)
    y[list(cols)] = result.x[:k]
    return _normalised(y)


# ------------------------------------------------------------------ helpers


def _normalised(x: np.ndarray) -> np.ndarray:
    x = np.where(x > _SUPPORT, x, 0.0)
    total = x.sum()
    if total <= 0 or not math.isfinite(total):
        raise ArithmeticError("the LP solver returned no probability distribution")
    return x / total


def _clean(x: np.ndarray) -> tuple[float, ...]:
    """A probability tuple: tiny entries zero, the rest renormalised, plain floats."""
    return tuple(float(p) for p in _normalised(np.asarray(x, dtype=float)))


def _unit(size: int, index: int) -> tuple[float, ...]:
    return tuple(1.0 if k == index else 0.0 for k in range(size))
