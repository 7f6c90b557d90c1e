"""Generic game-solving algorithms over the game interface of :mod:`solver.game`.

This package knows nothing of the rule language: any object implementing
:class:`solver.game.Game` can be searched and solved.
"""

from solver.game import CHANCE, TERMINAL, Game, GameBase, Move

__all__ = ["CHANCE", "TERMINAL", "Game", "GameBase", "Move"]
