"""gdl: games as small declarative rule files, checked, compiled and solved.

>>> import gdl
>>> game = gdl.load("tictactoe")
>>> game.players
('X', 'O')
"""

from gdl.diagnostics import Diagnostic, GdlError, ParameterError, RuleFileError
from gdl.loader import GameNotFoundError, bundled_games, load, load_source
from gdl.runtime import CompiledGame, RuleRuntimeError

__all__ = [
    "CompiledGame",
    "Diagnostic",
    "GameNotFoundError",
    "GdlError",
    "ParameterError",
    "RuleFileError",
    "RuleRuntimeError",
    "bundled_games",
    "load",
    "load_source",
]
from gdl.version import __version__ as __version__
