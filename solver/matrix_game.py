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
with tightened tolerances, on the payoffs divided by their largest magnitude: every
tolerance is relative to the payoffs' scale, so a game scaled by 1e-12 or by 1e285 has the
strategies of the unscaled one and its value scaled. Each LP solution is a vertex; it is
then *polished*: the linear equations of its support are solved again with a least-squares
solve and the polished strategies are kept when they are at least as good. Then the same
equations are solved in exact rational arithmetic (:class:`fractions.Fraction`, over the
payoffs as the exact rationals their floats are) and the rational strategies are *verified*
to be an equilibrium, with no tolerance at all; when they are, the value and strategies
returned are the floats nearest to them (``exact`` is True: 4/7 is 0.5714285714285714, not
0.571429). Otherwise the polished LP answer is returned, optimal to ``TOLERANCE`` times the
payoffs' scale. Strategies are clipped at 0 and normalised to sum to 1.

Payoffs are given as a sequence of rows (``payoff[i][j]``: the row player's payoff when
the row player picks i and the column player picks j). Rows are player 0's moves, columns
player 1's.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

Matrix = Sequence[Sequence[float]] | np.ndarray
"""A payoff matrix: nested sequences, or an array."""
Vector = Sequence[float] | np.ndarray

TOLERANCE = 1e-9
"""How far from optimal (or from an equilibrium) a returned strategy may be, as a fraction of the largest payoff's
magnitude (the LPs work on the payoffs divided by it)."""
_HIGHS_OPTIONS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
_SUPPORT = 1e-12
"""Probabilities at or below this are taken as zero when a support is read off an LP solution."""
PIVOTING_CELLS = 400
"""A zero-sum game whose LP answer does not verify exactly is solved again by exact pivoting when it has at most
this many cells (above it, the LP answer stands, optimal to ``TOLERANCE`` of the payoffs' scale)."""
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
    exact: bool = False
    """True when ``value``, ``row`` and ``col`` are the floats nearest to a rational solution verified exactly."""

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
    exact: bool = False
    """True when the strategies and values are the floats nearest to a rational equilibrium verified exactly."""


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
        return MatrixSolution(float(a[i, j]), _unit(a.shape[0], i), _unit(a.shape[1], j), exact=True)
    scale = _scale(a)
    unit = a / scale  # the LPs' tolerances are then relative to the payoffs' scale
    row = _polish_maximin(unit, _maximin(unit))
    col = _polish_maximin(-unit.T, _maximin(-unit.T))
    fractions = _fractions(a)
    exact = _exact_zero_sum(fractions, row, col, unit)
    if exact is None and a.size <= PIVOTING_CELLS:  # the LP's supports were off (a payoff near its tolerance)
        exact = _pivoting(fractions)
    if exact is not None:
        value, x, y = exact
        return MatrixSolution(float(value), _floats(x), _floats(y), exact=True)
    low = float(np.min(row @ unit))  # what the row strategy guarantees
    high = float(np.max(unit @ col))  # what the column strategy concedes at most
    middle = (low + high) / 2 if high - low > 0 else low
    return MatrixSolution(middle * scale, _clean(row), _clean(col))


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
    tight = _tight(x @ a)  # the columns that hold the row player down
    k = len(support)
    # Unknowns: x on the support, then v. Equations: x·A[S, j] - v = 0 for tight j; sum(x) = 1.
    system = np.zeros((len(tight) + 1, k + 1))
    system[:-1, :k] = a[np.ix_(support, np.array(tight, dtype=int))].T
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

    A cell is an equilibrium when neither player gains by deviating alone more than
    ``tolerance`` times its largest payoff's magnitude: ``A[i, j]`` is a maximum of column j
    of A, ``B[i, j]`` a maximum of row i of B. There may be none (matching pennies), one, or several.

    >>> pure_equilibria([[3, 0], [5, 1]], [[3, 5], [0, 1]])  # the prisoner's dilemma
    [(1, 1)]
    """
    a, b = _bimatrix(row_payoff, col_payoff)
    best_rows = a >= a.max(axis=0, keepdims=True) - tolerance * _scale(a)
    best_cols = b >= b.max(axis=1, keepdims=True) - tolerance * _scale(b)
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
        return Equilibrium(_unit(a.shape[0], i), _unit(a.shape[1], j), (float(a[i, j]), float(b[i, j])), exact=True)
    m, n = a.shape
    if (2**m - 1) * (2**n - 1) > MAX_SUPPORT_PAIRS:
        raise ValueError(f"a {m}x{n} game is too large for support enumeration")
    found = _first_equilibrium(a, b, _support_pairs(m, n))
    if found is None:
        raise ArithmeticError("support enumeration found no equilibrium (numerical trouble in the LP solver)")
    return found


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
    pairs = ((rows, cols) for rows, cols in _support_pairs(m, n) if len(rows) + len(cols) > 2)
    return _first_equilibrium(a, b, pairs, mixed=True)


def is_equilibrium(row_payoff: Matrix, col_payoff: Matrix, row: Vector, col: Vector,
                   tolerance: float = TOLERANCE) -> bool:
    """True when no player gains by a unilateral deviation more than ``tolerance`` times its largest payoff's
    magnitude."""
    a, b = _bimatrix(row_payoff, col_payoff)
    x, y = np.asarray(row, dtype=float), np.asarray(col, dtype=float)
    return bool(np.max(a @ y) <= x @ a @ y + tolerance * _scale(a)
                and np.max(x @ b) <= x @ b @ y + tolerance * _scale(b))


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


def _first_equilibrium(a: np.ndarray, b: np.ndarray, pairs: Iterator[tuple[tuple[int, ...], tuple[int, ...]]],
                       mixed: bool = False) -> Equilibrium | None:
    """The equilibrium of the first support pair of ``pairs`` that has one (with ``mixed``, one where a player
    mixes), or None. The LPs see each player's payoffs divided by their largest magnitude."""
    unit_a, unit_b = a / _scale(a), b / _scale(b)  # an equilibrium does not change when a player's payoffs scale
    for rows, cols in pairs:
        found = _equilibrium_on(unit_a, unit_b, rows, cols)
        if found is None:
            continue
        equilibrium = _equilibrium(a, b, *found)
        if not mixed or max(sum(p > 0 for p in equilibrium.row), sum(p > 0 for p in equilibrium.col)) > 1:
            return equilibrium
    return None


def _equilibrium_on(a: np.ndarray, b: np.ndarray, rows: tuple[int, ...],
                    cols: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray] | None:
    """Equilibrium strategies (x, y) with supports inside ``rows`` and ``cols``, or None (one feasibility LP
    each side).

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
    return x, y


def _equilibrium(a: np.ndarray, b: np.ndarray, x: np.ndarray, y: np.ndarray) -> Equilibrium:
    """The equilibrium (x, y) the LPs found, made exact when its rational solution verifies."""
    exact = _exact_equilibrium(_fractions(a), _fractions(b), x, y)
    if exact is not None:
        row, col, (u, w) = exact
        return Equilibrium(_floats(row), _floats(col), (float(u), float(w)), exact=True)
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


# ------------------------------------------------------------------ exact rational solutions


Fractions = list[list[Fraction]]
"""A payoff matrix in exact rationals (each float as the rational it is)."""


def _exact_zero_sum(a: Fractions, row: np.ndarray, col: np.ndarray,
                    unit: np.ndarray) -> tuple[Fraction, list[Fraction], list[Fraction]] | None:
    """The value and strategies of the zero-sum game ``a`` in exact rationals, from the LPs' answers ``row`` and
    ``col`` (on ``unit``, the payoffs scaled), or None when their supports give no verified solution.

    Complementary slackness: the row strategy equalises the columns the column strategy plays (or
    every column that holds it down), and the other way round. Each such linear system is solved
    exactly; a pair is kept only if the least the row strategy guarantees equals, exactly, the
    most the column strategy concedes (both are then optimal and that is the value).
    """
    m, n = len(a), len(a[0])
    rows, cols = _support(row), _support(col)
    minus_transposed = [[-a[i][j] for i in range(m)] for j in range(n)]  # the column player's game, -Aᵀ
    x_sets, y_sets = (cols, _tight(row @ unit)), (rows, _tight(-(unit @ col)))
    xs: dict[int, list[Fraction] | None] = {}  # solved on demand: the first pair nearly always verifies
    ys: dict[int, list[Fraction] | None] = {}
    for i, j in ((0, 0), (1, 0), (0, 1), (1, 1)):
        if (i and x_sets[1] == x_sets[0]) or (j and y_sets[1] == y_sets[0]):
            continue  # the same equations again
        if i not in xs:
            xs[i] = _strategy(_equalising(a, rows, x_sets[i]))
        if j not in ys:
            ys[j] = _strategy(_equalising(minus_transposed, cols, y_sets[j]))
        x, y = xs[i], ys[j]
        if x is None or y is None:
            continue
        guaranteed = min(_dot_column(a, x, c) for c in range(n))
        if max(_dot_row(a, r, y) for r in range(m)) == guaranteed:
            return guaranteed, x, y
    return None


def _strategy(found: tuple[list[Fraction], Fraction] | None) -> list[Fraction] | None:
    return None if found is None else found[0]


def _pivoting(a: Fractions) -> tuple[Fraction, list[Fraction], list[Fraction]]:
    """The value and optimal strategies of the zero-sum game ``a`` by the simplex method in exact rationals.

    The pivot method for matrix games (T. S. Ferguson, *Game Theory*, Part II, section 4.5; after
    Dantzig 1951): shift the payoffs so that each is at least 1 (the value shifts with them and stays
    positive), then maximise ``sum(w)`` subject to ``A·w <= 1``, ``w >= 0``. At the optimum ``sum(w)`` is
    one over the shifted value, ``w / sum(w)`` is the column player's strategy and the dual prices of
    the rows, divided the same way, the row player's. Bland's rule (smallest index enters and leaves)
    cannot cycle. The payoffs are first divided by their largest magnitude, so that a game scaled by a
    power of two pivots exactly as the unscaled one.
    """
    m, n = len(a), len(a[0])
    scale = max(abs(v) for line in a for v in line) or Fraction(1)
    a = [[v / scale for v in line] for line in a]
    shift = 1 - min(min(line) for line in a)
    # Columns: w_0..w_{n-1}, the slacks s_0..s_{m-1}, the right-hand side; the last row is the objective.
    table = [[a[i][j] + shift for j in range(n)] + [Fraction(int(i == k)) for k in range(m)] + [Fraction(1)]
             for i in range(m)]
    table.append([Fraction(-1)] * n + [Fraction(0)] * (m + 1))
    basic = [n + i for i in range(m)]  # the variable that row i holds
    while (enter := next((c for c in range(n + m) if table[-1][c] < 0), None)) is not None:
        ratios = [(line[-1] / line[enter], basic[r], r) for r, line in enumerate(table[:-1]) if line[enter] > 0]
        _, _, leave = min(ratios)  # bounded: every column has a positive entry
        lead = table[leave][enter]
        table[leave] = [v / lead for v in table[leave]]
        for r, line in enumerate(table):
            if r != leave and line[enter] != 0:
                factor = line[enter]
                table[r] = [v - factor * w for v, w in zip(line, table[leave], strict=True)]
        basic[leave] = enter
    total = table[-1][-1]  # sum(w), one over the shifted value
    col = [Fraction(0)] * n
    for r, variable in enumerate(basic):
        if variable < n:
            col[variable] = table[r][-1] / total
    row = [table[-1][n + i] / total for i in range(m)]
    return (1 / total - shift) * scale, row, col


def _exact_equilibrium(a: Fractions, b: Fractions, x: np.ndarray,
                       y: np.ndarray) -> tuple[list[Fraction], list[Fraction], tuple[Fraction, Fraction]] | None:
    """The equilibrium on the supports of ``x`` and ``y`` in exact rationals, with each player's payoff, or
    None when it does not verify: y makes every row x plays a best response of the row player (every row
    gets at most what those get), x likewise for the columns y plays."""
    rows, cols = _support(x), _support(y)
    transposed = [list(column) for column in zip(*a, strict=True)]
    found_y = _equalising(transposed, cols, rows)
    found_x = _equalising(b, rows, cols)
    if found_x is None or found_y is None:
        return None
    (col, u), (row, w) = found_y, found_x
    if max(_dot_row(a, i, col) for i in range(len(a))) != u:
        return None
    if max(_dot_column(b, row, j) for j in range(len(b[0]))) != w:
        return None
    return row, col, (u, w)


def _equalising(m: Fractions, support: Sequence[int], equal: Sequence[int]) -> tuple[list[Fraction], Fraction] | None:
    """A probability distribution z over the rows of ``m``, zero outside ``support``, under which every column
    of ``equal`` pays the same, ``v = sum(z[k] * m[k][e])``; with v. None when there is none."""
    k = len(support)
    # Unknowns: z on the support, then v. Equations: z·m[S, e] - v = 0 for e in equal; sum(z) = 1.
    system = [[m[i][e] for i in support] + [Fraction(-1)] for e in equal]
    system.append([Fraction(1)] * k + [Fraction(0)])
    solution = _solve_exact(system, [Fraction(0)] * len(equal) + [Fraction(1)])
    if solution is None or any(p < 0 for p in solution[:k]):
        return None
    z = [Fraction(0)] * len(m)
    for index, p in zip(support, solution, strict=False):
        z[index] = p
    return z, solution[k]


def _solve_exact(matrix: Fractions, rhs: list[Fraction]) -> list[Fraction] | None:
    """One solution of ``matrix · z = rhs`` (Gauss-Jordan elimination in rationals; free unknowns 0), or None
    when the system has none."""
    rows = [[*line, value] for line, value in zip(matrix, rhs, strict=True)]
    width = len(matrix[0])
    pivots: list[int] = []
    for column in range(width):
        if len(pivots) == len(rows):
            break
        top = len(pivots)
        pivot = next((r for r in range(top, len(rows)) if rows[r][column] != 0), None)
        if pivot is None:
            continue
        rows[top], rows[pivot] = rows[pivot], rows[top]
        lead = rows[top][column]
        rows[top] = [v / lead for v in rows[top]]
        for r, line in enumerate(rows):
            if r != top and line[column] != 0:
                factor = line[column]
                rows[r] = [v - factor * w for v, w in zip(line, rows[top], strict=True)]
        pivots.append(column)
    if any(line[-1] != 0 for line in rows[len(pivots):]):  # 0 = nonzero: inconsistent
        return None
    z = [Fraction(0)] * width
    for r, column in enumerate(pivots):
        z[column] = rows[r][-1]
    return z


def _dot_column(m: Fractions, z: Sequence[Fraction], column: int) -> Fraction:
    return sum((z[i] * m[i][column] for i in range(len(m)) if z[i]), Fraction(0))


def _dot_row(m: Fractions, row: int, z: Sequence[Fraction]) -> Fraction:
    return sum((m[row][j] * z[j] for j in range(len(z)) if z[j]), Fraction(0))


def _fractions(a: np.ndarray) -> Fractions:
    return [[Fraction(v) for v in line] for line in a.tolist()]


def _floats(z: Sequence[Fraction]) -> tuple[float, ...]:
    return tuple(float(p) for p in z)


# ------------------------------------------------------------------ helpers


def _scale(a: np.ndarray) -> float:
    """The payoffs' scale: their largest magnitude (1 for a matrix of zeros)."""
    largest = float(np.max(np.abs(a)))
    return largest if largest > 0 else 1.0


def _support(x: np.ndarray) -> list[int]:
    return [int(i) for i in np.flatnonzero(x > _SUPPORT)]


def _tight(payoffs: np.ndarray) -> list[int]:
    """The indices where ``payoffs`` (of a matrix scaled to magnitude 1) are at their minimum, to TOLERANCE."""
    return [int(i) for i in np.flatnonzero(payoffs <= np.min(payoffs) + TOLERANCE)]



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
