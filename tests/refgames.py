"""Hand-written reference games: the oracle for the solver tests and for compiled rule files.

States are plain tuples and moves are :class:`solver.game.Move` objects, named
exactly as the bundled rule files name them (``place(b2)``, ``drop(d)``,
``take(0,2)``, ``roll``, ``hold``, ``d=4``), so a compiled game can be checked
move by move against these.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from solver.game import CHANCE, TERMINAL, GameBase, Move

# ----------------------------------------------------------------- tic-tac-toe

_TTT_LINES = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8),
    (0, 3, 6), (1, 4, 7), (2, 5, 8),
    (0, 4, 8), (2, 4, 6),
)


class TicTacToe(GameBase):
    """Tic-tac-toe. Cell index ``row*3 + col``, row 0 at the bottom; ``place(b2)`` is the centre.

    State: ``(board, turn)`` with board a 9-tuple of 0 (empty), 1 (X), 2 (O) and
    turn the player to move or TERMINAL.
    """

    name = "tictactoe"
    players = ("X", "O")
    zero_sum = True
    utility_bounds = (-1.0, 1.0)

    def __init__(self) -> None:
        self.moves = tuple(Move("place", ("abc"[i % 3] + str(i // 3 + 1),)) for i in range(9))
        self._cell = {m: i for i, m in enumerate(self.moves)}

    def initial_state(self) -> tuple:
        return ((0,) * 9, 0)

    def to_move(self, state: tuple) -> int:
        return state[1]

    def legal_moves(self, state: tuple) -> list[Move]:
        board = state[0]
        return [m for m, c in zip(self.moves, board, strict=False) if c == 0]

    @staticmethod
    def winner(board: tuple) -> int | None:
        for a, b, c in _TTT_LINES:
            if board[a] and board[a] == board[b] == board[c]:
                return board[a] - 1
        return None

    def apply(self, state: tuple, move: Hashable) -> tuple:
        board, turn = state
        cell = self._cell[move]
        board = (*board[:cell], turn + 1, *board[cell + 1:])
        if self.winner(board) is not None or 0 not in board:
            return (board, TERMINAL)
        return (board, 1 - turn)

    def utilities(self, state: tuple) -> tuple[float, ...]:
        w = self.winner(state[0])
        if w is None:
            return (0.0, 0.0)
        return (1.0, -1.0) if w == 0 else (-1.0, 1.0)

    def heuristic(self, state: tuple) -> tuple[float, ...]:
        # Open lines for X minus open lines for O, scaled into (-1, 1).
        board = state[0]
        score = 0
        for line in _TTT_LINES:
            marks = {board[i] for i in line} - {0}
            if marks == {1}:
                score += 1
            elif marks == {2}:
                score -= 1
        return (score / 10, -score / 10)


# ---------------------------------------------------------------- connect four


class ConnectFour(GameBase):
    """Connect-k on a ``cols`` x ``rows`` board; ``drop(d)`` drops into column d (``a`` is the leftmost).

    State: ``(red, yellow, turn, stones, winner)`` with ``red`` and ``yellow``
    bitboards (column x, row y is bit ``x*(rows+1) + y``; the extra bit per
    column keeps lines from wrapping), ``turn`` the player to move or
    TERMINAL, ``winner`` 0, 1 or None. Bitboards keep this oracle fast enough
    to solve 6x4 in a test.
    """

    name = "connect4"
    players = ("Red", "Yellow")
    zero_sum = True
    utility_bounds = (-1.0, 1.0)

    def __init__(self, cols: int = 7, rows: int = 6, k: int = 4) -> None:
        self.cols, self.rows, self.k = cols, rows, k
        self.parameters = {"cols": cols, "rows": rows, "k": k}
        self.moves = tuple(Move("drop", ("abcdefghijklmnopqrstuvwxyz"[x],), data=x) for x in range(cols))
        height = rows + 1
        self._bottom = [1 << (x * height) for x in range(cols)]
        self._top = [1 << (x * height + rows - 1) for x in range(cols)]
        self._column = [((1 << rows) - 1) << (x * height) for x in range(cols)]
        self._directions = (1, height, height + 1, height - 1)

    def initial_state(self) -> tuple:
        return (0, 0, 0, 0, None)

    def to_move(self, state: tuple) -> int:
        return state[2]

    def legal_moves(self, state: tuple) -> list[Move]:
        full = state[0] | state[1]
        return [m for m, top in zip(self.moves, self._top, strict=True) if not full & top]

    def key(self, state: tuple) -> Hashable:
        return (state[0], state[1])  # the stones determine turn and result

    def cell(self, state: tuple, col: int, row: int) -> int:
        """0 empty, 1 Red, 2 Yellow."""
        bit = 1 << (col * (self.rows + 1) + row)
        return 1 if state[0] & bit else 2 if state[1] & bit else 0

    def _wins(self, bits: int) -> bool:
        k = self.k
        for d in self._directions:
            line = bits
            for i in range(1, k):
                line &= bits >> (i * d)
            if line:
                return True
        return False

    def apply(self, state: tuple, move: Hashable) -> tuple:
        red, yellow, turn, stones, _ = state
        col = move.data  # type: ignore[attr-defined]
        # Adding the column's bottom bit to its occupied bits carries into the lowest empty cell.
        stone = ((red | yellow) + self._bottom[col]) & self._column[col]
        if turn == 0:
            red |= stone
            mine = red
        else:
            yellow |= stone
            mine = yellow
        stones += 1
        if self._wins(mine):
            return (red, yellow, TERMINAL, stones, turn)
        if stones == self.cols * self.rows:
            return (red, yellow, TERMINAL, stones, None)
        return (red, yellow, 1 - turn, stones, None)

    def utilities(self, state: tuple) -> tuple[float, ...]:
        winner = state[4]
        if winner is None:
            return (0.0, 0.0)
        return (1.0, -1.0) if winner == 0 else (-1.0, 1.0)

    def render(self, state: tuple) -> str:
        return "\n".join("".join(".XO"[self.cell(state, x, y)] for x in range(self.cols))
                         for y in reversed(range(self.rows)))


# ------------------------------------------------------------------------ nim


class Nim(GameBase):
    """Nim: ``take(h,n)`` removes n >= 1 objects from heap h; who takes the last object wins."""

    name = "nim"
    players = ("First", "Second")
    zero_sum = True
    utility_bounds = (-1.0, 1.0)

    def __init__(self, heaps: Sequence[int] = (3, 4, 5)) -> None:
        self.heaps = tuple(heaps)
        self.parameters = {"heaps": self.heaps}
        self._moves = {(h, n): Move("take", (h, n)) for h, size in enumerate(self.heaps) for n in range(1, size + 1)}

    def initial_state(self) -> tuple:
        return (self.heaps, 0)

    def to_move(self, state: tuple) -> int:
        return state[1] if any(state[0]) else TERMINAL

    def legal_moves(self, state: tuple) -> list[Move]:
        moves = self._moves
        return [moves[h, n] for h, size in enumerate(state[0]) for n in range(1, size + 1)]

    def apply(self, state: tuple, move: Hashable) -> tuple:
        heaps, turn = state
        h, n = move.args  # type: ignore[attr-defined]
        return ((*heaps[:h], heaps[h] - n, *heaps[h + 1:]), 1 - turn)

    def utilities(self, state: tuple) -> tuple[float, ...]:
        last = 1 - state[1]  # the player who just moved took the last object
        return (1.0, -1.0) if last == 0 else (-1.0, 1.0)


# ------------------------------------------------------------------------ pig


class Pig(GameBase):
    """Pig: ``roll`` (always legal) or ``hold`` (when the pot is not empty).

    State: ``(score_a, score_b, pot, turn, rolling)``; ``rolling`` is 1 at the
    chance node right after ``roll``, whose outcomes ``d=1`` .. ``d=6`` each
    have probability 1/6.
    """

    name = "pig"
    players = ("A", "B")
    zero_sum = True
    utility_bounds = (-1.0, 1.0)
    has_chance = True

    ROLL = Move("roll")
    HOLD = Move("hold")
    DICE = tuple(Move(f"d={d}") for d in range(1, 7))

    def __init__(self, goal: int = 20) -> None:
        self.goal = goal
        self.parameters = {"goal": goal}
        self._outcomes = [(m, 1 / 6) for m in self.DICE]
        self._die = {m: d for d, m in enumerate(self.DICE, start=1)}

    def initial_state(self) -> tuple:
        return (0, 0, 0, 0, 0)

    def to_move(self, state: tuple) -> int:
        a, b, _, turn, rolling = state
        if a >= self.goal or b >= self.goal:
            return TERMINAL
        return CHANCE if rolling else turn

    def legal_moves(self, state: tuple) -> list[Move]:
        return [self.ROLL, self.HOLD] if state[2] > 0 else [self.ROLL]

    def chance_outcomes(self, state: tuple) -> list[tuple[Move, float]]:
        return self._outcomes

    def apply(self, state: tuple, move: Hashable) -> tuple:
        a, b, pot, turn, rolling = state
        if rolling:
            d = self._die[move]
            if d == 1:
                return (a, b, 0, 1 - turn, 0)
            return (a, b, min(pot + d, self.goal), turn, 0)
        if move == self.ROLL:
            return (a, b, pot, turn, 1)
        if turn == 0:
            return (min(a + pot, self.goal), b, 0, 1, 0)
        return (a, min(b + pot, self.goal), 0, 0, 0)

    def utilities(self, state: tuple) -> tuple[float, ...]:
        return (1.0, -1.0) if state[0] >= self.goal else (-1.0, 1.0)


# ------------------------------------------------------------- a cyclic game


class Ring(GameBase):
    """A token on a ring of ``n`` cells, at ``start``; either player moves it ``left`` or ``right``.

    Whoever moves it onto cell 0 wins. Play can go round forever: on a ring of 6
    from cell 3 neither player can force a win (value 0, a draw by endless play).
    """

    name = "ring"
    players = ("P", "Q")
    zero_sum = True
    utility_bounds = (-1.0, 1.0)
    MOVES = (Move("left"), Move("right"))

    def __init__(self, n: int = 6, start: int = 3) -> None:
        self.n, self.start = n, start
        self.parameters = {"n": n, "start": start}

    def initial_state(self) -> tuple:
        return (self.start, 0)

    def to_move(self, state: tuple) -> int:
        return TERMINAL if state[0] == 0 else state[1]

    def legal_moves(self, state: tuple) -> tuple[Move, ...]:
        return self.MOVES

    def apply(self, state: tuple, move: Hashable) -> tuple:
        pos, turn = state
        step = -1 if move == self.MOVES[0] else 1
        return ((pos + step) % self.n, 1 - turn)

    def utilities(self, state: tuple) -> tuple[float, ...]:
        return (1.0, -1.0) if state[1] == 1 else (-1.0, 1.0)  # the player who just moved won


# ------------------------------------------------------- three players, general sum


class Takeaway3(GameBase):
    """Three players in turn take 1 or 2 from a pile; each scores the objects taken, plus 3 for the last one.

    State: ``(pile, turn, taken_0, taken_1, taken_2)``. General-sum.
    """

    name = "takeaway3"
    players = ("P1", "P2", "P3")
    utility_bounds = (0.0, 3.0 + 100)
    MOVES = (Move("take", (1,)), Move("take", (2,)))

    def __init__(self, pile: int = 7) -> None:
        self.pile = pile
        self.parameters = {"pile": pile}

    def initial_state(self) -> tuple:
        return (self.pile, 0, 0, 0, 0)

    def to_move(self, state: tuple) -> int:
        return state[1] if state[0] > 0 else TERMINAL

    def legal_moves(self, state: tuple) -> tuple[Move, ...]:
        return self.MOVES if state[0] >= 2 else self.MOVES[:1]

    def apply(self, state: tuple, move: Hashable) -> tuple:
        pile, turn, *taken = state
        n = move.args[0]  # type: ignore[attr-defined]
        taken[turn] += n
        return (pile - n, (turn + 1) % 3, *taken)

    def utilities(self, state: tuple) -> tuple[float, ...]:
        last = (state[1] - 1) % 3
        return tuple(float(state[2 + i] + (3 if i == last else 0)) for i in range(3))


# ------------------------------------------------------------ explicit trees and graphs


class TreeGame(GameBase):
    """A game given as an explicit tree (for random trees in property tests).

    A node is ``("T", utilities)``, ``("D", player, (child, ...))`` or
    ``("C", ((probability, child), ...))``. States are paths (tuples of child
    indexes); moves are ``m(i)`` and chance outcomes ``o(i)``.
    """

    name = "tree"

    def __init__(self, root: Any, players: int = 2, zero_sum: bool = False,
                 utility_bounds: tuple[float, float] | None = None) -> None:
        self.players = tuple(f"p{i}" for i in range(players))
        self.zero_sum = zero_sum
        self.utility_bounds = utility_bounds
        self.nodes: dict[tuple, Any] = {}
        self.has_chance = False
        stack = [((), root)]
        while stack:
            path, node = stack.pop()
            self.nodes[path] = node
            if node[0] == "D":
                stack.extend(((*path, i), child) for i, child in enumerate(node[2]))
            elif node[0] == "C":
                self.has_chance = True
                stack.extend(((*path, i), child) for i, (_, child) in enumerate(node[1]))
        self.parameters = {"tree": repr(root)}

    def initial_state(self) -> tuple:
        return ()

    def to_move(self, state: tuple) -> int:
        node = self.nodes[state]
        return TERMINAL if node[0] == "T" else CHANCE if node[0] == "C" else node[1]

    def legal_moves(self, state: tuple) -> list[Move]:
        return [Move("m", (i,)) for i in range(len(self.nodes[state][2]))]

    def chance_outcomes(self, state: tuple) -> list[tuple[Move, float]]:
        return [(Move("o", (i,)), p) for i, (p, _) in enumerate(self.nodes[state][1])]

    def apply(self, state: tuple, move: Hashable) -> tuple:
        return (*state, move.args[0])  # type: ignore[attr-defined]

    def utilities(self, state: tuple) -> tuple[float, ...]:
        return tuple(self.nodes[state][1])


class GraphGame(GameBase):
    """A deterministic two-player zero-sum game on an explicit, possibly cyclic, graph.

    ``nodes[i]`` is ``("T", u0)`` (player 0 gets u0, player 1 gets -u0) or
    ``("D", player, (successor, ...))``; the game starts at node 0 and move
    ``e(k)`` follows the k-th edge.
    """

    name = "graph"
    players = ("p0", "p1")
    zero_sum = True

    def __init__(self, nodes: Sequence[Any]) -> None:
        self.nodes = tuple(nodes)
        self.parameters = {"nodes": repr(self.nodes)}
        values = [abs(n[1]) for n in self.nodes if n[0] == "T"] or [1.0]
        self.utility_bounds = (-max(values), max(values))

    def initial_state(self) -> int:
        return 0

    def to_move(self, state: int) -> int:
        node = self.nodes[state]
        return TERMINAL if node[0] == "T" else node[1]

    def legal_moves(self, state: int) -> list[Move]:
        return [Move("e", (k,)) for k in range(len(self.nodes[state][2]))]

    def apply(self, state: int, move: Hashable) -> int:
        return self.nodes[state][2][move.args[0]]  # type: ignore[attr-defined]

    def utilities(self, state: int) -> tuple[float, ...]:
        u = float(self.nodes[state][1])
        return (u, -u)
